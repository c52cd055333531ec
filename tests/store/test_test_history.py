"""`failing_test_histories`: each failing test's run strip over simulated nights recorded through the normal path."""

from __future__ import annotations

from pathlib import Path

import pytest

from forensics.dashboard.document import build, parse, to_json
from forensics.store import Store
from forensics.store.answers import TestHistory, failing_test_histories, open_window, window_outcomes
from forensics.store.queries import Filters
from tests.support.nights import (
    FLAKY_TEST,
    GATED_TEST,
    MEMORY_CAUSE,
    MEMORY_TEST,
    NEW_CAUSE,
    NEW_NIGHT,
    NIGHTLY,
    PORT_TEST,
    POST_MERGE,
    START,
    after_night,
)


def _histories(store: Store, *, night: int, filters: Filters | None = None) -> dict[str, TestHistory]:
    filters = filters or Filters()
    window = open_window(store, now=after_night(night), days=14, filters=filters)
    outcomes = window_outcomes(store, window, filters)
    return {test.name: test for test in failing_test_histories(store, window, outcomes)}


def _outcomes(test: TestHistory, workflow: str) -> list[str]:
    strip = next(strip for strip in test.strips if strip.workflow == workflow)
    return [cell.outcome for cell in strip.cells]


def test_every_test_that_failed_has_a_cell_per_run_of_its_series(simulated_nights: Store) -> None:
    tests = _histories(simulated_nights, night=6)
    assert set(tests) == {MEMORY_TEST, GATED_TEST, PORT_TEST, FLAKY_TEST}  # the steady test never failed

    gated = tests[GATED_TEST]
    assert _outcomes(gated, NIGHTLY) == ["not-run"] * 4 + ["failed", "failed"]
    assert [strip.workflow for strip in gated.strips] == [NIGHTLY]  # it never ran after merges
    assert gated.causes == ((NEW_CAUSE, 2),)
    assert gated.tickets == (("OPS-5120", "https://linear.app/acme/issue/OPS-5120"),)
    since = gated.strips[0].failing_since
    assert since is not None and since.run_id == 7_000_000 + NEW_NIGHT

    port = tests[PORT_TEST]
    assert _outcomes(port, NIGHTLY) == ["passed"] * 4 + ["failed", "passed"]  # the L40S job skipped it
    assert _outcomes(port, POST_MERGE) == ["skipped"] * 3
    assert all(strip.failing_since is None for strip in port.strips)

    memory = tests[MEMORY_TEST]
    assert _outcomes(memory, NIGHTLY) == ["failed"] * 6  # the A10G job fails, the L40S job passes: worst wins
    assert _outcomes(memory, POST_MERGE) == ["passed"] * 3
    assert memory.causes == ((MEMORY_CAUSE, 6),)
    first = memory.strips[0].failing_since
    assert first is not None and first.at == START.replace(hour=2)


def test_a_retry_that_passed_after_a_failure_is_marked_in_its_cell(simulated_nights: Store) -> None:
    flaky = _histories(simulated_nights, night=6)[FLAKY_TEST]
    assert _outcomes(flaky, NIGHTLY) == ["passed", "unexplained", "passed", "unexplained", "passed", "passed"]
    strip = flaky.strips[0]
    assert [cell.retried for cell in strip.cells] == [False, False, False, False, True, False]
    assert all(cell.causes == (flaky.causes[0][0],) for cell in strip.cells if cell.outcome == "unexplained")


def test_the_answer_is_as_of_its_moment_and_follows_the_filters(simulated_nights: Store) -> None:
    before = _histories(simulated_nights, night=NEW_NIGHT - 1)
    assert GATED_TEST not in before and PORT_TEST not in before
    assert _outcomes(before[MEMORY_TEST], NIGHTLY) == ["failed"] * 4
    assert _histories(simulated_nights, night=6, filters=Filters(workflow=POST_MERGE)) == {}
    only_nightly = _histories(simulated_nights, night=6, filters=Filters(workflow=NIGHTLY))
    assert [strip.workflow for strip in only_nightly[MEMORY_TEST].strips] == [NIGHTLY]


def test_the_document_carries_the_histories_through_data_json(
    simulated_nights: Store, tmp_path: Path
) -> None:
    dashboard = build(simulated_nights, now=after_night(6), days=14)
    assert {test.name for test in dashboard.tests} == {MEMORY_TEST, GATED_TEST, PORT_TEST, FLAKY_TEST}
    data = to_json(dashboard)
    assert [series["workflow"] for series in data["test_history"]["series"]] == [NIGHTLY, POST_MERGE]
    assert parse(data) == dashboard
    broken = to_json(dashboard)
    broken["test_history"]["tests"][0]["strips"][0]["cells"].pop()
    with pytest.raises(Exception, match=r"test_history\.tests\[0\]\.strips\[0\]\.cells has 5 cells"):
        parse(broken)
