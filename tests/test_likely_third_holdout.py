"""The likely cause on the third retired holdout's misses (seventh round), each a real log under tests/corpus/train,
with the near misses that keep each change from reaching further than its principle."""

from __future__ import annotations

import pytest

from forensics.engine.likely import FALLBACK_RANK
from forensics.model import LikelyReason
from tests.support.likely import picked_from, picked_in


@pytest.mark.parametrize(
    ("file", "line", "reason"),
    [
        # gin's Recovery middleware: `panic recovered:` then the panic's value on the next line
        ("holdout-r3/unexplained/c-ollama-gin-recovery-nil-pointer.log", 5, LikelyReason.PANIC),
        # Go's os/exec `signal: terminated`, in a logfmt line at level=ERROR
        (
            "holdout-r3/killed-by-signal/c-ollama-codespaces-runner-signal-terminated.log",
            12,
            LikelyReason.SIGNAL,
        ),
        # a gRPC status error logged at INF by zerolog's console writer
        ("holdout-r3/unexplained/c-localai-stablediffusion-ggml-grpc-eof.log", 1, LikelyReason.ERROR_LINE),
        # logging's `… - name - WARNING - …` format: a warning that words a failure (`is not running`)
        (
            "holdout-r3/unexplained/c-gpustack-windows-rpc-server-not-running-restart-loop.log",
            6,
            LikelyReason.FAILURE_LINE,
        ),
        # NCCL's WARN line that words the network failure (`No route to host`), the traceback below it cut (an error
        # line since the tenth round: NCCL reports the failures it returns at WARN)
        (
            "holdout-r3/nccl-error/c-sglang-multinode-nccl-socket-no-route-to-host.log",
            1,
            LikelyReason.ERROR_LINE,
        ),
        # docker's `Error response from daemon: …` is an error line; the runner's `Warning: … failed` after it is not
        (
            "holdout-r3/container-image/d-cape-selfhosted-ghcr-manifest-unknown.log",
            8,
            LikelyReason.ERROR_LINE,
        ),
        # an MSVC diagnostic (`file.c(123): error C2059: …`); the cut `Failed to compile. cc_cmd: [...,` is code
        ("holdout-r3/compile-failed/d-triton-windows-launcher-msvc-c2059.log", 3, LikelyReason.ERROR_LINE),
        # pytest's short summary: the first `FAILED … - assert False`, whatever its message, not a later IndexError
        (
            "holdout-r3/unexplained/c-adk-python-litellm-unittests-assert-counts.log",
            4,
            LikelyReason.EXCEPTION_LINE,
        ),
        # Ginkgo's `[FAIL] … [It] transcribes audio`, not the totals (`FAIL! -- 17 Passed | 2 Failed`)
        (
            "holdout-r3/unexplained/c-localai-ginkgo-api-transcribes-audio-rwkv-fail.log",
            4,
            LikelyReason.ERROR_LINE,
        ),
        # ducktape's report: `KeyError('samples')` sums up the traceback printed below it, which ends in that error
        ("holdout-r3/unexplained/d-redpanda-ducktape-cpu-profile-keyerror.log", 20, LikelyReason.EXCEPTION),
        # numpy's bare `AssertionError: ` is the exception line; its message is the excerpt below it
        ("holdout-r3/unexplained/d-bifrost-romein-selfhosted-allclose.log", 5, LikelyReason.EXCEPTION),
        ("holdout-r3/unexplained/d-light-curve-flaky-feature-rtol.log", 12, LikelyReason.EXCEPTION_LINE),
        # the recap `FAILED …::test_tensorflow - AssertionError:` yields to the same line shown in full (`E   …`)
        (
            "holdout-r3/unexplained/d-datasets-ci-tensorflow-temp-seed-not-equal.log",
            28,
            LikelyReason.EXCEPTION_LINE,
        ),
        # nothing reports a failure: the last line printed, where the silent process stopped
        (
            "holdout-r3/unexplained/c-llama-server-windows-silent-exit-after-system-info.log",
            6,
            LikelyReason.LAST_LINE,
        ),
        ("holdout-r2/unexplained/b-rugpts-deepspeed-loss-scale-zero.log", 1, LikelyReason.LAST_LINE),
    ],
)
def test_the_third_retired_holdouts_likely_causes(file: str, line: int, reason: LikelyReason) -> None:
    assert picked_in(file) == (line, reason)


def test_near_misses_of_the_seventh_round() -> None:
    # a panic header with nothing below it stays the answer; gin's debug request dump is not the panic's value
    assert picked_from(["[Recovery] 2023/11/08 - 22:20:36 panic recovered:", ""]) == (1, LikelyReason.PANIC)
    dump = ["[Recovery] 2023/11/08 - 22:20:36 panic recovered:", "GET /api HTTP/1.1", "runtime error: boom"]
    assert picked_from(dump) == (3, LikelyReason.PANIC)
    # `signal: killed` is Go's wording of a fatal signal; a field named signal is not
    assert picked_from(["exec: signal: killed"]) == (1, LikelyReason.SIGNAL)
    assert picked_from(["signal: 0 handlers installed"]) == (1, LikelyReason.LAST_LINE)
    # logfmt's level: ERROR is an error line, INFO is not (its `error=` field notwithstanding)
    assert picked_from(['time=2024-08-26T09:53:44Z level=ERROR msg="load failed"']) == (
        1,
        LikelyReason.ERROR_LINE,
    )
    info = ['time=2024-08-26T09:53:44Z level=INFO msg="retrying" error="connection reset"', "done"]
    assert picked_from(info) == (1, LikelyReason.QUIET_FAILURE)
    # a word that only starts with Error is no error line; `error: ` and `error[E0425]: ` are
    assert picked_from(["Errors: 0, Warnings: 2", "ok"]) == (2, LikelyReason.LAST_LINE)
    assert picked_from(["error[E0425]: cannot find value `x` in this scope"]) == (1, LikelyReason.ERROR_LINE)
    # a compiler's warning is not its error
    assert picked_from(["foo.c:12:5: warning: unused variable 'x'", "done"]) == (2, LikelyReason.LAST_LINE)
    # an exception named outside a traceback stays the answer when the traceback below ends in another one
    summary = [
        "    KeyError('samples')",
        "Traceback (most recent call last):",
        '  File "x.py", line 1',
        "ValueError: x",
    ]
    assert picked_from(summary) == (1, LikelyReason.EXCEPTION_LINE)
    # … and when no traceback opens right below it (within SUMMARY_WINDOW lines: six since the tenth round, which
    # let a summary's message run over a few lines, as ONNX Runtime's does)
    late = [
        "    KeyError('samples')",
        *"abcdefg",
        "Traceback (most recent call last):",
        "KeyError: 'samples'",
    ]
    assert picked_from(late) == (1, LikelyReason.EXCEPTION_LINE)
    # the CI runner's epilogue yields to any failure in the step; an exit status that is a signal does not
    epilogue = ["##[error]Process completed with exit code 1.", "connection refused by registry"]
    assert picked_from(epilogue) == (2, LikelyReason.FAILURE_LINE)
    assert picked_from(["##[error]Process completed with exit code 1."]) == (1, LikelyReason.WRAPPER)
    assert picked_from(["##[error]Process completed with exit code 137."]) == (1, LikelyReason.SIGNAL)
    # a failure logged at INFO yields to a line that reports one at a higher level, and to a wrapper
    assert picked_from(["7:25AM INF backend failed to load", "ERROR: disk full"]) == (
        2,
        LikelyReason.ERROR_LINE,
    )
    # a blank, escape-only, Markdown fence or rule line is not the last line printed
    assert picked_from(["started", "\x1b[0m", "```", "-----", ""]) == (1, LikelyReason.LAST_LINE)


def test_a_logs_stronger_answer_beats_another_logs_weaker_one() -> None:
    # across a test's logs (report/session.py): any answer beats a wrapper, a wrapper beats a quiet failure or a
    # log's last line
    assert FALLBACK_RANK[LikelyReason.WRAPPER] < FALLBACK_RANK[LikelyReason.QUIET_FAILURE]
    assert FALLBACK_RANK[LikelyReason.QUIET_FAILURE] < FALLBACK_RANK[LikelyReason.LAST_LINE]
    assert LikelyReason.ERROR_LINE not in FALLBACK_RANK and LikelyReason.FAILURE_LINE not in FALLBACK_RANK
