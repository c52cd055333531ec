"""The sixth round's infrastructure, harness and packaging rules (the retired second holdout's misses): which rule and
line win on the real logs, and where the lowest of them yields.

Each log is a real one from tests/corpus/train/holdout-r2 (cited in SOURCES-holdout-r2a.md / -r2b.md); the combined
cases put real lines of train logs together with the line that must outrank them. See docs/accuracy.md, "Sixth round".
"""

from __future__ import annotations

from pathlib import Path

import pytest

from forensics.rules.model import RuleSet
from tests.support.rulebook import root_cause_of, write_log

TRAIN = Path(__file__).resolve().parent / "corpus" / "train"

REAL_LOGS = [
    # pytest's collection header comes before "ImportError while importing test module" and is the evidence
    (
        "holdout-r2/test-setup/dynamo-ci-collect-vllm-test-module-importerror.log",
        "pytest.collection-error",
        2,
    ),
    # "No module named 'tests'" is the project's own test package (the test layout), not a missing dependency
    (
        "holdout-r2/test-setup/b-construct-pytest-no-module-named-tests.log",
        "pytest.test-layout-import-failed",
        1,
    ),
    # a setup error whose fixture traceback is cut away: the header is all there is
    (
        "holdout-r2/test-setup/vllm-omni-reliability-fixture-setup-error-actions-lines.log",
        "pytest.setup-error",
        4,
    ),
    # docker build's FROM step prints moby's "manifest … not found" without the daemon's prefix
    (
        "holdout-r2/container-image/b-metamorph-docker-build-cuda-manifest-unknown.log",
        "container.image-pull-failed",
        11,
    ),
    # the container hook cannot load the driver's NVML library: the host's driver, not the image
    ("holdout-r2/cuda-setup/b-nvidia-docker-libnvidia-ml-load-failed.log", "cuda.driver-mismatch", 3),
    # torch finds driver version 0: a missing driver (cuda-setup), under an AssertionError with an empty message
    ("holdout-r2/cuda-setup/b-rtfnet-container-found-no-nvidia-driver.log", "cuda.driver-mismatch", 12),
    # JAX's RuntimeError line, not the "Outdated cuDNN installation found." detail under it
    ("holdout-r2/cuda-setup/b-scipy-array-api-jax-outdated-cudnn.log", "cuda.library-version-mismatch", 3),
    # the GatedRepoError exception line, as the other labels of this huggingface_hub rendering
    ("holdout-r2/hub-access/b-mlx-mistral-gated-401.log", "hf.gated-repo", 1),
    # pip's resolver names the conflict on its first line; "ResolutionImpossible" is the footer
    (
        "holdout-r2/python-environment/b-invokeai-requirements-mac-resolution-impossible.log",
        "python.version-conflict",
        1,
    ),
    # Buildkite's status -1 is the agent's
    ("holdout-r2/runner-infrastructure/b-element-web-buildkite-agent-lost.log", "runner.lost", 1),
]

# real lines of train logs
SETUP_HEADER = (  # holdout-r2/test-setup/vllm-omni-reliability-fixture-setup-error-actions-lines.log
    "[2026-08-01T22:58:03Z] _ ERROR at setup of test_reliability_fault_process_kill_tree_no_load_fast_fail_and_cleanup"
    "[omni_server_function0-sigterm] _"
)
SERVER_START_TIMEOUT = "E               Exception: Server start wait timeout."  # holdout-r1/server-not-ready/simple-http-server-…
REFUSED = (  # dev/network/connection-aborted-refused-pytest-mock-server-1.log
    " requests.exceptions.ConnectionError: ('Connection aborted.', ConnectionRefusedError(61, 'Connection refused'))"
)
TEARDOWN_HEADER = "_____________________ ERROR at teardown of test_completion _____________________"
NO_DRIVER = (  # the torch wording of pytorch-cuda/no-gpus' former examples
    "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a "
    "driver from http://www.nvidia.com/Download/index.aspx"
)
COMBINED = [
    pytest.param([SETUP_HEADER], "pytest.setup-error", 1, id="a-setup-header-alone-is-test-setup"),
    pytest.param(
        [SETUP_HEADER, SERVER_START_TIMEOUT],
        "harness.server-not-ready",
        2,
        id="the-fixture-says-the-server-never-came-up",
    ),
    pytest.param(
        [SETUP_HEADER, REFUSED],
        "network.connection-refused",
        2,
        id="the-fixture-says-the-connection-was-refused",
    ),
    pytest.param([TEARDOWN_HEADER], None, None, id="a-teardown-error-is-not-setup"),
    pytest.param([NO_DRIVER], "cuda.driver-mismatch", 1, id="no-driver-is-cuda-setup-not-no-gpu"),
]


@pytest.mark.parametrize(("name", "rule_id", "line"), REAL_LOGS, ids=[name for name, _, _ in REAL_LOGS])
def test_the_rule_and_its_line_win_in_real_logs(
    name: str, rule_id: str, line: int, rule_pack: RuleSet
) -> None:
    assert root_cause_of(TRAIN / name, rule_pack) == (rule_id, line)


@pytest.mark.parametrize(("lines", "rule_id", "line"), COMBINED)
def test_the_lowest_rule_answers_only_alone(
    lines: list[str], rule_id: str | None, line: int | None, rule_pack: RuleSet, tmp_path: Path
) -> None:
    assert root_cause_of(write_log(tmp_path, lines), rule_pack) == (rule_id, line)
