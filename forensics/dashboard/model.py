"""The dashboard document as frozen data: what `forensics.store.dashboard.dashboard_data` returns, parsed."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime

CAUSE = "cause"
UNEXPLAINED = "unexplained"


@dataclass(frozen=True, slots=True)
class Sighting:
    """When and in which run a cause was first or last seen."""

    at: datetime
    run_id: int | None
    run_url: str
    head_sha: str


@dataclass(frozen=True, slots=True)
class Counts:
    """Failing tests a cause explains (or a fingerprint groups) over rolling windows."""

    last_24h: int
    last_7d: int
    last_30d: int
    total: int


@dataclass(frozen=True, slots=True)
class Ticket:
    """A ticket the failing tests link to."""

    key: str
    url: str


@dataclass(frozen=True, slots=True)
class EnvironmentShare:
    """How a cause's hits spread over one environment value, against how many runs that value ran."""

    dimension: str
    value: str
    hits: int
    hit_share: float
    run_share: float

    @property
    def lift(self) -> float:
        """How much more often the cause hits here than this value's share of jobs would predict."""
        return self.hit_share - self.run_share


@dataclass(frozen=True, slots=True)
class ExcerptLine:
    """One numbered log line around the evidence."""

    number: int
    text: str


@dataclass(frozen=True, slots=True)
class Evidence:
    """The log line that proves a cause, with the lines around it."""

    attachment: str
    line: int
    text: str
    excerpt: tuple[ExcerptLine, ...]


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
    kind: str
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

    def count(self, key: str) -> int:
        """Failures of one cause on this day."""
        return sum(count for cause_key, count in self.by_cause if cause_key == key)


@dataclass(frozen=True, slots=True)
class Totals:
    """The window's totals."""

    runs: int
    jobs: int
    failing_tests: int
    explained: int
    explained_share: float | None


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

    @property
    def unexplained_clusters(self) -> tuple[Cause, ...]:
        """The fingerprint clusters no rule explains."""
        return tuple(cause for cause in self.causes if not cause.explained)
