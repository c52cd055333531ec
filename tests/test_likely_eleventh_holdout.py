"""The eleventh holdout's likely-cause misses (fifteenth round), on the real logs retired into
tests/corpus/train/holdout-r11/, and the near misses that keep each principle from reaching too far
(docs/likely-cause.md, docs/accuracy.md's fifteenth round, 'Which line')."""

from __future__ import annotations

import pytest

from forensics.engine.normalize import Level, NormalizedLine, normalize_line
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
        (
            "holdout-r11/segfault/x-wavepy-scipy-griddata-openblas-segfault-journal.log",
            3,
            LikelyReason.SIGNAL,
        ),
        # Ray's tag for a worker on another node (`(RayWorkerWrapper pid=11613, ip=11.46.89.2) ERROR …`) is a process
        # tag like vLLM's: its ERROR traceback ends in the standard library's lower-case `socket.timeout: timed out`
        (
            "holdout-r11/hub-download/v-vllm-multinode-ray-worker-load-model-socket-timeout.log",
            9,
            LikelyReason.EXCEPTION,
        ),
        # pip's `ERROR: Exception:` names the base class alone above the traceback of its internal error: the
        # traceback's `OSError: [Errno 28] No space left on devi…` is what it sums up
        ("holdout-r11/disk-full/w-a1111-win-torch-download-errno28.log", 28, LikelyReason.EXCEPTION),
        # vLLM's `No platform detected, vLLM is running on UnspecifiedPlatform` (at INFO) says no accelerator was found,
        # not the last line printed after it
        ("holdout-r11/no-gpu/v-vllm-docker-unspecified-platform.log", 2, LikelyReason.QUIET_FAILURE),
        # NVSHMEM's error macro `file.cpp:1345: non-zero status: 121 Error in …` words a failure: the first of its run
        ("holdout-r11/nccl-error/x-deepep-nvshmem-ibgda-init2rtr-roce.log", 3, LikelyReason.FAILURE_LINE),
        # logcat's level column (Android Studio's `… 32362-10922 onnxruntime  com.example.local_llm  E   …`): the first E
        # line, ONNX Runtime's `Exception during initialization: …`, not the app's `Model load failed` below it
        (
            "holdout-r11/unexplained/x-android-ort-genai-fusion-getindexfromname.log",
            2,
            LikelyReason.ERROR_LINE,
        ),
        # compose's plain status row `Container translation-tgi-service  Error` starts no sentence that the next line
        # goes on with: compose's own `dependency failed to start: … exited (1)` is the failure
        ("holdout-r11/unexplained/v-opea-translation-tgi-service-exited.log", 4, LikelyReason.FAILURE_LINE),
        # a quoted block's indented `>   java.lang.AssertionError: …` is the exception, not pytest's source marker; it
        # beats Gradle's `… testFixBadQuals FAILED` verdict above it
        (
            "holdout-r11/unexplained/w-gatk-travis-misencoded-quals-arrays-differ.log",
            4,
            LikelyReason.EXCEPTION_LINE,
        ),
    ],
)
def test_the_eleventh_holdouts_likely_causes(file: str, line: int, reason: LikelyReason) -> None:
    assert picked_in(file) == (line, reason)


def test_a_signal_handlers_banner_and_the_kernels_segfault_report_are_fatal_signals() -> None:
    assert picked_from(
        ["TfrtCpuClient destroyed.", "*** Received signal 11 ***", "/lib/libc.so.6(+0x13140)"]
    ) == (
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
    # the scanner's normaliser strips it as it strips vLLM's `(VllmWorker rank=0 pid=7) `, so the header behind it counts
    shown = normalize_line(
        tag + "ERROR 12-07 20:30:45 [worker_base.py:480] Error executing method load_model."
    )
    assert shown == NormalizedLine("Error executing method load_model.", Level.ERROR)
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


def test_the_base_class_alone_sums_up_the_traceback_below_it() -> None:
    traceback = [
        "Traceback (most recent call last):",
        '  File "x.py", line 1, in f',
        "    yield",
        "OSError: [Errno 28] No space left on device",
    ]
    assert picked_from(["ERROR: Exception:", *traceback]) == (5, LikelyReason.EXCEPTION)
    # a class of its own named alone sums up only a traceback that ends in it; without a traceback it is the answer
    assert picked_from(["KeyError:", *traceback]) == (1, LikelyReason.EXCEPTION_LINE)
    assert picked_from(["ERROR: Exception:", "done"]) == (1, LikelyReason.EXCEPTION_LINE)


def test_no_platform_and_nvshmems_non_zero_status_word_a_failure() -> None:
    version = "INFO 05-14 04:44:37 [api_server.py:1034] vLLM API server version 0.8.4"
    assert picked_from(
        [
            "INFO 05-14 04:44:35 [__init__.py:243] No platform detected, vLLM is running on UnspecifiedPlatform",
            version,
        ]
    ) == (1, LikelyReason.QUIET_FAILURE)
    assert picked_from(
        ["INFO 05-14 04:44:35 [__init__.py:243] Automatically detected platform cuda.", version]
    ) == (
        2,
        LikelyReason.LAST_LINE,
    )
    assert picked_from(
        [
            "/x/ibgda.cpp:1345: non-zero status: 121 Error in mlx5dv_devx_obj_modify for INIT2RTR_QP",
            "",
            "/x/ibgda.cpp:3005: non-zero status: 7 ibgda_rc_init2rtr failed on RC #0.",
        ]
    ) == (1, LikelyReason.FAILURE_LINE)
    # a status of 0 is no failure
    assert picked_from(["worker finished, non-zero status: 0 warnings", "done"]) == (
        2,
        LikelyReason.LAST_LINE,
    )


def test_logcat_shows_a_level_and_compose_status_rows_start_no_sentence() -> None:
    studio = "2025-12-09 13:58:40.093 32362-10922 {tag:<22} com.example.app  {level}  {message}"
    assert picked_from(
        [
            studio.format(tag="onnxruntime", level="E", message="Exception during initialization: bad graph"),
            studio.format(tag="LLM", level="E", message="Model load failed"),
        ]
    ) == (1, LikelyReason.ERROR_LINE)
    # at W it is a warning: the failure line after it is the answer
    assert picked_from(
        [
            studio.format(tag="onnxruntime", level="W", message="Exception during initialization: bad graph"),
            studio.format(tag="LLM", level="I", message="Model load failed"),
        ]
    ) == (2, LikelyReason.QUIET_FAILURE)
    assert picked_from(["12-09 13:58:40.093 32362 10922 E onnxruntime: Exception during initialization"]) == (
        1,
        LikelyReason.ERROR_LINE,
    )
    assert picked_from(
        ["Container a  Started", "Container a  Error", "dependency failed to start: container a exited (1)"]
    ) == (3, LikelyReason.FAILURE_LINE)
    # a console-wrapped sentence is still answered at its first line
    assert picked_from(
        [
            "Primary job  terminated normally, but 1 process returned",
            "a non-zero exit code. Per user-direction, the job has been aborted.",
        ]
    ) == (1, LikelyReason.FAILURE_LINE)


def test_an_exception_in_a_quoted_block_is_no_pytest_source_line() -> None:
    assert picked_from(
        [
            "> Gradle test a.B.testX FAILED",
            "> ```",
            ">   java.lang.AssertionError: arrays differ",
            ">         at org.testng.Assert.fail(Assert.java:94)",
        ]
    ) == (3, LikelyReason.EXCEPTION_LINE)
    # pytest's marker before a raise stays quoted source: its `E` line is the answer
    assert picked_from(['>       raise ValueError("boom")', "E       ValueError: boom"]) == (
        2,
        LikelyReason.EXCEPTION_LINE,
    )
