"""The questions the store answers, as typed answers: per root cause or fingerprint, since when, how often,
which tests, where (the share of its hits per runner label, GPU model, GPU memory and runner, against the
share of jobs that ran there); what changed since the last run of a workflow and branch (new, returning and
gone causes, tests that flake on one commit); and failing tests as the store kept them, for `reanalyze`.
Every answer is "as of" `now`: runs recorded with a later time are ignored, so a question asked about the
past gives the answer it would have given then. A job whose logs revealed no GPU inherits what its runner
was last seen with (runners keep their GPUs).
"""

from __future__ import annotations

import itertools
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Literal, get_args

from forensics.model import GroupKind
from forensics.store import queries
from forensics.store.base import Store
from forensics.store.environment import DIMENSIONS, GPU_DIMENSIONS, Fact
from forensics.store.queries import (
    VALID_TIME,
    Filters,
    HitRow,
    JobRow,
    OutcomeGroup,
    RunRow,
    json_items,
    stored_kind,
)
from forensics.store.writer import LOCAL_PROVIDER

DAY = 86400
__all__ = [
    "CauseHistory",
    "CauseStats",
    "DayTotals",
    "History",
    "Sighting",
    "TestCell",
    "TestHistory",
    "TestStrip",
    "Window",
    "cause_stats",
    "failing_test_histories",
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


ChangeStatus = Literal["new", "returning", "recurring", "gone"]
CHANGE_STATUSES: tuple[ChangeStatus, ...] = ("new", "returning", "recurring", "gone")


@dataclass(frozen=True, slots=True)
class CauseChange:
    """How a cause of the latest run relates to the runs before it (or that it is gone)."""

    key: str
    status: ChangeStatus
    hits: int  # in the latest run ("gone": in the previous one)
    quiet_days: int | None = None  # "returning": days since it was last seen before
    quiet_runs: int | None = None  # "returning", "recurring": runs of the series without it since then
    kind: GroupKind = "cause"
    first_seen: Sighting | None = None  # the series' first run with it


@dataclass(frozen=True, slots=True)
class SeriesChanges:
    """The latest run of one repository, workflow and branch against the run before it."""

    repository: str
    workflow: str
    branch: str
    latest: Sighting
    previous: Sighting | None
    changes: tuple[CauseChange, ...]
    last_good: Sighting | None = None  # the series' last run before the latest without a failing test


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
    runs: Sequence[RunRow], hits: Sequence[HitRow], *, quiet_days: int, quiet_runs: int | None = None
) -> tuple[SeriesChanges, ...]:
    """For each workflow and branch, the latest run's causes against the series' earlier runs.

    `new`: never seen before in the series; `returning`: last seen `quiet_days` or more days before (with
    `quiet_runs`: absent from that many runs or more of the series instead); `recurring`: seen within that
    time but not in the previous run; `gone`: in the previous run only. Causes that were in the previous run
    as well are not listed.
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
        last_seen: dict[str, tuple[int, int]] = {}  # key → (index in earlier, time) of its last run there
        first_seen: dict[str, RunRow] = {}
        kinds: dict[str, GroupKind] = {}
        for index, run in enumerate(members):
            for hit in hits_by_run[run.pk]:
                first_seen.setdefault(hit.key, run)
                kinds[hit.key] = hit.kind
                if run is not latest:
                    last_seen[hit.key] = (index, run.at)
        changes = []
        for key, count in now_keys.items():
            if key in before_keys:
                continue
            status: ChangeStatus = "new"
            days_quiet = runs_quiet = None
            if key in last_seen:
                index, at = last_seen[key]
                days_quiet, runs_quiet = (latest.at - at) // DAY, len(earlier) - 1 - index
                returning = runs_quiet >= quiet_runs if quiet_runs is not None else days_quiet >= quiet_days
                status = "returning" if returning else "recurring"
                days_quiet = days_quiet if returning else None
            changes.append(
                CauseChange(
                    key=key,
                    status=status,
                    hits=count,
                    quiet_days=days_quiet,
                    quiet_runs=runs_quiet,
                    kind=kinds[key],
                    first_seen=sighting(first_seen[key]),
                )
            )
        changes.extend(
            CauseChange(
                key=key, status="gone", hits=count, kind=kinds[key], first_seen=sighting(first_seen[key])
            )
            for key, count in before_keys.items()
            if key not in now_keys
        )
        good = next((run for run in reversed(earlier) if not hits_by_run[run.pk]), None)
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
                last_good=sighting(good) if good else None,
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


MIN_FLIPS = 3
"""A test whose outcome flipped between pass and fail this often in a window is flaky even across commits."""
_PASSED, _FAILED = "passed", ("failed", "broken")


@dataclass(frozen=True, slots=True)
class FlippingTest:
    """A flaky test of a window: it passed and failed on one commit and GPU (a re-run or a retry), or its
    outcome flipped `MIN_FLIPS` times or more on one GPU across the window's runs."""

    name: str
    repository: str
    executions: int  # tries that passed or failed (each retry is one)
    failed: int
    flips: (
        int  # changes from pass to fail or back between consecutive tries on the same GPU (or runner labels)
    )
    causes: tuple[str, ...]
    first_failed: Sighting
    last_failed: Sighting
    same_commit: bool  # it passed and failed on one commit and GPU

    @property
    def flip_rate(self) -> float:
        """Flips per try after the first: 1.0 alternates every time, a test broken once and for all is near 0."""
        return round(self.flips / (self.executions - 1), 4) if self.executions > 1 else 0.0


def window_outcomes(store: Store, window: Window, filters: Filters) -> tuple[queries.Outcome, ...]:
    """Every execution, in the window's runs, of the tests that failed in the window: read once for both
    `flipping_tests` and `failing_test_histories`. `filters` must be the ones the window was opened with."""
    return tuple(
        outcome
        for outcome in queries.outcomes_of_failing_tests(
            store, filters, since=window.start, until=window.as_of
        )
        if outcome.run_pk in window.runs
    )


def flipping_tests(
    window: Window, executions: Sequence[queries.Outcome], *, min_flips: int = MIN_FLIPS
) -> tuple[FlippingTest, ...]:
    """The window's flaky tests with their flip rate, highest first (`executions`: `window_outcomes`).

    What `flaky_tests` calls flaky (passed and failed on one commit, a retry included), and what flips
    `min_flips` times or more across runs, both counted per GPU (or per set of runner labels when no GPU is
    known): a test that fails on every A10G run and passes on every L40S run is GPU-bound, not flaky.
    """
    by_test: dict[tuple[str, str], list[queries.Outcome]] = defaultdict(list)
    for outcome in executions:
        by_test[(outcome.repository, outcome.test_key)].append(outcome)
    found = []
    for (repository, _), outcomes in by_test.items():
        tries: dict[frozenset[Fact], list[tuple[str, bool]]] = defaultdict(list)  # GPU → (commit, passed)
        for outcome in outcomes:
            where = _gpu_of(window.environments.facts.get(outcome.job_pk, frozenset()))
            commit = window.runs[outcome.run_pk].head_sha
            for status in (*outcome.previous_statuses, outcome.status):
                if status == _PASSED or status in _FAILED:
                    tries[where].append((commit, status == _PASSED))
        flips = sum(
            1 for one in tries.values() for before, after in itertools.pairwise(one) if before[1] != after[1]
        )
        on_one_commit: dict[tuple[frozenset[Fact], str], set[bool]] = defaultdict(set)
        for where, one in tries.items():
            for commit, passed in one:
                if commit:
                    on_one_commit[(where, commit)].add(passed)
        same_commit = any(len(outcomes_there) == 2 for outcomes_there in on_one_commit.values())
        failed_in = [o for o in outcomes if any(s in _FAILED for s in (*o.previous_statuses, o.status))]
        if not failed_in or (flips < min_flips and not same_commit):
            continue
        every_try = [passed for one in tries.values() for _, passed in one]
        found.append(
            FlippingTest(
                name=outcomes[-1].name,
                repository=repository,
                executions=len(every_try),
                failed=every_try.count(False),
                flips=flips,
                causes=tuple(dict.fromkeys(o.cause_key for o in outcomes if o.cause_key)),
                first_failed=sighting(window.runs[failed_in[0].run_pk]),
                last_failed=sighting(window.runs[failed_in[-1].run_pk]),
                same_commit=same_commit,
            )
        )
    return tuple(sorted(found, key=lambda test: (-test.flip_rate, -test.failed, test.name, test.repository)))


def _gpu_of(facts: frozenset[Fact]) -> frozenset[Fact]:
    """What a job ran on, for telling flaky from GPU-bound: its GPU facts, else its runner labels."""
    gpu = frozenset(fact for fact in facts if fact[0] in GPU_DIMENSIONS)
    return gpu or frozenset(fact for fact in facts if fact[0] == "runner_label")


@dataclass(frozen=True, slots=True)
class DayOutcomes:
    """What ran on one day (UTC): runs, and how their tests ended. `runs == 0` is a day without a run."""

    day: date
    runs: int
    passed: int
    failed: int
    skipped: int

    @property
    def executed(self) -> int:
        """Tests that ran to a pass or a failure."""
        return self.passed + self.failed


def day_outcomes(store: Store, window: Window) -> tuple[DayOutcomes, ...]:
    """Every day of the window (days without a run included): its runs and their passed, failed, skipped tests."""
    runs = window.window_runs
    outcomes = queries.run_outcomes(store, (run.pk for run in runs))
    per_day: dict[date, list[RunRow]] = defaultdict(list)
    for run in runs:
        per_day[moment(run.at).date()].append(run)
    first_day = window_start(window.now, window.days).date()
    found = []
    for offset in range(window.days):
        day = first_day + timedelta(days=offset)
        counted = [outcomes.get(run.pk, queries.RunOutcomes()) for run in per_day.get(day, [])]
        found.append(
            DayOutcomes(
                day=day,
                runs=len(counted),
                passed=sum(one.passed for one in counted),
                failed=sum(one.failed for one in counted),
                skipped=sum(one.skipped for one in counted),
            )
        )
    return tuple(found)


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


TestOutcome = Literal["passed", "failed", "unexplained", "skipped", "not-run"]
"""One run of a test's strip: passed, failed with a cause, failed unexplained, skipped, or not run at all."""
OUTCOMES: tuple[TestOutcome, ...] = get_args(TestOutcome)


@dataclass(frozen=True, slots=True)
class TestCell:
    """What one test did in one run of its series (its executions in every job of the run, combined)."""

    __test__ = False  # not a pytest class

    run: Sighting
    outcome: TestOutcome  # a failing execution wins over a passing one, which wins over a skipped one
    causes: tuple[str, ...]  # the cause keys or fingerprints of its failing executions
    retried: bool  # it failed and then passed on a retry within the run


@dataclass(frozen=True, slots=True)
class TestStrip:
    """A test's runs in one series (repository, workflow, branch) over the window, oldest first."""

    __test__ = False

    repository: str
    workflow: str
    branch: str
    cells: tuple[TestCell, ...]

    @property
    def failing_since(self) -> Sighting | None:
        """The first run of the failing streak its latest executed run is in; None when that run passed."""
        since = None
        for cell in reversed(self.cells):
            if cell.outcome in ("skipped", "not-run"):
                continue
            if cell.outcome == "passed":
                break
            since = cell.run
        return since


@dataclass(frozen=True, slots=True)
class TestHistory:
    """One test that failed in the window: its run strips, causes and tickets (whether it is flaky is for
    `flipping_tests` to say, per GPU)."""

    __test__ = False

    name: str
    strips: tuple[TestStrip, ...]
    causes: tuple[tuple[str, int], ...]  # cause key → its failing runs in the window, most first
    tickets: tuple[tuple[str, str], ...]  # (key, url) its failures linked to, most recent first


def failing_test_histories(
    store: Store, window: Window, executions: Sequence[queries.Outcome]
) -> tuple[TestHistory, ...]:
    """Every test that failed in the window, with a cell for each run of each series it belongs to.

    A test is its name, as the dashboard shows it. It belongs to a series when it ran (or was skipped) in at
    least one of the series' runs in the window; a run of that series without it is "not run". Most failing
    runs first, then by name. `executions`: `window_outcomes` of this window.
    """
    names = {hit.name for hit in window.window_hits}
    if not names:
        return ()
    series: dict[tuple[str, str, str], list[RunRow]] = defaultdict(list)
    for run in sorted(window.window_runs, key=lambda run: (run.at, run.pk)):
        series[(run.repository, run.workflow, run.branch)].append(run)
    per_test: dict[str, dict[int, list[queries.Outcome]]] = defaultdict(lambda: defaultdict(list))
    for outcome in executions:
        if outcome.name in names:
            per_test[outcome.name][outcome.run_pk].append(outcome)
    failing = [
        outcome.test_pk for outcome in executions if outcome.cause_key is not None and outcome.name in names
    ]
    tickets_by_test = {pk: finding.tickets for pk, finding in queries.findings(store, failing).items()}
    seen = {run.pk: sighting(run) for members in series.values() for run in members}
    histories = [
        _test_history(name, per_test[name], series, tickets_by_test, seen) for name in sorted(per_test)
    ]
    return tuple(sorted(histories, key=lambda test: (-sum(count for _, count in test.causes), test.name)))


def _test_history(
    name: str,
    by_run: dict[int, list[queries.Outcome]],
    series: dict[tuple[str, str, str], list[RunRow]],
    tickets_by_test: dict[int, tuple[tuple[str, str], ...]],
    seen: dict[int, Sighting],
) -> TestHistory:
    strips = []
    for (repository, workflow, branch), members in sorted(series.items()):
        if any(run.pk in by_run for run in members):
            cells = tuple(_cell(seen[run.pk], by_run.get(run.pk, [])) for run in members)
            strips.append(TestStrip(repository=repository, workflow=workflow, branch=branch, cells=cells))
    causes: Counter[str] = Counter(key for strip in strips for cell in strip.cells for key in cell.causes)
    tickets: dict[str, str] = {}  # key → url; the latest run first, a later one may supply a missing url
    latest_first = sorted((run for members in series.values() for run in members), key=lambda run: -run.at)
    for run in latest_first:
        for row in by_run.get(run.pk, ()):
            for key, url in tickets_by_test.get(row.test_pk, ()):
                if not tickets.get(key):
                    tickets[key] = url
    return TestHistory(
        name=name,
        strips=tuple(strips),
        causes=tuple(sorted(causes.items(), key=lambda item: (-item[1], item[0]))),
        tickets=tuple(tickets.items()),
    )


def _cell(run: Sighting, executions: Sequence[queries.Outcome]) -> TestCell:
    failing = [one for one in executions if one.status in _FAILED]
    passed = [one for one in executions if one.status == _PASSED]
    outcome: TestOutcome
    if failing:
        outcome = "failed" if any(one.cause_kind == "cause" for one in failing) else "unexplained"
    elif passed:
        outcome = "passed"
    elif executions:
        outcome = "skipped"
    else:
        outcome = "not-run"
    return TestCell(
        run=run,
        outcome=outcome,
        causes=tuple(dict.fromkeys(one.cause_key for one in failing if one.cause_key)),
        retried=not failing and any(status in _FAILED for one in passed for status in one.previous_statuses),
    )


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
    cause_kind: GroupKind
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
                cause_kind=stored_kind(kind),
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
    before_kind: GroupKind  # as stored
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
