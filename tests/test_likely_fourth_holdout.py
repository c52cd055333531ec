"""The likely cause on the fourth retired holdout's misses (eighth round), each a real log under tests/corpus/train,
with the near misses that keep each change from reaching further than its principle."""

from __future__ import annotations

import pytest

from forensics.engine.likely import unmarked
from forensics.model import LikelyReason
from tests.support.likely import picked_from, picked_in


@pytest.mark.parametrize(
    ("file", "line", "reason"),
    [
        # Markdown bold around the exception line (`**RuntimeError: CUDA out of memory.** Tried …`): the exception
        # ends the first fatal traceback; the outer traceback's cut last frame (line 18) was the last line printed
        ("holdout-r4/gpu-oom/f-detectron2-kaist-markdown-bold-oom.log", 11, LikelyReason.EXCEPTION),
        # ggml's test-opt: the first subtest whose verdict is FAIL, not the backend's `Backend CPU: FAIL` summary
        (
            "holdout-r4/unexplained/e-ggml-test-opt-gradient-accumulation-fail.log",
            3,
            LikelyReason.ERROR_LINE,
        ),
        # llama.cpp's `llama_model_load: error loading model: failed to open …` is the first error line; the later
        # `llama_init_from_gpt_params: error: failed to load model` restates it
        ("holdout-r4/unexplained/e-llamacpp-main-model-file-missing.log", 4, LikelyReason.ERROR_LINE),
        # a date-and-time prefix with no level (`2024-06-25 12:27:29.905 `): the traceback's frames are frames, its
        # quoted `raise AsyncEngineDeadError("…")` is source, the exception line (no message on it) is the answer
        (
            "holdout-r4/unexplained/e-vllm-health-async-engine-dead-background-loop.log",
            5,
            LikelyReason.EXCEPTION,
        ),
        # asyncio's `Task exception was never retrieved` then `future: <Task … exception=AttributeError("…")>`: the
        # exception the task died of, named in its repr (the traceback below it is cut); not the INFO line above
        (
            "holdout-r4/unexplained/e-vllm-state-enable-server-load-tracking.log",
            4,
            LikelyReason.EXCEPTION_LINE,
        ),
        # a harness's check that words the mismatch (`Content does not match the expected result`), echoed by
        # `bash -x`; the last line printed (the empty RESPONSE_BODY) is only the last resort
        ("holdout-r4/wrong-response/f-opea-docsum-empty-response-body.log", 7, LikelyReason.FAILURE_LINE),
        # numpy's `AssertionError:` with its message below: the exception's own line (relabelled this round)
        ("holdout-r4/unexplained/f-numba-py314-gufunc-nan-location.log", 5, LikelyReason.EXCEPTION),
        (
            "holdout-r4/unexplained/f-jwst-cube-build-nan-location-mismatch.log",
            2,
            LikelyReason.EXCEPTION_LINE,
        ),
        ("holdout-r4/unexplained/f-active-subspaces-nose-almost-equal.log", 13, LikelyReason.EXCEPTION),
        # backticks around each line: the exception inside is an exception line, not only the last line printed
        (
            "dev-lower/filesystem/emfile-pytest-cache-backticks-pytest-10635.log",
            1,
            LikelyReason.EXCEPTION_LINE,
        ),
        ("dev/gpu-oom/tensorflow-resource-exhausted-ctrl-83.log", 1, LikelyReason.EXCEPTION_LINE),
        # a Go panic behind a bare date and time is a panic; since the fourteenth round, one right below a run of failure
        # lines of its program gives up on what the run reported: the run's first line, the labelled `cudaMalloc failed`
        ("holdout-r2/gpu-oom/ollama-llama-runner-cudamalloc-oom-panic.log", 3, LikelyReason.FAILURE_LINE),
        # uv's `warning: VIRTUAL_ENV=… does not match …` is a warning: the mismatch wording does not make it the cause
        # (since the tenth round, uv's ASCII `  x No solution found …` is the answer, the labelled line, not `help:`)
        (
            "holdout-r3/python-environment/d-framepack-uv-add-torch-cu126-unsatisfiable.log",
            3,
            LikelyReason.ERROR_LINE,
        ),
    ],
)
def test_the_fourth_holdouts_likely_causes(file: str, line: int, reason: LikelyReason) -> None:
    assert picked_in(file) == (line, reason)


def test_markdown_marks_are_read_through_only_around_a_line() -> None:
    assert unmarked("**RuntimeError: CUDA out of memory.** Tried to allocate") == (
        "RuntimeError: CUDA out of memory. Tried to allocate"
    )
    assert unmarked("`09:43:04 ERROR: Connection was broken`") == "09:43:04 ERROR: Connection was broken"
    # Python source keeps its stars and backticks: `**kwargs)` has no closing mark, a line with more than two
    # backticks is not one wrapped line, a bold mark that opens on a space is no mark
    assert unmarked("    **kwargs)") == "    **kwargs)"
    assert unmarked("f(**a, **b)") == "f(**a, **b)"
    assert unmarked("`a` and `b`") == "`a` and `b`"
    assert unmarked("** note ** here") == "** note ** here"
    # a bold traceback header and exception: the exception is the deepest of the first fatal traceback
    lines = [
        "**Traceback (most recent call last):**",
        '  File "x.py", line 1, in <module>',
        "**KeyError: 'a'**",
    ]
    assert picked_from(lines) == (3, LikelyReason.EXCEPTION)


def test_a_bare_date_and_time_is_a_prefix_that_keeps_the_level_after_it() -> None:
    # Ray's `2022-05-25 15:32:08,924\tWARNING worker.py:1 -- …` keeps its WARNING (the Ray header is matched first)
    lines = [
        "2022-05-25 15:32:08,924\tWARNING worker.py:1416 -- The node with node id: 46d2 has been marked dead",
        "2022-05-25 15:32:08,950\tINFO worker.py:1420 -- Reconnecting to the head node",
        "2022-05-25 15:32:09,001 ERROR: could not reach the head node",
    ]
    assert picked_from(lines) == (3, LikelyReason.ERROR_LINE)
    # right above the error line (the eleventh round), the warning begins the run of failure lines that ends in it
    assert picked_from([lines[0], lines[2]]) == (1, LikelyReason.FAILURE_LINE)
    # an ISO date with a zone and a time of day only are prefixes too
    lines = [
        "2025-01-02T03:04:05Z Traceback (most recent call last):",
        '2025-01-02T03:04:05Z   File "a.py", line 1',
        "2025-01-02T03:04:05Z ValueError: bad",
    ]
    assert picked_from(lines) == (3, LikelyReason.EXCEPTION)


def test_an_exception_named_in_a_repr_is_an_exception_line() -> None:
    lines = [
        "Task exception was never retrieved",
        "future: <Task finished name='Task-1' coro=<main() done> exception=ValueError('bad value')>",
    ]
    assert picked_from(lines) == (2, LikelyReason.EXCEPTION_LINE)
    # the repr wrapped over lines, a value that is no string (tastyware/streaq#37)
    lines = [
        "Task exception was never retrieved",
        "",
        "future: <Task finished name='Task-2' coro=<Worker.listen_stream() done,",
        "defined at/usr/local/lib/python3.13/site-packages/streaq/worker.py:520>",
        "exception=LookupError(<ContextVar name='_task_context' at 0x7f1de176dd00>)>",
    ]
    assert picked_from(lines) == (5, LikelyReason.EXCEPTION_LINE)
    # with its traceback below (anasty17/mirror-leech-telegram-bot#629): the traceback's exception line
    lines = [
        " 2022-06-01 19:37:14,799 - asyncio - ERROR - Task exception was never retrieved",
        " future: <Task finished name='Task-3021' coro=<Syncer.worker() done> exception=RuntimeError(\"got Future"
        ' attached to a different loop")>',
        " Traceback (most recent call last):",
        '   File "/usr/lib/python3.8/asyncio/locks.py", line 309, in wait',
        "     await fut",
        " RuntimeError: got Future attached to a different loop",
    ]
    assert picked_from(lines) == (6, LikelyReason.EXCEPTION)
    # a task that finished with no exception names none
    lines = ["future: <Task finished name='Task-1' coro=<main() done> exception=None>", "done"]
    assert picked_from(lines) == (2, LikelyReason.LAST_LINE)


def test_a_programs_error_line_and_its_near_misses() -> None:
    assert picked_from(["main: seed = 1", "llama_model_load: error loading model: bad magic"]) == (
        2,
        LikelyReason.ERROR_LINE,
    )
    # the word error not opening the program's message is no error line (`errors are logged to …`)
    assert picked_from(["main: errors are logged to /tmp/x.log", "main: done"]) == (2, LikelyReason.LAST_LINE)


def test_a_test_verdict_and_its_near_misses() -> None:
    lines = [
        "  test_a(epoch=1, subtest=grads): OK",
        "  test_a(epoch=2, subtest=grads): FAIL",
        "  116/118 tests passed",
        "  Backend CPU: FAIL",
    ]
    assert picked_from(lines) == (2, LikelyReason.ERROR_LINE)
    # every verdict OK: the totals are not a failure
    assert picked_from(["  test_a(epoch=1): OK", "  2/2 tests passed", "  Backend CPU: OK"]) == (
        3,
        LikelyReason.LAST_LINE,
    )
    # unittest's verbose verdict is an error line that the failed test's traceback below it beats
    lines = [
        "test_split (__main__.TestStringMethods) ... FAIL",
        "======================================================================",
        "FAIL: test_split (__main__.TestStringMethods)",
        "Traceback (most recent call last):",
        '  File "t.py", line 9, in test_split',
        "    self.assertEqual(s.split(), ['hello'])",
        "AssertionError: Lists differ: ['hello', 'world'] != ['hello']",
    ]
    assert picked_from(lines) == (7, LikelyReason.EXCEPTION)
    assert picked_from(lines[:1]) == (1, LikelyReason.ERROR_LINE)


def test_a_mismatch_is_a_failure_unless_a_warning_says_it() -> None:
    assert picked_from(["+ echo 'Content does not match the expected result'", "+ exit 1"]) == (
        1,
        LikelyReason.FAILURE_LINE,
    )
    assert picked_from(["warning: `VIRTUAL_ENV=/x` does not match the project environment path", "done"]) == (
        2,
        LikelyReason.LAST_LINE,
    )
