"""The eleventh holdout's likely-cause misses (fifteenth round), on the real logs retired into
tests/corpus/train/holdout-r11/, and the near misses that keep each principle from reaching too far
(docs/likely-cause.md, docs/accuracy.md's fifteenth round, 'Which line')."""

from __future__ import annotations

import pytest

from forensics.model import LikelyReason
from tests.support.likely import picked_from, picked_in


@pytest.mark.parametrize(
    ("file", "line", "reason"),
    [
        # absl's failure signal handler (torch_xla, TensorFlow): `*** Received signal 11 ***` is the fatal signal, not
        # the last frame of the mangled stack trace it prints below
        ("holdout-r11/segfault/w-torch-xla-grad-checkpoint-signal11.log", 5, LikelyReason.SIGNAL),
        # the kernel's report of a process's segfault (`python[489815]:  segfault at ffff… in libc.so.6[…] error 5`):
        # the first one, not the last of nine
        ("holdout-r11/segfault/x-wavepy-scipy-griddata-openblas-segfault-journal.log", 3, LikelyReason.SIGNAL),
        # Ray's tag for a worker on another node (`(RayWorkerWrapper pid=11613, ip=11.46.89.2) ERROR …`) is a process
        # tag like vLLM's: its ERROR traceback ends in the standard library's lower-case `socket.timeout: timed out`
        (
            "holdout-r11/hub-download/v-vllm-multinode-ray-worker-load-model-socket-timeout.log",
            9,
            LikelyReason.EXCEPTION,
        ),
    ],
)
def test_the_eleventh_holdouts_likely_causes(file: str, line: int, reason: LikelyReason) -> None:
    assert picked_in(file) == (line, reason)


def test_a_signal_handlers_banner_and_the_kernels_segfault_report_are_fatal_signals() -> None:
    assert picked_from(["TfrtCpuClient destroyed.", "*** Received signal 11 ***", "/lib/libc.so.6(+0x13140)"]) == (
        2,
        LikelyReason.SIGNAL,
    )
    assert picked_from(
        [
            "[12345.678] python[42]: segfault at 0 ip 00007f sp 00007ffc error 4 in libc.so.6[7f+195000]",
            "[12345.679] python[43]: segfault at 0 ip 00007f sp 00007ffc error 4 in libc.so.6[7f+195000]",
        ]
    ) == (1, LikelyReason.SIGNAL)
    # the words in prose, without the kernel's address, are no report
    assert picked_from(["we saw a segfault at startup sometimes", "done"]) == (2, LikelyReason.LAST_LINE)


def test_rays_remote_worker_tag_is_a_process_tag_and_lower_case_exceptions_end_a_traceback() -> None:
    tag = "(RayWorkerWrapper pid=11613, ip=11.46.89.2) "
    header = tag + "ERROR 12-07 20:30:45 worker_base.py:480] "
    lines = [
        header + "Error executing method load_model. This might cause deadlock in distributed execution.",
        header + "Traceback (most recent call last):",
        header + '  File "/x/urllib3/util/connection.py", line 95, in create_connection',
        header + "    sock.connect(sa)",
        header + "socket.gaierror: [Errno -2] Name or service not known",
    ]
    assert picked_from(lines) == (5, LikelyReason.EXCEPTION)
    # a source line inside the traceback that reads like one is no exception: the traceback goes on to its own
    assert picked_from(
        [
            "Traceback (most recent call last):",
            '  File "/x/y.py", line 3, in f',
            "    self.timeout: int = 5",
            "ValueError: bad timeout",
        ]
    ) == (4, LikelyReason.EXCEPTION)
