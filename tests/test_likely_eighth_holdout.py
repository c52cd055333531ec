"""The likely cause on the eighth retired holdout's misses (twelfth round) and on the older train logs the same
principles reach, each a real log under tests/corpus/train, with renderings of the same formats modelled on public
threads and the near misses that keep each principle from reaching further (docs/likely-cause.md, docs/accuracy.md's
twelfth round)."""

from __future__ import annotations

import pytest

from forensics.model import LikelyReason
from tests.support.likely import picked_from, picked_in


@pytest.mark.parametrize(
    ("file", "line", "reason"),
    [
        # glibc's abort message (`*** stack smashing detected ***: /usr/bin/python2.7 terminated`) is the fatal event
        # the process dies of, not CTest's `***Exception: Other` verdict printed first nor glog's `*** Aborted at`
        (
            "holdout-r8/killed-by-signal/o-paddle-teamcity-stack-smashing-sigabrt.log",
            14,
            LikelyReason.SIGNAL,
        ),
        # Kubernetes' eviction (`Warning  Evicted … The node was low on resource: memory.`) names a failure without
        # the failure words: it beats the last line printed
        (
            "holdout-r6/host-oom/j-kubeflow-gke-keras-node-low-memory-evicted.log",
            1,
            LikelyReason.QUIET_FAILURE,
        ),
        # a bare `AssertionError` says less than the line before it that words the failure (TensorRT's `Error Code 1:
        # Serialization (… Version tag does not match …)`): two rounds' logs of one engine
        ("tensorrt-llm/engine-load-serialization-version-chatrtx-14.log", 1, LikelyReason.FAILURE_LINE),
        ("dev-engines/engine/trt-version-tag-chatrtx-14.log", 1, LikelyReason.FAILURE_LINE),
    ],
)
def test_the_eighth_holdouts_principles_on_real_logs(file: str, line: int, reason: LikelyReason) -> None:
    assert picked_in(file) == (line, reason)


def test_glibcs_abort_messages_are_fatal_events() -> None:
    # renderings of glibc's messages as public threads quote them (Buzztrax#149, superSTR#21, pylibmc#152,
    # psycopg2#91, marker#824): each is the line the process aborts on, before `Aborted (core dumped)`
    assert picked_from(
        [
            "start process alignment file",
            "*** stack smashing detected ***: terminated",
            "Aborted (core dumped)",
        ]
    ) == (2, LikelyReason.SIGNAL)
    assert picked_from(
        [
            "*** stack smashing detected ***: <unknown> terminated",
            "srun: error: node157: task 0: Aborted (core dumped)",
        ]
    ) == (1, LikelyReason.SIGNAL)
    assert picked_from(
        [
            "*** Error in `/usr/bin/python2.6': double free or corruption (!prev): 0x00000000052af6c0 ***",
            "======= Backtrace: =========",
        ]
    ) == (1, LikelyReason.SIGNAL)
    assert picked_from(
        ["loading", "malloc(): unsorted double linked list corrupted", "Aborted (core dumped)"]
    ) == (
        2,
        LikelyReason.SIGNAL,
    )
    assert picked_from(["    double free or corruption (out)", "Aborted (core dumped)"]) == (
        1,
        LikelyReason.SIGNAL,
    )
    # near miss: the words in a sentence are no abort message
    assert picked_from(["I think this is a double free or corruption in our code", "ERROR: test failed"]) == (
        2,
        LikelyReason.ERROR_LINE,
    )


def test_missing_devices_and_evictions_word_a_failure() -> None:
    # Kubernetes' pod status and `kubectl get pods` columns (kubernetes#94073, operate-first/apps#1352)
    assert picked_from(["Status:         Failed", "Reason:         Evicted", "IP:"]) == (
        1,
        LikelyReason.FAILURE_LINE,
    )
    assert picked_from(
        ["x-qtr59   ns   Evicted   node-3   Pod The node had condition: [DiskPressure].", "done"]
    ) == (
        1,
        LikelyReason.QUIET_FAILURE,
    )
    # no device where one was expected, before the bare exception it leads to
    no_xpu = [
        "Found 0 XPU devices",
        "Traceback (most recent call last):",
        '  File "t.py", line 3',
        "AssertionError",
    ]
    assert picked_from(no_xpu) == (1, LikelyReason.FAILURE_LINE)
    assert picked_from(["No CUDA devices found", "done"]) == (1, LikelyReason.FAILURE_LINE)
    # near misses: a count that is not zero, an exception with a message, a bare one with its message below (`X:`)
    assert picked_from(["Found 8 GPUs", "done"]) == (2, LikelyReason.LAST_LINE)
    with_message = [*no_xpu[:3], "AssertionError: expected an XPU"]
    assert picked_from(with_message) == (4, LikelyReason.EXCEPTION)
    assert picked_from(
        ["Tests run: 1, Failures: 1 <<< FAILURE!", "java.lang.AssertionError:", "Expected: 1"]
    ) == (
        2,
        LikelyReason.EXCEPTION_LINE,
    )
