"""The questions the store answers: per root cause or fingerprint, since when, how often, which tests, where;
what is new since the last run of a workflow and branch; which tests flake on one commit.

Every answer is "as of" `now`: runs recorded with a later time are ignored, so a question asked about the
past gives the answer it would have given then.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from forensics.model import GroupKind
from forensics.store import queries
from forensics.store.base import Store
from forensics.store.changes import (
    FlakyTest,
    SeriesChanges,
    Sighting,
    flaky_tests,
    moment,
    series_changes,
    sighting,
)
from forensics.store.correlation import Environments, EnvironmentShare, describe_pattern, pattern
from forensics.store.queries import Filters, HitRow, RunRow

DAY = 86400
__all__ = [
    "CauseHistory",
    "CauseStats",
    "DayTotals",
    "History",
    "Sighting",
    "Window",
    "cause_stats",
    "history",
    "open_window",
]


@dataclass(frozen=True, slots=True)
class CauseStats:
    """First and last sighting and recent counts of one cause or fingerprint (what ticket comments show)."""

    first_seen_at: datetime
    first_seen_run_url: str
    first_seen_sha: str
    last_seen_at: datetime
    last_seen_run_url: str
    count_24h: int
    count_7d: int
    count_30d: int
    total: int


@dataclass(frozen=True, slots=True)
class CauseHistory:
    """One root cause (rule) or unexplained fingerprint over time."""

    key: str
    kind: GroupKind
    title: str
    category: str
    advice: str
    first_seen: Sighting
    last_seen: Sighting
    stats: CauseStats
    window_hits: int
    tests: tuple[str, ...]  # names of the tests it hit in the window
    environment: tuple[EnvironmentShare, ...]
    pattern: str  # "100% of hits on 22 GiB NVIDIA A10G runners, which ran 40% of jobs", or ""


@dataclass(frozen=True, slots=True)
class DayTotals:
    """Failing tests on one day (UTC) and how many a rule explained."""

    day: date
    failures: int
    explained: int
    by_cause: tuple[tuple[str, int], ...]


@dataclass(frozen=True, slots=True)
class History:
    """Everything `ci-forensics history` shows."""

    generated_at: datetime
    window_days: int
    filters: Filters
    cause_filter: str | None
    runs: int
    jobs: int
    failing: int
    explained: int
    causes: tuple[CauseHistory, ...]
    days: tuple[DayTotals, ...]
    changes: tuple[SeriesChanges, ...]
    flaky: tuple[FlakyTest, ...]


def window_start(now: datetime, days: int) -> datetime:
    """Midnight (UTC) `days - 1` days before `now`: the window holds `days` calendar days, today included."""
    return (now.astimezone(UTC) - timedelta(days=days - 1)).replace(hour=0, minute=0, second=0, microsecond=0)


@dataclass(frozen=True, slots=True)
class Window:
    """The runs and failing tests a question looks at, as of a moment, with the jobs of its window."""

    now: datetime
    days: int
    start: int  # the window's first second
    as_of: int  # its last second
    runs: dict[int, RunRow]  # every selected run up to `as_of`, by primary key
    hits: tuple[HitRow, ...]  # every failing test of those runs, oldest first
    environments: Environments  # the jobs of the runs in the window

    @property
    def window_runs(self) -> list[RunRow]:
        """The runs inside the window."""
        return [run for run in self.runs.values() if run.at >= self.start]

    @property
    def window_hits(self) -> list[HitRow]:
        """The failing tests inside the window."""
        return [hit for hit in self.hits if hit.at >= self.start]

    def by_key(self) -> dict[str, list[HitRow]]:
        """Every hit (all time) per cause key, oldest first."""
        grouped: dict[str, list[HitRow]] = defaultdict(list)
        for hit in self.hits:
            grouped[hit.key].append(hit)
        return grouped


def open_window(
    store: Store, *, now: datetime, days: int, filters: Filters, cause: str | None = None
) -> Window:
    """Load what a question about the `days` days up to `now` needs (three queries)."""
    as_of = int(now.timestamp())
    start = int(window_start(now, days).timestamp())
    runs = {run.pk: run for run in queries.runs(store, filters) if run.at <= as_of}
    hits = tuple(hit for hit in queries.hits(store, filters, key=cause) if hit.run_pk in runs)
    in_window = [run.pk for run in runs.values() if run.at >= start]
    environments = Environments(queries.jobs(store, in_window), queries.runner_gpus(store))
    return Window(
        now=now, days=days, start=start, as_of=as_of, runs=runs, hits=hits, environments=environments
    )


def history(
    store: Store,
    *,
    now: datetime,
    days: int = 30,
    filters: Filters | None = None,
    cause: str | None = None,
    quiet_days: int = 7,
) -> History:
    """The history of the runs `filters` select, as of `now`, with a window of `days` days."""
    filters = filters or Filters()
    window = open_window(store, now=now, days=days, filters=filters, cause=cause)
    window_hits = window.window_hits
    return History(
        generated_at=now,
        window_days=days,
        filters=filters,
        cause_filter=cause,
        runs=len(window.window_runs),
        jobs=window.environments.job_total,
        failing=len(window_hits),
        explained=sum(1 for hit in window_hits if hit.kind == "cause"),
        causes=cause_histories(store, window),
        days=day_totals(window_hits, now=now, days=days),
        changes=series_changes(list(window.runs.values()), window.hits, quiet_days=quiet_days),
        flaky=flaky_tests(store, filters, since=window.start, until=window.as_of),
    )


def cause_histories(store: Store, window: Window) -> tuple[CauseHistory, ...]:
    """Each cause or fingerprint with hits in the window, most hits in the window first."""
    by_key = window.by_key()
    in_window = {key: [hit for hit in hits if hit.at >= window.start] for key, hits in by_key.items()}
    shown = sorted(
        (key for key, hits in in_window.items() if hits),
        key=lambda key: (-len(in_window[key]), -by_key[key][-1].at, key),
    )
    latest = queries.findings(store, (by_key[key][-1].test_pk for key in shown))
    causes = []
    for key in shown:
        hits = by_key[key]
        finding = latest.get(hits[-1].test_pk)
        shares = window.environments.shares(in_window[key])
        causes.append(
            CauseHistory(
                key=key,
                kind=hits[-1].kind,
                title=finding.title if finding else key,
                category=finding.category if finding else "",
                advice=finding.advice if finding else "",
                first_seen=sighting(window.runs[hits[0].run_pk]),
                last_seen=sighting(window.runs[hits[-1].run_pk]),
                stats=stats_of(hits, window.runs, window.as_of),
                window_hits=len(in_window[key]),
                tests=tuple(sorted({hit.name for hit in in_window[key]})),
                environment=shares,
                pattern=describe_pattern(pattern(shares)),
            )
        )
    return tuple(causes)


def cause_stats(store: Store, *, key: str, repository: str | None, now: datetime) -> CauseStats | None:
    """First/last sighting and 24 h / 7 d / 30 d counts of a rule id or fingerprint key; None if never seen."""
    as_of = int(now.timestamp())
    filters = Filters(repository=repository)
    hits = [hit for hit in queries.hits(store, filters, key=key) if hit.at <= as_of]
    if not hits:
        return None
    runs = {run.pk: run for run in queries.runs(store, filters)}
    return stats_of(hits, runs, as_of)


def stats_of(hits: list[HitRow], runs: dict[int, RunRow], as_of: int) -> CauseStats:
    """Stats of one key's hits (oldest first)."""
    first, last = runs[hits[0].run_pk], runs[hits[-1].run_pk]
    return CauseStats(
        first_seen_at=moment(first.at),
        first_seen_run_url=first.run_url,
        first_seen_sha=first.head_sha,
        last_seen_at=moment(last.at),
        last_seen_run_url=last.run_url,
        count_24h=sum(1 for hit in hits if hit.at > as_of - DAY),
        count_7d=sum(1 for hit in hits if hit.at > as_of - 7 * DAY),
        count_30d=sum(1 for hit in hits if hit.at > as_of - 30 * DAY),
        total=len(hits),
    )


def day_totals(hits: list[HitRow], *, now: datetime, days: int) -> tuple[DayTotals, ...]:
    """Every day of the window (zeros included): failures, explained, and failures per cause key."""
    first_day = window_start(now, days).date()
    per_day: dict[date, list[HitRow]] = defaultdict(list)
    for hit in hits:
        per_day[moment(hit.at).date()].append(hit)
    totals = []
    for offset in range(days):
        day = first_day + timedelta(days=offset)
        members = per_day.get(day, [])
        counts: dict[str, int] = defaultdict(int)
        for hit in members:
            counts[hit.key] += 1
        totals.append(
            DayTotals(
                day=day,
                failures=len(members),
                explained=sum(1 for hit in members if hit.kind == "cause"),
                by_cause=tuple(sorted(counts.items(), key=lambda item: (-item[1], item[0]))),
            )
        )
    return tuple(totals)
