"""The dashboard document over several simulated nights of two workflows on two GPU types, each night recorded
from a real analysed report: what is new, returning and gone since each workflow's last run, flaky tests,
days without a run, and the scope options — on SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import timedelta

from forensics.dashboard.document import build, parse, to_json
from forensics.dashboard.model import Dashboard
from forensics.store import Store
from forensics.store.answers import SeriesChanges
from forensics.store.queries import Filters
from tests.store.conftest import PRE_MERGE, PRE_MERGE_NIGHTS
from tests.store.nightly import START, WORKFLOW

SEED_KEY = "vllm.startup-free-memory"
SEED_TEST = "test_serve_deployment[mm_epd_qwen3-vl-2b]"
RETRIED_TEST = "test_kv_router_decisions[nats]"  # the sample's test that failed, then passed on a retry


def _on_night(store: Store, night: int, *, filters: Filters | None = None) -> Dashboard:
    """The dashboard as it would have been built the morning after `night`'s runs."""
    return build(store, now=START + timedelta(days=night, hours=6), days=14, filters=filters)


def _series(dashboard: Dashboard, workflow: str) -> SeriesChanges:
    assert dashboard.since_last_run is not None
    return next(series for series in dashboard.since_last_run.series if series.workflow == workflow)


def test_a_cause_is_new_on_the_night_it_appears_and_not_the_night_after(nights: Store) -> None:
    night_three = _series(_on_night(nights, 3), WORKFLOW)
    assert night_three.latest.run_id == 9_000_003 and night_three.previous is not None
    assert night_three.previous.run_id == 9_000_001  # night 2 ran nothing
    [change] = night_three.changes
    assert (change.key, change.status, change.kind, change.hits) == (SEED_KEY, "new", "cause", 1)
    assert change.first_seen is not None and change.first_seen.run_id == 9_000_003
    assert night_three.last_good is not None and night_three.last_good.run_id == 9_000_001
    assert night_three.latest.head_sha == f"{9_000_003:040x}"  # the commit range ends here
    night_four = _series(_on_night(nights, 4), WORKFLOW)
    assert night_four.changes == ()  # failed again: neither new nor gone
    assert night_four.last_good is not None and night_four.last_good.run_id == 9_000_001


def test_a_cause_that_went_away_is_gone_and_one_back_after_quiet_runs_is_returning(nights: Store) -> None:
    night_five = _series(_on_night(nights, 5), WORKFLOW)
    [gone] = night_five.changes
    assert (gone.key, gone.status, gone.hits) == (SEED_KEY, "gone", 1)
    assert gone.first_seen is not None and gone.first_seen.run_id == 9_000_003
    dashboard = _on_night(nights, 10)
    assert dashboard.since_last_run is not None and dashboard.since_last_run.returning_after_runs == 3
    [back] = _series(dashboard, WORKFLOW).changes
    assert (back.key, back.status, back.quiet_runs) == (SEED_KEY, "returning", 4)  # nights 5, 7, 8, 9
    assert back.first_seen is not None and back.first_seen.run_id == 9_000_003


def test_each_workflow_has_its_own_series_and_new_unexplained_clusters_are_named(nights: Store) -> None:
    dashboard = _on_night(nights, 1)
    assert dashboard.since_last_run is not None
    assert [(s.workflow, s.branch) for s in dashboard.since_last_run.series] == [
        (WORKFLOW, "main"),
        (PRE_MERGE, "main"),
    ]
    pre_merge = _series(dashboard, PRE_MERGE)
    assert pre_merge.previous is None  # its first run: everything is new
    assert {change.status for change in pre_merge.changes} == {"new"}
    assert [change.key for change in pre_merge.changes if change.kind == "unexplained"] == ["c9103a15f5a3"]
    assert _series(_on_night(nights, 4), PRE_MERGE).changes == ()  # the same failures again


def test_a_test_that_passed_on_a_retry_is_flaky_and_a_gpu_bound_test_is_not(nights: Store) -> None:
    dashboard = _on_night(nights, 10)
    assert dashboard.flaky is not None
    flaky = {test.name: test for test in dashboard.flaky.tests}
    assert set(flaky) == {RETRIED_TEST}
    retried = flaky[RETRIED_TEST]
    assert (retried.same_commit, retried.executions, retried.failed) == (True, 4, 2)
    assert retried.flips == 3 and retried.flip_rate == 1.0  # failed, passed, failed, passed
    assert retried.first_failed.run_id == 7_000_001 and retried.last_failed.run_id == 7_000_004
    # The seed test fails on every A10G night and passes on every L40S night: GPU-bound, which the cause's
    # "where it happens" says; never counted as flaky.
    assert SEED_TEST not in flaky


def test_days_without_a_run_are_not_clean_days(nights: Store) -> None:
    dashboard = _on_night(nights, 10)
    by_date = {day.date: day for day in dashboard.days}
    no_run = by_date[(START + timedelta(days=2)).date()]
    clean = by_date[(START + timedelta(days=0)).date()]
    assert no_run.no_run and no_run.failures == 0 and no_run.pass_rate is None
    assert not clean.no_run and clean.failures == 0 and clean.pass_rate == 1.0
    assert clean.ran is not None and (clean.ran.runs, clean.ran.executed, clean.ran.passed) == (1, 2, 2)
    busy = by_date[(START + timedelta(days=4)).date()]
    assert busy.ran is not None and (busy.ran.runs, busy.ran.executed, busy.ran.passed) == (2, 19, 11)
    assert dashboard.totals.days_without_run == 14 - 9  # the window starts 3 days before night 0
    assert dashboard.totals.tests_run == 9 * 2 + 2 * 17
    seed = dashboard.cause(SEED_KEY)
    # three A10G nights and three tests in each of the two sample runs, of every test executed
    assert seed is not None and seed.executed_share == round((3 + 2 * 3) / (9 * 2 + 2 * 17), 4)


def test_scope_options_restrict_everything(nights: Store) -> None:
    everything = _on_night(nights, 10)
    pre_merge = _on_night(nights, 10, filters=Filters(workflow=PRE_MERGE))
    assert pre_merge.scope == Filters(workflow=PRE_MERGE)
    assert (pre_merge.totals.runs, everything.totals.runs) == (2, 11)
    assert pre_merge.totals.tests_run == 2 * 17
    assert pre_merge.cause(SEED_KEY) is not None  # the sample fails with it too
    assert pre_merge.cause(SEED_KEY).counts.total == 6  # type: ignore[union-attr]
    assert everything.cause(SEED_KEY).counts.total == 9  # type: ignore[union-attr]
    assert pre_merge.since_last_run is not None
    assert [series.workflow for series in pre_merge.since_last_run.series] == [PRE_MERGE]
    assert {day.date for day in pre_merge.days if day.ran and day.ran.runs} == {
        (START + timedelta(days=night)).date() for night in PRE_MERGE_NIGHTS
    }
    nightly_only = _on_night(nights, 10, filters=Filters(workflow=WORKFLOW, branch="main"))
    assert nightly_only.flaky is not None and nightly_only.flaky.tests == ()
    assert {cause.key for cause in nightly_only.causes} == {SEED_KEY}


def test_the_document_of_several_nights_survives_json(nights: Store) -> None:
    dashboard = _on_night(nights, 10)
    assert parse(to_json(dashboard)) == dashboard
