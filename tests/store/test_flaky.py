"""One definition of a flaky test: the step summary's and ticket comments' list (`since_last_run`) is the
dashboard's (`flipping_tests`), over simulated nights on two GPUs recorded through the normal path."""

from __future__ import annotations

import pytest

from forensics.dashboard.document import build
from forensics.store import Store
from forensics.store.queries import Filters
from forensics.store.since_last_run import since_last_run
from tests.support.nights import (
    FLAKY_TEST,
    MEMORY_TEST,
    NEW_NIGHT,
    NIGHTLY,
    NightBuilder,
    after_night,
    plan,
    with_context,
)


def _step_summary_flaky(store: Store, builder: NightBuilder, night: int) -> set[str]:
    run = next(run for run in plan() if run.workflow == NIGHTLY and run.night == night)
    job = run.jobs[0]  # the A10G job: every test of the series runs in it
    report = with_context(builder.report(job), run, job, job_id=run.run_id * 10)
    since = since_last_run(store, report, now=after_night(night))
    assert since is not None
    return {test.name for test in since.flaky}


@pytest.mark.parametrize("night", [1, 2, 4, NEW_NIGHT, 6])
def test_the_step_summary_and_the_dashboard_call_the_same_tests_flaky(
    simulated_nights: Store, night_builder: NightBuilder, night: int
) -> None:
    dashboard = build(simulated_nights, now=after_night(night), days=14, filters=Filters(workflow=NIGHTLY))
    assert dashboard.flaky is not None
    run = next(run for run in plan() if run.workflow == NIGHTLY and run.night == night)
    ran = {verdict.test.name for verdict in night_builder.report(run.jobs[0]).verdicts}
    assert (
        _step_summary_flaky(simulated_nights, night_builder, night)
        == {test.name for test in dashboard.flaky.tests} & ran
    )


def test_a_test_that_fails_on_one_gpu_and_passes_on_another_is_not_flaky(
    simulated_nights: Store, night_builder: NightBuilder
) -> None:
    # mm_epd fails on every A10G job and passes on every L40S job of the same commit: GPU-bound, never flaky
    # (the step summary once called it flaky: it passed and failed on one commit); router_failover failed and
    # passed on a retry on one commit and one GPU on night 5: flaky from then on
    assert MEMORY_TEST not in _step_summary_flaky(simulated_nights, night_builder, NEW_NIGHT)
    assert FLAKY_TEST in _step_summary_flaky(simulated_nights, night_builder, NEW_NIGHT)
    assert _step_summary_flaky(simulated_nights, night_builder, 2) == set()
