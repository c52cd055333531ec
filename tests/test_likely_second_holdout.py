"""The likely cause on the second retired holdout's misses (sixth round), each a real log under tests/corpus/train,
with the near misses that keep each change from reaching further than its principle."""

from __future__ import annotations

from pathlib import Path

import pytest

from forensics.engine.likely_reader import pick_likely_cause_in_blocks
from forensics.model import LikelyReason
from forensics.report.build import analyze
from forensics.rules.model import RuleSet
from tests.support.likely import picked_from, picked_in

TRAIN = Path(__file__).resolve().parent / "corpus" / "train"


@pytest.mark.parametrize(
    ("file", "line", "reason"),
    [
        # a wrapper that says its cause is above it: the Ascend runtime's error line after it is aftermath
        ("holdout-r1/unexplained/gpustack-ascend-wrapper-err99999.log", 3, LikelyReason.WRAPPER),
        # a native segfault handler's banner is a fatal signal
        ("holdout-r2/segfault/xgrammar-accept-token-segfault-dp-rank.log", 1, LikelyReason.SIGNAL),
        # pytest's `_ ERROR at setup of test_x _` header, when the log holds nothing more
        (
            "holdout-r2/test-setup/vllm-omni-reliability-fixture-setup-error-actions-lines.log",
            4,
            LikelyReason.FAILURE_LINE,
        ),
        # a C assert / GGML_ASSERT that failed, not the abort after it (nor a later line)
        (
            "holdout-r2/unexplained/llama-server-sampler-dist-assertion-found-abort.log",
            6,
            LikelyReason.ASSERTION,
        ),
        (
            "holdout-r2/unexplained/ollama-journald-llama-server-ggml-assert-kv-q8.log",
            4,
            LikelyReason.ASSERTION,
        ),
        ("holdout-r2/unexplained/llama-server-mamba-ggml-assert-seq-id.log", 2, LikelyReason.ASSERTION),
        # an exception printed without a message (`AssertionError: `): the exception line, its message below it
        # (the seventh round: the convention names the exception; a rule, when one fires, names the message)
        (
            "holdout-r2/unexplained/triton-fil-backend-e2e-arrays-not-almost-equal.log",
            15,
            LikelyReason.EXCEPTION,
        ),
        (
            "holdout-r1/cuda-setup/pytorch10-driver-too-old-assertionerror-multiline.log",
            6,
            LikelyReason.EXCEPTION,
        ),
        # a line that ends quoting a command's stderr: the command's own error on the next line
        ("holdout-r2/cuda-setup/b-nvidia-docker-libnvidia-ml-load-failed.log", 3, LikelyReason.FAILURE_LINE),
        # IPython's numbered source lines (`    592   raise FileNotFoundError(…)`) are quoted code
        (
            "holdout-r2/network-unreachable/b-argilla-mlsum-gitlab-couldnt-reach.log",
            8,
            LikelyReason.EXCEPTION_LINE,
        ),
        # PyTorch < 1.0's `THCudaCheck FAIL … error=46 : …` when the traceback's exception line was cut
        (
            "holdout-r2/cuda-error/b-pytorch-thcudacheck-error-46-second-process.log",
            1,
            LikelyReason.ERROR_LINE,
        ),
        (
            "holdout-r2/cuda-setup/b-pytorch-master-build-pascal-no-kernel-image.log",
            2,
            LikelyReason.ERROR_LINE,
        ),
        # `Exited with status -1 (agent lost)`: the fast reader now reads `exited with status` lines too
        ("holdout-r2/runner-infrastructure/b-element-web-buildkite-agent-lost.log", 1, LikelyReason.SIGNAL),
        # pytest's crash locations alone (`tests/x.py:56: AssertionError`)
        (
            "holdout-r2/unexplained/b-bliss-gpu-tests-bare-assertion-locations.log",
            1,
            LikelyReason.EXCEPTION_LINE,
        ),
        # `08:12:40  ##[error]The operation was canceled.`: a bare time of day before the Actions marker
        (
            "holdout-r2/test-timeout/b-kornia-float16-job-six-hour-silent-cancel.log",
            2,
            LikelyReason.ERROR_LINE,
        ),
        # a process that exited with a non-zero code, when nothing else is in the log
        (
            "holdout-r2/unexplained/b-alignment-handbook-process-exited-code-1.log",
            1,
            LikelyReason.FAILURE_LINE,
        ),
    ],
)
def test_the_second_retired_holdouts_likely_causes(file: str, line: int, reason: LikelyReason) -> None:
    assert picked_in(file) == (line, reason)


_NOTHING_REPORTED = (1, LikelyReason.LAST_LINE)  # a one-line log with no failure in it: only its last line


def test_the_last_exception_or_the_first_error_is_not_always_the_answer() -> None:
    # THCudaCheck is printed before the traceback whose RuntimeError restates it: that exception (line 8) wins
    assert picked_in("dev-lower/no-gpu/cuda-runtime-error-38-thcudacheck-atvgnet-4.log") == (
        8,
        LikelyReason.EXCEPTION,
    )
    # pytest's crash location restates the `E   RuntimeError: … See root cause above.` wrapper above it (line 11)
    assert picked_in("holdout-r1/unexplained/vllm-ci-weight-loading-pytest-wrapper.log") == (
        11,
        LikelyReason.WRAPPER,
    )
    # `AssertionError: ` then numpy's heading `Items are not equal:` and its detail: the exception line (line 8)
    assert picked_in("holdout-r1/unexplained/mxnet-jenkins-flaky-random-gray-tolerance.log") == (
        8,
        LikelyReason.EXCEPTION_LINE,
    )
    # `kubectl describe`'s `Command:` field is no exception class; the pod's state `Reason: ImagePullBackOff` (line 9,
    # the label's) names the failure without the failure words: a quiet failure, not the last line (eleventh round)
    assert picked_in("holdout-r2/container-image/kuberay-vllm-head-describe-imagepullbackoff.log") == (
        9,
        LikelyReason.QUIET_FAILURE,
    )


def test_torchruns_wrapper_is_the_answer_when_the_ranks_errors_are_missing(rule_pack: RuleSet) -> None:
    # `Failures:` in torchrun's summary table is a field name, not an exception; the ChildFailedError wrapper
    # (a symptom rule names it) is all the log has
    report = analyze(
        [str(TRAIN / "holdout-r2/unexplained/b-minigpt4-torchrun-childfailed-wrapper-only.log")],
        rules=rule_pack,
    )
    likely = report.verdicts[0].likely_cause
    assert report.verdicts[0].root_cause is None and likely is not None
    assert (likely.evidence.line, likely.reason) == (1, LikelyReason.WRAPPER)


def test_near_misses_of_the_sixth_round() -> None:
    # an error line before a "see root cause above" wrapper still wins; one after it does not
    above = "RuntimeError: Engine core initialization failed. See root cause above."
    assert picked_from(["ERROR 03-13 06:55:20 [core.py:1] disk quota exceeded", above]) == (
        1,
        LikelyReason.ERROR_LINE,
    )
    assert picked_from([above, "[ERROR] 2025-08-14 ERR99999 UNKNOWN applicaiton exception"]) == (
        1,
        LikelyReason.WRAPPER,
    )
    # in pytest's report the process's captured output comes after the wrapper: its error line is still the answer
    report = [
        f"E       {above}",
        "------------------------------ Captured stderr call ------------------------------",
        "ERROR 03-13 06:55:20 [core.py:1] EngineCore failed to start: disk quota exceeded",
    ]
    assert picked_from(report) == (3, LikelyReason.ERROR_LINE)
    fast = pick_likely_cause_in_blocks(["\n".join(report).encode()])  # the fast reader sees the header too
    assert fast is not None and fast.line == 3
    # a wrapper that does not point above keeps yielding to a later error line
    assert picked_from(["ray.exceptions.RayTaskError(ValueError): boom", "ERROR: disk full"]) == (
        2,
        LikelyReason.ERROR_LINE,
    )
    # a stderr quote that already holds the failure is the answer; an unrelated next line changes nothing
    quoted = "hook failed: exit status 1, stderr: error: cannot load libcuda.so.1"
    assert picked_from([quoted, "retrying without GPUs failed"]) == (1, LikelyReason.FAILURE_LINE)
    # a lower-case `segfault` in a name is not the handler's banner
    assert picked_from(["PASSED tests/test_no_segfault.py::test_ok"]) == _NOTHING_REPORTED
    # a source `assert` quoted by pytest is not a failed native assertion; glibc's message is
    assert picked_from([">       assert found"]) == _NOTHING_REPORTED
    assert picked_from(["main: main.c:12: main: Assertion `n > 0' failed.", "Aborted (core dumped)"]) == (
        1,
        LikelyReason.ASSERTION,
    )
    # pytest's `ERROR at setup` header yields to the `E   …` error line under it
    header = "_____ ERROR at setup of test_x[a] _____"
    assert picked_from([header, "E       fixture 'server' not found"]) == (2, LikelyReason.ERROR_LINE)
    # a crash location restating nothing is an exception line; an ordinary `path:line: in f` frame is not
    assert picked_from(["tests/test_x.py:12: in test_x"]) == _NOTHING_REPORTED
    # an exception with no message and nothing after it stays the answer
    assert picked_from(["AssertionError: ", "", "===="]) == (1, LikelyReason.EXCEPTION_LINE)
    # IPython's numbered source is code; a count of results is not IPython source and reports no failure
    assert picked_from(['--> 594         raise ConnectionError("Couldn\'t reach x")']) == _NOTHING_REPORTED
    # a process that exited with code 0 reported no failure
    assert picked_from(["[process exited with code 0 (0x00000000)]"]) == _NOTHING_REPORTED
