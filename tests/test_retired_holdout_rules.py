"""The fifth round's rules (the retired first holdout's misses): which line and rule win on the tricky real logs.

Each log is a real one from tests/corpus/train (cited in SOURCES-holdout-r1.md, SOURCES-dev.md); the combined cases put
real lines of those logs together with the line that must outrank them. See docs/accuracy.md, "Fifth round".
"""

from __future__ import annotations

from pathlib import Path

import pytest

from forensics.rules.model import RuleSet
from tests.support.rulebook import root_cause_of, write_log

TRAIN = Path(__file__).resolve().parent / "corpus" / "train"

REAL_LOGS = [
    # a Rust panic whose message is a bind failure is the port clash, on the line that says so (musl's "Address in use")
    ("holdout-r1/port-in-use/redlib-hyper-bind-address-in-use.log", "network.address-in-use", 4),
    ("holdout-r1/port-in-use/spin-up-listen-address-in-use.log", "network.address-in-use", 3),
    # the server's own ERROR line comes before the unwrap panic that repeats it
    ("holdout-r1/port-in-use/live-server-error-then-unwrap-panic.log", "network.address-in-use", 2),
    # gRPC 0.12's bind line names the errno; "No address added" under it is the consequence
    ("holdout-r1/port-in-use/grpc-cpp-012-bind-addr-two-lines.log", "network.address-in-use", 1),
    ("holdout-r1/port-in-use/grpc-python-macos-errno48-json-error.log", "network.address-in-use", 1),
    # a panic whose message a specific rule knows is that rule's (the tokenizer file does not load)
    (
        "holdout-r1/rust-panic/tokenizers-cpp-json-untagged-enum-then-cannot-unwind.log",
        "model.tokenizer-error",
        3,
    ),
    # "No module named 'conftest'" is the test layout, not a missing package: the collection header answers
    (
        "holdout-r1/test-setup/rpm-build-pytest-cannot-import-conftest.log",
        "pytest.test-layout-import-failed",
        11,
    ),
    # the conftest failure names what broke the whole session, above the "ERROR collecting" header
    (
        "holdout-r1/test-setup/azure-pipelines-conftest-import-failure.log",
        "pytest.conftest-import-failed",
        15,
    ),
    # SGLang's "scheduler is dead" is a wrapper; its "Exit code: -9" is the SIGKILL
    (
        "holdout-r1/killed-by-signal/gpustack-sglang-flux-load-then-exit-9.log",
        "process.signal-exit-status",
        5,
    ),
    # the shell's "Killed" is explained by the kernel OOM killer's first line below it
    ("holdout-r1/host-oom/shell-killed-then-dmesg-oom.log", "machine.oom-killed", 4),
    # the line that names the signal says more than "exitcode: -9" for the same rank
    ("dev/killed/torch-launch-sigterm-then-exitcode-9-stoke-31.log", "process.killed-by-signal", 1),
    # a macOS crash report names the crash on its Exception Type line, before "Termination Signal"
    ("dev/segfault/macos-crash-report-exc-bad-access-chaos-3.log", "machine.segfault", 17),
    (
        "holdout-r1/serving-engine-internal/trtllm-weight-only-groupwise-gemm-tactic-terminate.log",
        "trtllm.no-valid-gemm-tactic",
        6,
    ),
]

# real lines of the logs above and of the train corpus
SERVER_START_TIMEOUT = (
    "E               Exception: Server start wait timeout."  # holdout-r1/server-not-ready/…
)
BIND_LINE = (  # holdout-r1/port-in-use/live-server-error-then-unwrap-panic.log
    "[2025-10-30T07:25:32Z ERROR live_server::http_layer::listener] Address 0.0.0.0:8181 is already in use"
)
EXIT_137 = "        exitCode: 137"  # holdout-r1/killed-by-signal/kserve-triton-crashloop-exitcode-137.log
OOM_KILLED = (
    "        reason: OOMKilled"  # the same container status when the kernel's cgroup OOM killer did it
)
COMBINED = [
    pytest.param([BIND_LINE, SERVER_START_TIMEOUT], "network.address-in-use", 1, id="the-server-says-why"),
    pytest.param(
        [SERVER_START_TIMEOUT], "harness.server-not-ready", 1, id="a-start-timeout-alone-is-server-not-ready"
    ),
    pytest.param([EXIT_137], "process.signal-exit-status", 1, id="exitcode-137-alone-is-a-kill"),
    pytest.param(
        [OOM_KILLED, EXIT_137], "machine.oom-killed", 1, id="exitcode-137-with-oomkilled-is-host-oom"
    ),
]


@pytest.mark.parametrize(("name", "rule_id", "line"), REAL_LOGS, ids=[name for name, _, _ in REAL_LOGS])
def test_the_specific_cause_and_its_line_win_in_real_logs(
    name: str, rule_id: str, line: int, rule_pack: RuleSet
) -> None:
    assert root_cause_of(TRAIN / name, rule_pack) == (rule_id, line)


@pytest.mark.parametrize(("lines", "rule_id", "line"), COMBINED)
def test_the_lower_rule_answers_only_alone(
    lines: list[str], rule_id: str, line: int, rule_pack: RuleSet, tmp_path: Path
) -> None:
    assert root_cause_of(write_log(tmp_path, lines), rule_pack) == (rule_id, line)
