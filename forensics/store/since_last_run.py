"""What changed since the last run, for one just-recorded run: the morning question of the step summary and
the ticket comments.

Against the run before it in its series (same repository, workflow and branch): causes new tonight (never
seen before in the series), returning (seen before, then absent from `quiet_runs` runs or more in a row),
gone (failed the previous run, not this one), unexplained fingerprints new tonight, and the flaky tests of
this run over the series' recent runs. `series_changes` (what `ci-forensics history` shows) decides new,
returning and gone, and `flipping_tests` (the dashboard's flaky list) decides flaky, so the step summary, the
ticket comments and the dashboard agree; this module puts them on one run.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal

from forensics.model import RETURNING_AFTER_RUNS, GroupKind, Report
from forensics.store import queries
from forensics.store.answers import (
    Environments,
    FlippingTest,
    Sighting,
    Window,
    flipping_tests,
    series_changes,
    sighting,
    window_outcomes,
)
from forensics.store.base import Store
from forensics.store.queries import Filters, RunRow
from forensics.store.writer import run_record

DEFAULT_QUIET_RUNS = RETURNING_AFTER_RUNS
"""A cause absent from this many runs in a row, then back, is `returning` (else it just recurs)."""
FLAKY_WINDOW_RUNS = 10
"""How many runs of the series (this one included) the flip rate and the flaky tests look at."""

ChangeStatus = Literal["new", "returning", "gone"]


@dataclass(frozen=True, slots=True)
class CommitRange:
    """The commits between the last run without the change and the run with it."""

    base_sha: str  # the commit of the last good run (for `gone`: the last run that still failed)
    head_sha: str
    compare_url: str  # a GitHub compare page, or "" when the run has no GitHub URL


@dataclass(frozen=True, slots=True)
class CauseChange:
    """A root cause or unexplained fingerprint that appeared, came back or went away with this run."""

    key: str  # rule id or fingerprint key, as the report's groups name it
    kind: GroupKind
    title: str
    status: ChangeStatus
    tests: int  # failing tests in this run ("gone": in the previous run)
    first_seen: Sighting  # the first run of the series it was seen in
    absent_runs: int | None  # "returning": runs in a row without it before this one
    commits: CommitRange | None  # None when the runs carry no commit, or both ran on one commit
    tickets: tuple[str, ...]  # ticket keys its failing tests (or rule) linked, in the run that counts


@dataclass(frozen=True, slots=True)
class SinceLastRun:
    """This run against the previous run of its series; `previous` is None (and `changes` empty) on the
    series' first run."""

    repository: str
    workflow: str
    branch: str
    run: Sighting
    previous: Sighting | None
    quiet_runs: int
    changes: tuple[CauseChange, ...]  # new, then returning, then gone; most tests first
    flaky: tuple[FlippingTest, ...]  # highest flip rate first

    def of_status(self, status: ChangeStatus, kind: GroupKind | None = None) -> tuple[CauseChange, ...]:
        """The changes with this status (and kind)."""
        return tuple(c for c in self.changes if c.status == status and (kind is None or c.kind == kind))

    def status_of(self, key: str) -> ChangeStatus | None:
        """`new` or `returning` for a cause of this run, None when it failed the previous run too (or is gone)."""
        for change in self.changes:
            if change.key == key and change.status != "gone":
                return change.status
        return None

    @property
    def quiet(self) -> bool:
        """Nothing changed: no new, returning or gone cause and no flaky test."""
        return not self.changes and not self.flaky


def since_last_run(
    store: Store, report: Report, *, now: datetime, quiet_runs: int = DEFAULT_QUIET_RUNS
) -> SinceLastRun | None:
    """What changed with the report's run, which must be recorded; None when the store does not hold it."""
    record = run_record(report, now)
    pk = queries.run_key(store, record.provider, record.repository, record.run_id, record.run_attempt)
    if pk is None:
        return None
    filters = Filters(repository=record.repository, workflow=record.workflow, branch=record.branch)
    everything = queries.runs(store, filters)
    this = next((run for run in everything if run.pk == pk), None)
    if this is None:  # recorded by an older ci-forensics with a time no date can hold (queries.VALID_TIME)
        return None
    # as of this run: a later night already recorded does not count (a re-run of an old night)
    series = [run for run in everything if (run.at, run.pk) <= (this.at, this.pk)]
    by_pk = {run.pk: run for run in series}
    hits = [hit for hit in queries.hits(store, filters) if hit.run_pk in by_pk]
    [found] = series_changes(series, hits, quiet_days=0, quiet_runs=quiet_runs)
    previous = series[-2] if len(series) > 1 else None
    first_seen: dict[str, RunRow] = {}
    latest_test: dict[tuple[int, str], int] = {}
    counted: dict[tuple[int, str], int] = defaultdict(int)
    for hit in hits:
        first_seen.setdefault(hit.key, by_pk[hit.run_pk])
        latest_test.setdefault((hit.run_pk, hit.key), hit.test_pk)
        counted[(hit.run_pk, hit.key)] += 1
    kinds = {hit.key: hit.kind for hit in hits}
    # on the series' first run everything would be "new": there is nothing to compare with yet
    # on the series' first run everything would be "new": there is nothing to compare with yet
    wanted = [c for c in found.changes if c.status in ("new", "returning", "gone")] if previous else []
    sources = {c.key: (previous if c.status == "gone" else this) for c in wanted}
    findings = queries.findings(
        store, (latest_test[(run.pk, key)] for key, run in sources.items() if run is not None)
    )
    changes = []
    for change in wanted:
        source = sources[change.key]
        assert source is not None  # a gone cause failed the previous run
        finding = findings.get(latest_test[(source.pk, change.key)])
        tickets = tuple(dict.fromkeys(key for key, _ in finding.tickets)) if finding else ()
        changes.append(
            CauseChange(
                key=change.key,
                kind=kinds[change.key],
                title=finding.title if finding else change.key,
                status=change.status,  # type: ignore[arg-type]  # filtered to the three above
                tests=counted[(source.pk, change.key)],
                first_seen=sighting(first_seen[change.key]),
                absent_runs=change.quiet_runs if change.status == "returning" else None,
                commits=_commits(previous, this) if previous is not None else None,
                tickets=tickets,
            )
        )
    return SinceLastRun(
        repository=record.repository,
        workflow=record.workflow,
        branch=record.branch,
        run=sighting(this),
        previous=sighting(previous) if previous is not None else None,
        quiet_runs=quiet_runs,
        changes=tuple(changes),
        flaky=_flipping(store, filters, series, this),
    )


def _commits(base: RunRow, head: RunRow) -> CommitRange | None:
    """The commit range from one run to another, None when a commit is unknown or both are the same."""
    if not base.head_sha or not head.head_sha or base.head_sha == head.head_sha:
        return None
    site, found, _ = head.run_url.partition("/actions/runs/")
    compare = f"{site}/compare/{base.head_sha}...{head.head_sha}" if found and head.repository else ""
    return CommitRange(base_sha=base.head_sha, head_sha=head.head_sha, compare_url=compare)


def _flipping(store: Store, filters: Filters, series: list[RunRow], this: RunRow) -> tuple[FlippingTest, ...]:
    """The flaky tests of this run: the dashboard's answer (`answers.flipping_tests`: passed and failed on one
    commit and GPU, a retry included, or flipped `MIN_FLIPS` times on one GPU) over the series' last runs,
    kept to the tests that ran in this run."""
    runs = series[-FLAKY_WINDOW_RUNS:]
    pks = [run.pk for run in runs]
    window = Window(
        now=datetime.fromtimestamp(this.at, UTC),
        days=0,
        start=runs[0].at,
        as_of=this.at,
        runs={run.pk: run for run in runs},
        hits=(),
        environments=Environments(queries.jobs(store, pks), queries.runner_gpus(store)),
    )
    executions = window_outcomes(store, window, filters)
    ran_now = {outcome.name for outcome in executions if outcome.run_pk == this.pk}
    return tuple(test for test in flipping_tests(window, executions) if test.name in ran_now)
