"""The forked worker pool of report/worker_pool.py: every task answered once under its key, a task's exception
raised in the parent, a worker that dies reported as such; and report/session.py's grouping of tests for it."""

from __future__ import annotations

import os
import signal

import pytest

from forensics.model import LogRef, Status, TestCase
from forensics.report.session import _groups, _keys
from forensics.report.worker_pool import WorkerDiedError, WorkerPool


def _square(number: int) -> tuple[int, int]:
    return os.getpid(), number * number


def _fail(message: str) -> None:
    raise ValueError(message)


def _die(_argument: object) -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def test_every_task_is_answered_once_under_its_key_by_several_workers() -> None:
    with WorkerPool(3) as pool:
        for number in range(40):
            pool.submit(_square, number, ("square", number), urgent=number % 7 == 0)
        pool.start()
        answers = list(pool.answers())
        pool.submit(_square, 50, "late")  # after the first round: the same workers answer
        late = list(pool.answers())
    assert sorted(key for key, _ in answers) == [("square", number) for number in range(40)]
    assert all(square == key[1] ** 2 for key, (_pid, square) in answers)
    assert len({pid for _key, (pid, _square) in answers}) > 1
    assert os.getpid() not in {pid for _key, (pid, _square) in answers}
    assert [(key, square) for key, (_pid, square) in late] == [("late", 2500)]


def test_a_tasks_exception_is_raised_in_the_parent() -> None:
    with pytest.raises(ValueError, match="the worker's own words"), WorkerPool(2) as pool:
        pool.submit(_fail, "the worker's own words", 1)
        pool.start()
        list(pool.answers())


def test_a_worker_that_dies_is_reported_and_the_rest_are_ended() -> None:
    with pytest.raises(WorkerDiedError), WorkerPool(2) as pool:
        pool.submit(_square, 3, 1)
        pool.submit(_die, None, 2)
        pool.start()
        list(pool.answers())
    assert pool.processes == []


def test_answers_before_start_is_an_error() -> None:
    pool = WorkerPool(1)
    pool.submit(_square, 1, 1)
    with pytest.raises(RuntimeError, match="start"):
        next(pool.answers())


def _test(name: str, *sources: str, message: str = "") -> TestCase:
    logs = tuple(
        LogRef(input_label="a.zip", source=source, attachment=source, location="attachment", rank=0)
        for source in sources
    )
    return TestCase(
        uuid=name,
        name=name,
        full_name=name,
        status=Status.FAILED,
        input_label="a.zip",
        logs=logs,
        message=message,
    )


def test_tests_sharing_a_log_go_to_one_group_in_their_order() -> None:
    tests = [
        _test("a", "one.log"),
        _test("b", "two.log", message="same words"),
        _test("c", "three.log", "one.log"),
        _test("d", "four.log", message="same words"),  # the same status message is no shared archive log
        _test("e", "three.log"),
    ]
    groups = _groups(tests)
    assert sorted([test.name for test in group] for group in groups) == [["a", "c", "e"], ["b"], ["d"]]
    assert [ref.source for ref in tests[2].logs] == ["three.log", "one.log"]
    keys = _keys(tests)
    assert len(keys) == len(set(keys)) == 5  # four logs, one status message text
