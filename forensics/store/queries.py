"""The SQL behind the history questions: each function one query, returning small frozen rows.

Aggregation over time and environment happens in Python on these rows: the number of failing tests in a
year of nightlies is small (thousands), and dates in Python mean the same in SQLite and PostgreSQL.

A store an older ci-forensics wrote may hold runs with a time no date can hold (a result's `"start":
-1e18` was recorded as it was): every query leaves such runs out (VALID_TIME), and `skipped_rows` says
how many there are, so one bad row never breaks `history` or `dashboard`.

Which filter values a store knows (`known_values` and friends): `history --repo foo/bar` for a repository
never recorded is a typo, not "no failing tests", so the command names the value and the closest ones.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from forensics.model import GroupKind, Problem
from forensics.store.base import Store
from forensics.store.environment import GPU_DIMENSIONS, Fact
from forensics.values import MAX_EPOCH_SECONDS, MIN_EPOCH_SECONDS

_CHUNK = 500  # ids per IN (...) list
VALID_TIME = f" AND r.at BETWEEN {MIN_EPOCH_SECONDS} AND {MAX_EPOCH_SECONDS}"
"""The SQL condition (on runs aliased `r`) that keeps only runs whose time a date can hold."""


@dataclass(frozen=True, slots=True)
class Filters:
    """Which runs a question is about (None: all)."""

    repository: str | None = None
    workflow: str | None = None
    branch: str | None = None

    def where(self, alias: str = "r") -> tuple[str, list[Any]]:
        """SQL conditions on the runs table (`alias`) and their parameters."""
        clauses, parameters = [], []
        for column, value in (
            ("repository", self.repository),
            ("workflow", self.workflow),
            ("branch", self.branch),
        ):
            if value is not None:
                clauses.append(f"{alias}.{column} = ?")
                parameters.append(value)
        return "".join(f" AND {clause}" for clause in clauses), parameters


@dataclass(frozen=True, slots=True)
class RunRow:
    """A recorded run attempt."""

    pk: int
    provider: str
    repository: str
    run_id: int
    workflow: str
    branch: str
    head_sha: str
    run_url: str
    at: int


@dataclass(frozen=True, slots=True)
class HitRow:
    """A failing test and what it was attributed to."""

    test_pk: int
    run_pk: int
    job_pk: int
    name: str
    kind: GroupKind
    key: str
    at: int


@dataclass(frozen=True, slots=True)
class JobRow:
    """A job and what it ran on."""

    pk: int
    run_pk: int
    runner_name: str
    facts: frozenset[Fact]


@dataclass(frozen=True, slots=True)
class FindingRow:
    """The stored root cause or fingerprint of one failing test."""

    test_pk: int
    kind: GroupKind
    key: str
    title: str
    category: str
    summary: str
    advice: str
    tickets: tuple[tuple[str, str], ...]
    attachment: str
    line: int
    text: str
    excerpt: tuple[tuple[int, str], ...]


@dataclass(frozen=True, slots=True)
class OutcomeGroup:
    """One test on one commit: how often it passed and failed there."""

    repository: str
    head_sha: str
    test_key: str
    name: str
    passed: int
    failed: int
    runs: int
    causes: tuple[str, ...]


def runs(store: Store, filters: Filters) -> list[RunRow]:
    """Every recorded run the filters select, oldest first."""
    where, parameters = filters.where()
    rows = store.query(
        "SELECT r.id, r.provider, r.repository, r.run_id, r.workflow, r.branch, r.head_sha, r.run_url, r.at"
        f" FROM runs r WHERE 1 = 1{VALID_TIME}{where} ORDER BY r.at, r.id",
        parameters,
    )
    return [RunRow(*row) for row in rows]


def hits(store: Store, filters: Filters, *, key: str | None = None) -> list[HitRow]:
    """Every failing test of the selected runs (of one cause or fingerprint when `key` is given), oldest first."""
    where, parameters = filters.where()
    if key is not None:
        where += " AND t.cause_key = ?"
        parameters.append(key)
    rows = store.query(
        "SELECT t.id, t.run, t.job, t.name, t.cause_kind, t.cause_key, r.at FROM tests t JOIN runs r ON r.id = t.run"
        f" WHERE t.failing = 1 AND t.cause_key IS NOT NULL{VALID_TIME}{where} ORDER BY r.at, t.id",
        parameters,
    )
    return [
        HitRow(pk, run, job, name, stored_kind(kind), key, at) for pk, run, job, name, kind, key, at in rows
    ]


def skipped_rows(store: Store) -> list[Problem]:
    """What the queries leave out of this store because no date can hold it (see the module doc)."""
    count = store.scalar(
        f"SELECT COUNT(*) FROM runs r WHERE NOT (1 = 1{VALID_TIME})",
    )
    if not count:
        return []
    return [
        Problem(
            object=f"history store '{store.location}'",
            message=f"{count} recorded run(s) have a time no date can hold (before 1970 or after 9999); "
            "they are left out of every answer",
            hint="an older ci-forensics recorded a broken Allure time as it was; this one checks times "
            "when it reads results, so new recordings cannot add such runs",
        )
    ]


def jobs(store: Store, run_pks: Iterable[int]) -> list[JobRow]:
    """The jobs of these runs with their facts."""
    found: dict[int, tuple[int, str, set[Fact]]] = {}
    for chunk in _chunks(sorted(set(run_pks))):
        marks = ", ".join("?" * len(chunk))
        for pk, run_pk, runner, dimension, value in store.query(
            "SELECT j.id, j.run, j.runner_name, f.dimension, f.value FROM jobs j"
            f" LEFT JOIN job_facts f ON f.job = j.id WHERE j.run IN ({marks})",
            chunk,
        ):
            entry = found.setdefault(pk, (run_pk, runner, set()))
            if dimension is not None:
                entry[2].add((dimension, value))
    return [
        JobRow(pk, run_pk, runner, frozenset(facts)) for pk, (run_pk, runner, facts) in sorted(found.items())
    ]


def runner_gpus(store: Store) -> dict[str, frozenset[Fact]]:
    """The GPU facts last seen on each named runner: what jobs on it that revealed nothing ran on."""
    dimensions = ", ".join("?" * len(GPU_DIMENSIONS))
    latest: dict[tuple[str, str], tuple[int, str]] = {}
    for runner, dimension, value, at in store.query(
        "SELECT j.runner_name, f.dimension, f.value, MAX(r.at) FROM job_facts f JOIN jobs j ON j.id = f.job"
        f" JOIN runs r ON r.id = j.run WHERE j.runner_name <> '' AND f.dimension IN ({dimensions}){VALID_TIME}"
        " GROUP BY j.runner_name, f.dimension, f.value",
        GPU_DIMENSIONS,
    ):
        known = latest.get((runner, dimension))
        if known is None or (at, value) > known:
            latest[(runner, dimension)] = (at, value)
    result: dict[str, set[Fact]] = {}
    for (runner, dimension), (_, value) in latest.items():
        result.setdefault(runner, set()).add((dimension, value))
    return {runner: frozenset(facts) for runner, facts in result.items()}


def findings(store: Store, test_pks: Iterable[int]) -> dict[int, FindingRow]:
    """The stored findings of these failing tests, by test."""
    found: dict[int, FindingRow] = {}
    for chunk in _chunks(sorted(set(test_pks))):
        marks = ", ".join("?" * len(chunk))
        for row in store.query(
            "SELECT test, kind, key, title, category, summary, advice, tickets, attachment, line, text, excerpt"
            f" FROM findings WHERE test IN ({marks})",
            chunk,
        ):
            pk, kind, key, title, category, summary, advice, tickets, attachment, line, text, excerpt = row
            found[pk] = FindingRow(
                test_pk=pk,
                kind=stored_kind(kind),
                key=key,
                title=title,
                category=category,
                summary=summary,
                advice=advice,
                tickets=tuple(
                    (str(item["key"]), str(item["url"])) for item in json_items(tickets, ("key", "url"))
                ),
                attachment=attachment,
                line=line,
                text=text,
                excerpt=tuple(
                    (int(item["line"]), str(item["text"])) for item in json_items(excerpt, ("line", "text"))
                ),
            )
    return found


def outcomes_on_commits(store: Store, filters: Filters, *, since: int, until: int) -> list[OutcomeGroup]:
    """Tests that both passed and failed on one commit in runs between `since` and `until` (flaky candidates).

    Starts from the few failing (commit, test) pairs and looks up the other executions of each through the
    (repository, head_sha) and (job, test_key) indexes, instead of grouping every recorded outcome.
    """
    where, parameters = filters.where()
    rows = store.query(
        "WITH failed AS (SELECT DISTINCT r.repository, r.head_sha, t.test_key"
        " FROM tests t JOIN runs r ON r.id = t.run"
        f" WHERE t.cause_key IS NOT NULL AND r.at >= ? AND r.at <= ? AND r.head_sha <> ''{where})"
        " SELECT f.repository, f.head_sha, f.test_key, MIN(t.name),"
        " SUM(CASE WHEN t.status = 'passed' THEN 1 ELSE 0 END), SUM(t.failing), COUNT(DISTINCT r.id),"
        " MIN(t.cause_key), MAX(t.cause_key)"
        " FROM failed f"
        " JOIN runs r ON r.repository = f.repository AND r.head_sha = f.head_sha"
        " JOIN jobs j ON j.run = r.id"
        " JOIN tests t ON t.job = j.id AND t.test_key = f.test_key"
        f" WHERE r.at >= ? AND r.at <= ?{where}"
        " GROUP BY f.repository, f.head_sha, f.test_key"
        " HAVING SUM(CASE WHEN t.status = 'passed' THEN 1 ELSE 0 END) > 0",
        [since, until, *parameters, since, until, *parameters],
    )
    return [
        OutcomeGroup(repo, sha, key, name, int(passed), int(failed), int(count), _distinct(low, high))
        for repo, sha, key, name, passed, failed, count, low, high in rows
    ]


def passed_after_retries(store: Store, filters: Filters, *, since: int, until: int) -> list[OutcomeGroup]:
    """Tests that failed and then passed on a retry within one run between `since` and `until`."""
    where, parameters = filters.where()
    rows = store.query(
        "SELECT r.repository, r.head_sha, t.test_key, t.name, t.previous_statuses"
        " FROM tests t JOIN runs r ON r.id = t.run"
        f" WHERE r.at >= ? AND r.at <= ? AND t.retries > 0 AND t.status = 'passed'{where}",
        [since, until, *parameters],
    )
    found = []
    for repo, sha, key, name, previous in rows:
        failures = sum(1 for status in _json_list(previous) if status in ("failed", "broken"))
        if failures:
            found.append(OutcomeGroup(repo, sha, key, name, 1, failures, 1, ()))
    return found


def run_key(store: Store, provider: str, repository: str, run_id: int, run_attempt: int) -> int | None:
    """The primary key of one recorded run attempt, None when it is not in the store."""
    pk = store.scalar(
        "SELECT id FROM runs WHERE provider = ? AND repository = ? AND run_id = ? AND run_attempt = ?",
        (provider, repository, run_id, run_attempt),
    )
    return int(pk) if pk is not None else None


@dataclass(frozen=True, slots=True)
class OutcomeRow:
    """One execution record of a test in a run: its final status and the statuses of its earlier tries."""

    run_pk: int
    name: str
    status: str
    previous_statuses: tuple[str, ...]


def outcomes_of_tests(store: Store, run_pks: Sequence[int], names: Iterable[str]) -> list[OutcomeRow]:
    """Every outcome of the named tests in these runs (passing ones too), in no particular order."""
    wanted = sorted(set(names))
    found = []
    for chunk in _chunks(sorted(set(run_pks))):
        run_marks = ", ".join("?" * len(chunk))
        for start in range(0, len(wanted), _CHUNK):
            part = wanted[start : start + _CHUNK]
            rows = store.query(
                "SELECT t.run, t.name, t.status, t.previous_statuses FROM tests t"
                f" WHERE t.run IN ({run_marks}) AND t.name IN ({', '.join('?' * len(part))})",
                [*chunk, *part],
            )
            found += [
                OutcomeRow(run_pk, name, status, tuple(str(item) for item in _json_list(previous)))
                for run_pk, name, status, previous in rows
            ]
    return found


@dataclass(frozen=True, slots=True)
class Outcome:
    """One recorded execution of a test: its final status, the statuses of the tries before it, its cause."""

    repository: str
    test_key: str
    name: str
    run_pk: int
    job_pk: int
    status: str
    previous_statuses: tuple[str, ...]
    cause_key: str | None
    test_pk: int
    cause_kind: GroupKind | None  # a failing test's: a rule explained it, or only its fingerprint did


def outcomes_of_failing_tests(store: Store, filters: Filters, *, since: int, until: int) -> list[Outcome]:
    """Every execution between `since` and `until` of the tests that failed (or were retried) then, oldest first."""
    where, parameters = filters.where()
    # CROSS JOIN keeps SQLite (no statistics) from scanning every test for the OR; each execution is then
    # found through the (job, test_key) index. PostgreSQL plans both joins alike.
    rows = store.query(
        "WITH failed AS (SELECT DISTINCT r.repository, t.test_key FROM runs r CROSS JOIN tests t"
        f" WHERE t.run = r.id AND (t.failing = 1 OR t.retries > 0) AND r.at >= ? AND r.at <= ?{where})"
        " SELECT r.repository, t.test_key, t.name, r.id, t.job, t.status, t.previous_statuses, t.cause_key,"
        " t.id, t.cause_kind"
        " FROM runs r JOIN jobs j ON j.run = r.id JOIN failed f ON f.repository = r.repository"
        " JOIN tests t ON t.job = j.id AND t.test_key = f.test_key"
        f" WHERE r.at >= ? AND r.at <= ?{where} ORDER BY r.at, r.id, t.id",
        [since, until, *parameters, since, until, *parameters],
    )
    return [
        Outcome(
            repo,
            key,
            name,
            run_pk,
            job,
            status,
            tuple(str(item) for item in _json_list(previous)),
            cause,
            pk,
            None if kind is None else stored_kind(kind),
        )
        for repo, key, name, run_pk, job, status, previous, cause, pk, kind in rows
    ]


@dataclass(frozen=True, slots=True)
class RunOutcomes:
    """How the tests of one run ended."""

    passed: int = 0
    failed: int = 0  # failed or broken
    skipped: int = 0  # skipped or unknown: not executed as far as the results tell

    @property
    def executed(self) -> int:
        """Tests that ran to a pass or a failure."""
        return self.passed + self.failed


def run_outcomes(store: Store, run_pks: Iterable[int]) -> dict[int, RunOutcomes]:
    """Passed, failing and skipped tests of each of these runs (a run without tests is left out)."""
    counts: dict[int, dict[str, int]] = {}
    for chunk in _chunks(sorted(set(run_pks))):
        marks = ", ".join("?" * len(chunk))
        for run_pk, status, failing, count in store.query(
            f"SELECT run, status, failing, COUNT(*) FROM tests WHERE run IN ({marks}) GROUP BY run, status, failing",
            chunk,
        ):
            found = counts.setdefault(run_pk, {"passed": 0, "failed": 0, "skipped": 0})
            bucket = "failed" if failing else "passed" if status == "passed" else "skipped"
            found[bucket] += int(count)
    return {run_pk: RunOutcomes(**found) for run_pk, found in counts.items()}


def stored_kind(value: object) -> GroupKind:
    """A kind column as the writer stores it: 'cause' (a rule explained the test) or 'unexplained'. A damaged
    value reads as 'unexplained': it must never claim that a rule explained a test, and, like a damaged JSON
    column, it must not stop the store from answering."""
    return "cause" if value == "cause" else "unexplained"


def json_items(text: str | None, keys: tuple[str, ...]) -> list[dict[str, Any]]:
    """The objects of a stored JSON list that have every key; a damaged column reads as an empty list."""
    return [item for item in _json_list(text) if isinstance(item, dict) and all(key in item for key in keys)]


def _json_list(text: str | None) -> list[Any]:
    try:
        value = json.loads(text or "[]")
    except (ValueError, RecursionError):
        return []
    return value if isinstance(value, list) else []


def _distinct(low: str | None, high: str | None) -> tuple[str, ...]:
    return tuple(dict.fromkeys(key for key in (low, high) if key))


def _chunks(values: Sequence[int]) -> Iterable[list[int]]:
    for start in range(0, len(values), _CHUNK):
        yield list(values[start : start + _CHUNK])


_RUN_COLUMNS = {"repository": "--repo", "workflow": "--workflow", "branch": "--branch"}


@dataclass(frozen=True, slots=True)
class UnknownValue:
    """A filter value the store has never recorded, with the closest values it has (best first)."""

    option: str  # "--repo", "--workflow", "--branch", "--cause"
    value: str
    close: tuple[str, ...]
    known: int  # how many distinct values the store has for this option


def unknown_values(store: Store, filters: Filters, *, cause: str | None = None) -> tuple[UnknownValue, ...]:
    """Every given filter value that no recorded run (or failing test, for `cause`) has."""
    unknown = []
    for column, option in _RUN_COLUMNS.items():
        value = getattr(filters, column)
        if value is not None:
            # a fixed column name from the table above, never user text
            rows = store.query(f"SELECT DISTINCT {column} FROM runs")
            unknown += _check(option, value, [str(row[0]) for row in rows])
    if cause is not None:
        rows = store.query("SELECT DISTINCT cause_key FROM tests WHERE cause_key IS NOT NULL")
        unknown += _check("--cause", cause, [str(row[0]) for row in rows])
    return tuple(unknown)


def _check(option: str, value: str, known: list[str]) -> list[UnknownValue]:
    if value in known:
        return []
    close = difflib.get_close_matches(value, known, n=3, cutoff=0.6)
    if not close:  # a part of a name (`dynamo` for `ai-dynamo/dynamo`) is as good a clue as a near spelling
        close = sorted(name for name in known if value.lower() in name.lower())[:3]
    return [UnknownValue(option, value, tuple(close), len(known))]
