"""One job of a simulated night: which deployments run, and how each ends, come from ``SCENARIO_NIGHT``.

``SCENARIO_NIGHT`` is JSON: ``{"gpu": "A10G" | "L40S", "tests": {config name: outcome}}`` where an outcome is
``pass``, ``skip``, ``memory`` (vLLM's startup free-memory check), ``gated`` (a gated Hugging Face repo),
``port`` (the frontend's port is taken) or ``keyerror`` (a failure no rule knows). A config the night does not
name is not collected at all: the store sees it as not run. Every log opens with the GPU line the harness
prints, as in scenario_history_gpu.py.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator

import allure
import fakelogs
import pytest
from dynamo_harness import ManagedProcess, log_directory_for

pytest_plugins = ("harness_plugin",)

DYNAMO_TEST_TYPE = "Test"
GPUS = {"A10G": ("NVIDIA A10G", 23028), "L40S": ("NVIDIA L40S", 46068)}
NIGHT = json.loads(os.environ.get("SCENARIO_NIGHT", '{"gpu": "A10G", "tests": {"agg_qwen3-0.6b": "pass"}}'))
GPU_NAME, GPU_MIB = GPUS[NIGHT["gpu"]]
ENGINE_CORE_FAILURE = "Engine core initialization failed. See root cause above. Failed core proc(s): {}"
FAILURES: dict[str, tuple[Callable[[str], str], Callable[[], BaseException]]] = {
    "memory": (fakelogs.encoder_memory_log, lambda: RuntimeError(ENGINE_CORE_FAILURE)),
    "gated": (
        lambda name: fakelogs.gated_repo_log(name, fakelogs.LLAMA_3_1_8B),
        lambda: RuntimeError(ENGINE_CORE_FAILURE),
    ),
    "port": (fakelogs.frontend_port_in_use_log, lambda: RuntimeError("frontend exited with code 1")),
    "keyerror": (fakelogs.request_plane_error_log, lambda: RuntimeError("worker exited with code 1")),
}

TICKETS = {  # the ticket each failure's test links to, as Dynamo's tests do with allure.issue
    "memory": ("OPS-4445", "https://linear.app/acme/issue/OPS-4445"),
    "gated": ("OPS-5120", "https://linear.app/acme/issue/OPS-5120"),
}

pytestmark = [pytest.mark.vllm, pytest.mark.gpu_1, pytest.mark.nightly]


@pytest.fixture
def deployment(
    config_name: str, request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ManagedProcess]:
    """Launch the config as the night says; its ``bash.log.txt`` is attached in teardown."""
    outcome = NIGHT["tests"][config_name]
    if outcome == "skip":
        pytest.skip(f"needs a GPU with more than {GPU_MIB} MiB")
    process = ManagedProcess("bash", log_directory_for(tmp_path_factory, request.node.name))
    banner = f"{GPU_NAME}, {GPU_MIB} MiB, driver 580.95.05, CUDA 13.0\n"
    if outcome in FAILURES:
        build_log, failure = FAILURES[outcome]
        if outcome in TICKETS:
            allure.dynamic.issue(TICKETS[outcome][1], TICKETS[outcome][0])
        process.exit_code = 1
        process.failure = failure()
        process.write(banner + build_log(config_name))
    else:
        process.write(
            banner + fakelogs.healthy_deployment_log(config_name, fakelogs.QWEN3_0_6B, "agg.sh", requests=3)
        )
    yield process
    process.attach_log()


@pytest.mark.parametrize("config_name", sorted(NIGHT["tests"]))
def test_serve_deployment(config_name: str, deployment: ManagedProcess) -> None:
    """Start the deployment and wait for its health check."""
    deployment.wait_until_healthy()
