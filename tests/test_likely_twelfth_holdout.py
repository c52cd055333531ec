"""The twelfth holdout's likely-cause misses (sixteenth round), on the real logs retired into
tests/corpus/train/holdout-r12/, and the near misses that keep each principle from reaching too far
(docs/likely-cause.md, docs/accuracy.md's sixteenth round, 'The picker on the twelfth set')."""

from __future__ import annotations

import pytest

from forensics.model import LikelyReason
from tests.support.likely import picked_from, picked_in


@pytest.mark.parametrize(
    ("file", "line", "reason"),
    [
        # Surefire's summary at ERROR, as GitHub Actions shows Maven's level (`Error:  Errors: `): a rerun test's name,
        # then its first failed run (`Run 1: OllamaChatModelFunctionCallingIT.streamFunctionCallTest:109`)
        (
            "holdout-r12/unexplained/y-springai-ollama-function-call-it-failure.log",
            3,
            LikelyReason.ERROR_LINE,
        ),
        # an Ascend C kernel's assertion (`[ASSERT] …/gather_v3_base.h:137: Assertion `(0 <= val …)' Index … out of
        # range`) is an error line, as CUDA's device-side assertion is; the scheduler's traceback below it is cut
        (
            "holdout-r12/cuda-device-assert/y-ascend-sglang-glm5-gather-v3-index-assert.log",
            1,
            LikelyReason.ERROR_LINE,
        ),
        # ollama's `msg="no compatible GPUs were discovered"` (at INFO) says no GPU was found, not the last line
        ("holdout-r12/no-gpu/y-ollama-openvino-docker-no-compatible-gpus.log", 3, LikelyReason.QUIET_FAILURE),
        # unittest's `FAIL: testOutput4DInput123 (__main__.MomentsTest)` behind a console's time of day, its traceback
        # cut before the exception line: the runner's report, not the last frame printed
        ("holdout-r12/unexplained/z-tensorflow-nn-test-moments-windows.log", 5, LikelyReason.ERROR_LINE),
        # pyxis's `child 129103 failed with error code: 1` is the child's exit status: its own error below it,
        # `failed to import docker image`, says what failed
        ("holdout-r12/container-image/z-pyxis-enroot-nvcr-pytorch-import.log", 8, LikelyReason.ERROR_LINE),
        # pytest-xdist's `worker 'gw0' crashed while running '…'` reports the worker's death, as its `node down:` does;
        # the short summary's recap of it comes later
        ("holdout-r12/unexplained/aa-torch-xpu-ops-gw0-crashed.log", 3, LikelyReason.SIGNAL),
        # JUnit 4's `org.junit.ComparisonFailure: expected:<…> but was:<…>` is the exception Surefire's report prints
        # under the test's `<<< FAILURE!` line, not the class's totals above it
        (
            "holdout-r12/unexplained/aa-jsoup-connecttest-postfiles-comparison.log",
            6,
            LikelyReason.EXCEPTION_LINE,
        ),
        # Surefire's old summary `Failed tests:   pica(…): expected:<…>` is the runner's report; Maven's `[ERROR]
        # Failed to execute goal …: There are test failures.` after it is the build's epilogue
        ("holdout-r12/unexplained/aa-qa-catalogue-mvn-failed-tests.log", 3, LikelyReason.ERROR_LINE),
        # CTest's `Errors while running CTest` words the failure; its advice `Use "--rerun-failed …" to re-run the
        # failed cases verbosely.` below comes later
        ("holdout-r12/unexplained/aa-ros2-benchmark-colcon-test-empty-log.log", 5, LikelyReason.FAILURE_LINE),
        # colcon test-result's `<<< error message` block holds the JUnit XML's message (`collection failure`), which
        # says more than colcon's `Failed <<< pkg [0.64s, exited with code 2]`
        ("holdout-r12/test-setup/aa-depth-anything-ros2-collection-failure.log", 12, LikelyReason.ERROR_LINE),
    ],
)
def test_the_twelfth_holdouts_likely_causes(file: str, line: int, reason: LikelyReason) -> None:
    assert picked_in(file) == (line, reason)


def test_an_ascend_c_assertion_is_an_error_line_that_the_hosts_exception_beats() -> None:
    assertion = (
        "[ASSERT] /opp/ascendc/gather_v3/gather_v3_base.h:137: Assertion `(0 <= val)' Index 9 out of range!"
    )
    assert picked_from([assertion, "[rank0] scheduler stopped"]) == (1, LikelyReason.ERROR_LINE)
    # asc-devkit's own layout: the function after the line, the expression in apostrophes
    assert picked_from(["[ASSERT] /k/add_custom.cpp:42:Compute Assertion 'x > 0' ", "done"]) == (
        1,
        LikelyReason.ERROR_LINE,
    )
    # the traceback below that restates it in the host's terms is the fatal event, as for CUDA's device-side assert
    traceback = [
        "Traceback (most recent call last):",
        '  File "x.py", line 1, in f',
        "    torch.npu.synchronize()",
        "RuntimeError: ACL stream synchronize failed, error code:507035",
    ]
    assert picked_from([assertion, *traceback]) == (5, LikelyReason.EXCEPTION)
    # the word in prose, with no file and line before it, is no assertion
    assert picked_from(["Assertion 'x > 0' is checked at startup", "done"]) == (2, LikelyReason.LAST_LINE)


def test_unittests_report_names_a_failure_whose_traceback_was_cut() -> None:
    header = [
        "=" * 70,
        "FAIL: test_moments (__main__.MomentsTest)",
        "-" * 70,
        "Traceback (most recent call last):",
    ]
    frames = ['  File "nn_test.py", line 878, in test_moments', "    self.assertAllClose(a, b)"]
    assert picked_from([*header, *frames]) == (2, LikelyReason.ERROR_LINE)
    # Python 3.11's layout and a console's time of day in front of it
    assert picked_from(["10:00:01 ERROR: test_x (pkg.mod.Case.test_x)", "10:00:01 ----"]) == (
        1,
        LikelyReason.ERROR_LINE,
    )
    # with its exception line the traceback says what failed
    assert picked_from([*header, *frames, "AssertionError: 0.5 != 0.7"]) == (7, LikelyReason.EXCEPTION)
    # a bare `AssertionError:` (numpy's, its message below) of the traceback the header heads is still the answer
    bare = [*header, *frames, "AssertionError:", "Not equal to tolerance rtol=1e-05, atol=0"]
    assert picked_from(bare) == (7, LikelyReason.EXCEPTION)
    # `FAIL:` in prose is no runner's report
    assert picked_from(["FAIL: see the log above for details", "ok"]) == (2, LikelyReason.LAST_LINE)


def test_a_childs_exit_status_yields_to_the_error_below_it() -> None:
    assert picked_from(
        [
            "slurmstepd: error: pyxis: child 42 failed with error code: 1",
            "slurmstepd: error: pyxis: failed to import docker image",
        ]
    ) == (2, LikelyReason.ERROR_LINE)
    # alone it is what the log has
    assert picked_from(["slurmstepd: error: pyxis: child 42 failed with error code: 1", "srun: done"]) == (
        1,
        LikelyReason.WRAPPER,
    )
    # a child killed by a signal is a fatal signal, not an exit status
    assert picked_from(["child process exited with code 137", "error: retrying"]) == (1, LikelyReason.SIGNAL)


def test_an_xdist_workers_crash_is_its_death() -> None:
    crash = "worker 'gw3' crashed while running 'tests/test_x.py::test_y'"
    assert picked_from(
        [
            "[gw3] ERROR: cache server unreachable, running without it",
            "[gw3] linux -- Python 3.10.19 /usr/bin/python",
            crash,
            f"FAILED tests/test_x.py::test_y - {crash}",
        ]
    ) == (3, LikelyReason.SIGNAL)
    # older xdist capitalised it (`Worker 'gw0' crashed while running …`)
    assert picked_from(["Worker 'gw0' crashed while running 't.py::test_a'", "1 failed"]) == (
        1,
        LikelyReason.SIGNAL,
    )
    # xdist's `node down:` line, printed first, is the same death
    assert picked_from(["[gw3] node down: Not properly terminated", crash]) == (1, LikelyReason.SIGNAL)
    # a crash worded without xdist's worker id is only a failure line
    assert picked_from(["the worker crashed while running the job", "done"]) == (1, LikelyReason.FAILURE_LINE)


def test_a_packaged_java_failure_class_is_an_exception() -> None:
    assert picked_from(
        [
            "Tests run: 23, Failures: 1, Errors: 0, Skipped: 5, Time elapsed: 2.014 sec <<< FAILURE!",
            "postFiles(org.jsoup.integration.ConnectTest)  Time elapsed: 0.034 sec  <<< FAILURE!",
            "org.junit.ComparisonFailure: expected:<439[63]> but was:<439[72]>",
            "\tat org.junit.Assert.assertEquals(Assert.java:115)",
        ]
    ) == (3, LikelyReason.EXCEPTION_LINE)
    # a report's field named Failure, without a package, is no exception class: only a line that words a failure
    assert picked_from(["Build summary", "Failure: 0 of 12 jobs", "done"]) == (2, LikelyReason.FAILURE_LINE)


def test_surefires_old_summary_and_colcons_message_block_are_runner_reports() -> None:
    epilogue = (
        "[ERROR] Failed to execute goal org.apache.maven.plugins:maven-surefire-plugin:2.12.4:test (default-test) "
        "on project x: There are test failures."
    )
    assert picked_from(
        ["Results :", "", "Tests in error: ", "  testX(pkg.FooTest): Connection refused", "", epilogue]
    ) == (4, LikelyReason.ERROR_LINE)
    assert picked_from(["Failed tests:   testY(pkg.BarTest): expected:<1> but was:<2>", "", epilogue]) == (
        1,
        LikelyReason.ERROR_LINE,
    )
    # a header with no entry below it leaves the header
    assert picked_from(["Tests in error: ", "", "Tests run: 3, Failures: 0, Errors: 1"]) == (
        1,
        LikelyReason.ERROR_LINE,
    )
    block = ["- pkg.test_x", "  <<< failure message", "    assert 1 == 2", "  >>>"]
    assert picked_from(["Failed   <<< pkg [0.64s, exited with code 2]", "", *block]) == (
        5,
        LikelyReason.ERROR_LINE,
    )
    # an empty message leaves the marker
    assert picked_from(["- pkg.test_x", "  <<< error message", "  >>>"]) == (2, LikelyReason.ERROR_LINE)


def test_ctests_own_error_and_a_discovery_that_found_nothing_word_a_failure() -> None:
    assert picked_from(
        [
            "Errors while running CTest",
            'Use "--rerun-failed --output-on-failure" to re-run the failed cases verbosely.',
        ]
    ) == (1, LikelyReason.FAILURE_LINE)
    assert picked_from(
        ['time=… level=INFO source=gpu.go:377 msg="no compatible GPUs were discovered"', "serving on cpu"]
    ) == (1, LikelyReason.QUIET_FAILURE)
    # a discovery that found something is no failure
    assert picked_from(
        ['time=… level=INFO source=gpu.go:377 msg="2 compatible GPUs were discovered"', "ok"]
    ) == (
        2,
        LikelyReason.LAST_LINE,
    )


def test_surefires_summary_at_error_points_at_its_first_failed_entry() -> None:
    for level in ("[ERROR]", "Error: "):
        assert picked_from(
            [
                f"{level} Failures: ",
                f"{level}   ConnectTest.postFiles:299 expected:<439[63]> but was:<439[72]>",
                f"{level}   ConnectTest.getFiles:120 expected:<1> but was:<2>",
            ]
        ) == (2, LikelyReason.ERROR_LINE)
        # a rerun test: its name, then its runs; a run that passed is no failure
        rerun = [f"{level} Errors: ", f"{level} org.x.FooIT.streamTest", f"{level}   Run 1: PASS"]
        assert picked_from(rerun) == (2, LikelyReason.ERROR_LINE)
        assert picked_from([*rerun[:2], f"{level}   Run 1: FooIT.streamTest:109 » Timeout"]) == (
            3,
            LikelyReason.ERROR_LINE,
        )
    # GitHub's rendering of Maven's level is a header: `Error:  Errors:` is no exception named Error
    assert picked_from(["Error:  Errors: ", "Error:  org.x.FooIT.streamTest"]) == (2, LikelyReason.ERROR_LINE)
    # torchrun's ChildFailedError report has a `Failures:` field with no level: no marker, its entries no failure
    torchrun = ["Failures:", "  <NO_OTHER_FAILURES>", "Root Cause (first observed failure):"]
    assert picked_from(torchrun) == (3, LikelyReason.FAILURE_LINE)
    # testify's `Error:` label, padded with spaces then a tab, is no level: an exception's name whose message goes on
    # below it, as before (holdout-r5's testcontainers log)
    testify = [
        "Error Trace:\tx_test.go:47",
        "Error:      \tReceived unexpected error:",
        "\t            \texec create: Error response from daemon: container 5ec3 is not running",
    ]
    assert picked_from(testify) == (3, LikelyReason.EXCEPTION_LINE)
    # an error's own `Error: message`, one space after the colon, stays an error line that starts with the word
    assert picked_from(["Error: Cannot find module 'x'", "done"]) == (1, LikelyReason.ERROR_LINE)
