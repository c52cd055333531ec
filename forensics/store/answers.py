"""The questions the store answers, as typed answers: per root cause or fingerprint, since when, how often,
which tests, where (the share of its hits per runner label, GPU model, GPU memory and runner, against the
share of jobs that ran there); what changed since the last run of a workflow and branch (new, returning and
gone causes, tests that flake on one commit); and failing tests as the store kept them, for `reanalyze`.
Every answer is "as of" `now`: runs recorded with a later time are ignored, so a question asked about the
past gives the answer it would have given then. A job whose logs revealed no GPU inherits what its runner
was last seen with (runners keep their GPUs).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Literal

from forensics.model import GroupKind
from forensics.store import queries
from forensics.store.base import Store
from forensics.store.environment import DIMENSIONS, GPU_DIMENSIONS, Fact
from forensics.store.queries import VALID_TIME, Filters, HitRow, JobRow, OutcomeGroup, RunRow, json_items
from forensics.store.writer import LOCAL_PROVIDER

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
    status: Literal["new", "returning", "recurring", "gone"]
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


MIN_PATTERN_HITS = 3
MIN_PATTERN_LIFT = 0.3  # hit share at least this far above the job share
_PATTERN_ORDER = ("gpu_memory", "gpu_model", "runner_label", "runner")


@dataclass(frozen=True, slots=True)
class EnvironmentShare:
    """One environment value's part in a cause's hits, against its part in all jobs."""

    dimension: str  # runner_label | gpu_model | gpu_memory | runner
    value: str
    hits: int
    hit_share: float
    run_share: float  # share of the jobs in the window that ran there

    @property
    def lift(self) -> float:
        """How far the hits lean to this value beyond what its share of jobs explains."""
        return self.hit_share - self.run_share


class Environments:
    """The facts of every job in a window, with runner-inherited GPU facts filled in."""

    def __init__(self, jobs: Sequence[JobRow], runner_gpus: Mapping[str, frozenset[Fact]]) -> None:
        self.facts: dict[int, frozenset[Fact]] = {}
        for job in jobs:
            facts = set(job.facts)
            known = {dimension for dimension, _ in facts}
            for dimension, value in runner_gpus.get(job.runner_name, frozenset()):
                if dimension in GPU_DIMENSIONS and dimension not in known:
                    facts.add((dimension, value))
            self.facts[job.pk] = frozenset(facts)
        self.job_counts: Counter[Fact] = Counter(fact for facts in self.facts.values() for fact in facts)

    @property
    def job_total(self) -> int:
        """Jobs in the window."""
        return len(self.facts)

    def shares(self, hits: Sequence[HitRow]) -> tuple[EnvironmentShare, ...]:
        """Every value the hits ran on, by dimension, most hits first."""
        counted: Counter[Fact] = Counter(fact for hit in hits for fact in self.facts.get(hit.job_pk, ()))
        total = len(hits)
        shares = [
            EnvironmentShare(
                dimension=dimension,
                value=value,
                hits=count,
                hit_share=round(count / total, 4),
                run_share=round(self.job_counts[(dimension, value)] / self.job_total, 4)
                if self.job_total
                else 0.0,
            )
            for (dimension, value), count in counted.items()
        ]
        order = {dimension: index for index, dimension in enumerate(DIMENSIONS)}
        return tuple(
            sorted(shares, key=lambda share: (order.get(share.dimension, 99), -share.hits, share.value))
        )

    def columns(self, dimension: str) -> list[str]:
        """The values of one dimension across the window's jobs, most jobs first."""
        values = [(count, value) for (found, value), count in self.job_counts.items() if found == dimension]
        return [value for _, value in sorted(values, key=lambda item: (-item[0], item[1]))]


def pattern(shares: Sequence[EnvironmentShare]) -> tuple[EnvironmentShare, ...]:
    """The values a cause leans to (all that tie with the strongest lean), or () when it spreads evenly."""
    candidates = [s for s in shares if s.hits >= MIN_PATTERN_HITS and s.lift >= MIN_PATTERN_LIFT]
    if not candidates:
        return ()
    best = max(candidates, key=lambda share: (share.lift, share.hits))
    tied = [
        s
        for s in candidates
        if (s.hits, s.hit_share, s.run_share) == (best.hits, best.hit_share, best.run_share)
    ]
    order = {dimension: index for index, dimension in enumerate(_PATTERN_ORDER)}
    return tuple(sorted(tied, key=lambda share: (order.get(share.dimension, 99), share.value)))


def describe_pattern(shares: Sequence[EnvironmentShare]) -> str:
    """`100% of hits on 22 GiB NVIDIA A10G runners, which ran 40% of jobs` ('' without a pattern)."""
    if not shares:
        return ""
    first = shares[0]
    gpu = " ".join(share.value for share in shares if share.dimension in GPU_DIMENSIONS)
    names = {"runner_label": "label", "runner": "runner"}
    others = ", ".join(
        f"{names.get(share.dimension, share.dimension)} '{share.value}'"
        for share in shares
        if share.dimension not in GPU_DIMENSIONS
    )
    where = f"{gpu} runners" + (f" ({others})" if others else "") if gpu else f"runners with {others}"
    return f"{first.hit_share:.0%} of hits on {where}, which ran {first.run_share:.0%} of jobs"


@dataclass(frozen=True, slots=True)
class StoredFailure:
    """One recorded failing test with the evidence kept for it."""

    test_pk: int
    name: str
    status: str
    cause_kind: str
    cause_key: str
    tickets: tuple[tuple[str, str], ...]
    run_url: str
    run_at: int
    test_uuid: str
    input_path: str
    input_identity: str
    input_label: str
    source: str
    attachment: str
    location: str
    first_line: int
    text: str
    message: str


def stored_failures(store: Store, filters: Filters, *, since: int | None = None) -> list[StoredFailure]:
    """Every recorded failing test of the selected runs (recorded at or after `since`), oldest run first."""
    where, parameters = filters.where()
    if since is not None:
        where += " AND r.at >= ?"
        parameters.append(since)
    rows = store.query(
        "SELECT t.id, t.name, t.status, t.cause_kind, t.cause_key, f.tickets, r.run_url, r.at,"
        " e.test_uuid, e.input_path, e.input_identity, e.input_label, e.source, e.attachment, e.location, e.first_line, e.text,"
        " e.message"
        " FROM tests t JOIN runs r ON r.id = t.run"
        " LEFT JOIN findings f ON f.test = t.id LEFT JOIN evidence_logs e ON e.test = t.id"
        f" WHERE t.failing = 1 AND t.cause_key IS NOT NULL{VALID_TIME}{where} ORDER BY r.at, t.id",
        parameters,
    )
    failures = []
    for row in rows:
        pk, name, status, kind, key, tickets, run_url, run_at, *evidence = row
        uuid, path, identity, label, source, attachment, location, first_line, text, message = evidence
        failures.append(
            StoredFailure(
                test_pk=pk,
                name=name,
                status=status,
                cause_kind=kind,
                cause_key=key,
                tickets=tuple(
                    (str(item["key"]), str(item["url"])) for item in json_items(tickets, ("key", "url"))
                ),
                run_url=run_url,
                run_at=run_at,
                test_uuid=uuid or "",
                input_path=path or "",
                input_identity=identity or "",
                input_label=label or "",
                source=source or "",
                attachment=attachment or "",
                location=location or "",
                first_line=first_line or 1,
                text=text or "",
                message=message or "",
            )
        )
    return failures


MoveChange = Literal["explained", "changed", "lost"]  # unexplained → a cause, another cause, a cause → none
MoveSource = Literal["artifact", "evidence"]  # read again: the whole artifact, or the window the store kept


@dataclass(frozen=True, slots=True)
class Move:
    """One failing test whose verdict is different under today's rules."""

    test: str
    run_url: str
    run_at: datetime
    change: MoveChange
    before_kind: str  # as stored: "cause" or "unexplained"
    before_key: str
    after_kind: GroupKind
    after_key: str
    after_title: str
    source: MoveSource
    applied: bool


@dataclass(frozen=True, slots=True)
class Reanalysis:
    """What `ci-forensics reanalyze` found."""

    rules_loaded: int
    examined: int
    from_artifacts: int
    from_evidence: int
    moves: tuple[Move, ...]

    @property
    def applied(self) -> int:
        """Moves written into the store."""
        return sum(1 for move in self.moves if move.applied)
