"""What changed between runs: causes new since the last run of a workflow and branch, causes returning after
quiet days, causes gone — and flaky tests, which passed and failed on the same commit.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from forensics.store import queries
from forensics.store.base import Store
from forensics.store.queries import Filters, HitRow, OutcomeGroup, RunRow
from forensics.store.runs import LOCAL_PROVIDER

DAY = 86400


@dataclass(frozen=True, slots=True)
class Sighting:
    """A run a cause was seen in."""

    at: datetime
    run_id: int | None  # None for a local analysis
    run_url: str
    head_sha: str


@dataclass(frozen=True, slots=True)
class CauseChange:
    """How a cause of the latest run relates to the runs before it (or that it is gone)."""

    key: str
    status: str  # "new" | "returning" | "recurring" | "gone"
    hits: int  # in the latest run ("gone": in the previous one)
    quiet_days: int | None = None  # "returning": days since it was last seen before


@dataclass(frozen=True, slots=True)
class SeriesChanges:
    """The latest run of one repository, workflow and branch against the run before it."""

    repository: str
    workflow: str
    branch: str
    latest: Sighting
    previous: Sighting | None
    changes: tuple[CauseChange, ...]


@dataclass(frozen=True, slots=True)
class FlakyTest:
    """A test that passed and failed on one commit (across runs, or through a retry within one run)."""

    name: str
    repository: str
    head_sha: str
    passed: int
    failed: int
    runs: int
    causes: tuple[str, ...]
    retried: bool  # True: it failed, then passed on a retry in the same run


def moment(epoch: int) -> datetime:
    """An epoch second as an aware UTC datetime."""
    return datetime.fromtimestamp(epoch, UTC)


def sighting(run: RunRow) -> Sighting:
    """Where and when a run was."""
    return Sighting(
        at=moment(run.at),
        run_id=None if run.provider == LOCAL_PROVIDER else run.run_id,
        run_url=run.run_url,
        head_sha=run.head_sha,
    )


def series_changes(
    runs: Sequence[RunRow], hits: Sequence[HitRow], *, quiet_days: int
) -> tuple[SeriesChanges, ...]:
    """For each workflow and branch, the latest run's causes against the series' earlier runs.

    `new`: never seen before in the series; `returning`: last seen `quiet_days` or more days before;
    `recurring`: seen within that time but not in the previous run; `gone`: in the previous run only.
    Causes that were in the previous run as well are not listed.
    """
    series: dict[tuple[str, str, str], list[RunRow]] = defaultdict(list)
    for run in sorted(runs, key=lambda run: (run.at, run.pk)):
        series[(run.repository, run.workflow, run.branch)].append(run)
    hits_by_run: dict[int, list[HitRow]] = defaultdict(list)
    for hit in hits:
        hits_by_run[hit.run_pk].append(hit)
    found = []
    for (repository, workflow, branch), members in sorted(series.items()):
        latest, earlier = members[-1], members[:-1]
        previous = earlier[-1] if earlier else None
        now_keys = _counts(hits_by_run[latest.pk])
        before_keys = _counts(hits_by_run[previous.pk]) if previous else {}
        last_seen: dict[str, int] = {}
        for run in earlier:
            for hit in hits_by_run[run.pk]:
                last_seen[hit.key] = max(last_seen.get(hit.key, 0), run.at)
        changes = []
        for key, count in now_keys.items():
            if key in before_keys:
                continue
            if key not in last_seen:
                changes.append(CauseChange(key=key, status="new", hits=count))
            elif (quiet := (latest.at - last_seen[key]) // DAY) >= quiet_days:
                changes.append(CauseChange(key=key, status="returning", hits=count, quiet_days=quiet))
            else:
                changes.append(CauseChange(key=key, status="recurring", hits=count))
        changes.extend(
            CauseChange(key=key, status="gone", hits=count)
            for key, count in before_keys.items()
            if key not in now_keys
        )
        order = {"new": 0, "returning": 1, "recurring": 2, "gone": 3}
        found.append(
            SeriesChanges(
                repository=repository,
                workflow=workflow,
                branch=branch,
                latest=sighting(latest),
                previous=sighting(previous) if previous else None,
                changes=tuple(
                    sorted(changes, key=lambda change: (order[change.status], -change.hits, change.key))
                ),
            )
        )
    return tuple(found)


def flaky_tests(store: Store, filters: Filters, *, since: int, until: int) -> tuple[FlakyTest, ...]:
    """Tests that passed and failed on one commit since `since`: across runs, or a retry within a run."""
    across = queries.outcomes_on_commits(store, filters, since=since, until=until)
    retried = queries.passed_after_retries(store, filters, since=since, until=until)
    flaky = [_flaky(group, causes=group.causes, retried=False) for group in across]
    flaky.extend(_flaky(group, causes=(), retried=True) for group in retried)
    return tuple(sorted(flaky, key=lambda test: (-test.failed, test.name, test.head_sha, test.retried)))


def _flaky(group: OutcomeGroup, *, causes: tuple[str, ...], retried: bool) -> FlakyTest:
    return FlakyTest(
        name=group.name,
        repository=group.repository,
        head_sha=group.head_sha,
        passed=group.passed,
        failed=group.failed,
        runs=group.runs,
        causes=causes,
        retried=retried,
    )


def _counts(hits: Sequence[HitRow]) -> dict[str, int]:
    counts: dict[str, int] = defaultdict(int)
    for hit in hits:
        counts[hit.key] += 1
    return dict(counts)
