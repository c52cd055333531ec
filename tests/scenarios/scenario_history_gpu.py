"""One nightly vLLM stage on the GPU that ``SCENARIO_GPU`` names: the seed case is GPU-size-gated.

On a 22 GiB A10G the encoder engine fails vLLM's startup free-memory check (OPS-4445); on a 44 GiB L40S the
same test passes. Every log starts with the ``nvidia-smi --query-gpu=name,memory.total`` line the harness
prints, so the history store can tell the runners apart from the logs alone.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import fakelogs
import pytest
from dynamo_harness import ManagedProcess, log_directory_for

pytest_plugins = ("harness_plugin",)

DYNAMO_TEST_TYPE = "Test"
GPUS = {"A10G": ("NVIDIA A10G", 23028), "L40S": ("NVIDIA L40S", 46068)}
GPU_NAME, GPU_MIB = GPUS[os.environ.get("SCENARIO_GPU", "A10G")]
ENGINE_CORE_FAILURE = "Engine core initialization failed. See root cause above. Failed core proc(s): {}"
SMALL_GPU_MIB = 30_000  # the encoder's default 0.9 share does not fit next to the PD worker below this

pytestmark = [pytest.mark.vllm, pytest.mark.gpu_1, pytest.mark.nightly]


@pytest.fixture
def deployment(
    config_name: str, request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ManagedProcess]:
    """Launch the config; its ``bash.log.txt`` opens with the GPU line and is attached in teardown."""
    process = ManagedProcess("bash", log_directory_for(tmp_path_factory, request.node.name))
    banner = f"{GPU_NAME}, {GPU_MIB} MiB, driver 580.95.05, CUDA 13.0\n"
    if config_name.startswith("mm_epd") and GPU_MIB < SMALL_GPU_MIB:
        process.exit_code = 1
        process.failure = RuntimeError(ENGINE_CORE_FAILURE)
        process.write(banner + fakelogs.encoder_memory_log(config_name))
    else:
        model = fakelogs.QWEN3_VL_2B if config_name.startswith("mm_") else fakelogs.QWEN3_0_6B
        process.write(banner + fakelogs.healthy_deployment_log(config_name, model, "agg.sh", requests=5))
    yield process
    process.attach_log()


@pytest.mark.parametrize("config_name", ["agg_qwen3-0.6b", "mm_epd_qwen3-vl-2b"])
def test_serve_deployment(config_name: str, deployment: ManagedProcess) -> None:
    """Start the deployment and wait for its health check."""
    deployment.wait_until_healthy()
