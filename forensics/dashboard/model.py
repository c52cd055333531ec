"""The dashboard document's own types; the rest it reuses from the model (`Evidence`, `ExcerptLine`,
`Ticket`) and the store's answers (`Sighting`, `EnvironmentShare`). `forensics.dashboard.document` builds,
writes and reads it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime

from forensics.model import Evidence, GroupKind, Ticket
from forensics.store.answers import (
    DayOutcomes,
    EnvironmentShare,
    FlippingTest,
    SeriesChanges,
    Sighting,
    TestHistory,
)
from forensics.store.queries import Filters

CAUSE: GroupKind = "cause"
UNEXPLAINED: GroupKind = "unexplained"


@dataclass(frozen=True, slots=True)
class Counts:
    """Failing tests a cause explains (or a fingerprint groups) over rolling windows."""

    last_24h: int
    last_7d: int
    last_30d: int
    total: int


@dataclass(frozen=True, slots=True)
class Example:
    """One failing test the cause explains, with its evidence."""

    test: str
    run_id: int | None
    run_url: str
    at: datetime
    summary: str
    evidence: Evidence | None


@dataclass(frozen=True, slots=True)
class Cause:
    """A root cause (a rule) or an unexplained cluster (a fingerprint) and everything known about it."""

    key: str
    kind: GroupKind
    title: str
    category: str | None
    advice: str
    first_seen: Sighting
    last_seen: Sighting
    counts: Counts
    tests: tuple[str, ...]
    tickets: tuple[Ticket, ...]
    environment: tuple[EnvironmentShare, ...]
    examples: tuple[Example, ...]
    executed_share: float | None = None  # its failing tests in the window per test executed (None: unknown)

    @property
    def explained(self) -> bool:
        """Whether a rule explains these failures (False for a fingerprint cluster)."""
        return self.kind == CAUSE


@dataclass(frozen=True, slots=True)
class Day:
    """Failing tests on one day, by cause key (unexplained ones under their fingerprint key)."""

    date: date
    failures: int
    explained: int
    by_cause: tuple[tuple[str, int], ...]
    ran: DayOutcomes | None = None  # runs and test outcomes; None when the document does not say (1.0)

    def count(self, key: str) -> int:
        """Failures of one cause on this day."""
        return sum(count for cause_key, count in self.by_cause if cause_key == key)

    @property
    def no_run(self) -> bool:
        """Nothing ran this day (not the same as a day whose runs all passed)."""
        return self.ran is not None and self.ran.runs == 0

    @property
    def pass_rate(self) -> float | None:
        """Passed tests per test executed; None without a test executed (or when unknown)."""
        return pass_rate(self.ran.passed, self.ran.executed) if self.ran is not None else None


@dataclass(frozen=True, slots=True)
class Totals:
    """The window's totals."""

    runs: int
    jobs: int
    failing_tests: int
    explained: int
    explained_share: float | None
    tests_run: int | None = None  # executed (passed or failed) in the window; None when unknown (1.0)
    passed: int | None = None
    days_without_run: int | None = None

    @property
    def pass_rate(self) -> float | None:
        """Passed tests per test executed in the window; None without one (or when unknown)."""
        return pass_rate(self.passed, self.tests_run) if self.passed is not None else None


def pass_rate(passed: int, executed: int | None) -> float | None:
    """`passed / executed` to four places; None when nothing was executed."""
    return round(passed / executed, 4) if executed else None


@dataclass(frozen=True, slots=True)
class SinceLastRun:
    """What changed in each workflow and branch of the scope with its latest run (see `series_changes`)."""

    returning_after_runs: int  # a cause absent from this many runs or more is "returning", not "recurring"
    series: tuple[SeriesChanges, ...]


@dataclass(frozen=True, slots=True)
class Flaky:
    """The window's flaky tests (see `flipping_tests`), with the flip count that makes a test flaky across runs."""

    min_flips: int
    tests: tuple[FlippingTest, ...]


@dataclass(frozen=True, slots=True)
class MatrixRow:
    """One cause's failures per environment value."""

    key: str
    title: str
    cells: tuple[tuple[str, int], ...]

    def count(self, column: str) -> int:
        """Failures of this cause on one environment value (0 when none)."""
        return sum(count for name, count in self.cells if name == column)


@dataclass(frozen=True, slots=True)
class Matrix:
    """Causes × the values of one environment dimension (runner label, GPU model, …)."""

    dimension: str
    columns: tuple[str, ...]
    rows: tuple[MatrixRow, ...]


@dataclass(frozen=True, slots=True)
class Dashboard:
    """The whole dashboard document."""

    schema_version: str
    generated_at: datetime
    window_days: int
    totals: Totals
    days: tuple[Day, ...]
    causes: tuple[Cause, ...]
    matrix: Matrix
    tests: tuple[TestHistory, ...] = ()  # every test that failed in the window, most failing runs first (1.1)
    # the repository, workflow and branch it covers (None: all); Filters is frozen, so sharing it is safe
    scope: Filters = Filters()  # noqa: RUF009
    since_last_run: SinceLastRun | None = None  # None when the document does not say (1.0)
    flaky: Flaky | None = None

    def cause(self, key: str) -> Cause | None:
        """The cause or cluster with this key, if the window has it."""
        return next((cause for cause in self.causes if cause.key == key), None)

    @property
    def unexplained_clusters(self) -> tuple[Cause, ...]:
        """The fingerprint clusters no rule explains."""
        return tuple(cause for cause in self.causes if not cause.explained)
