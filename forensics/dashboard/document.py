"""The dashboard document, one contract in one place: `build` it from the store as a typed `Dashboard`, write it
with `to_json` (the `data.json` other dashboards read, schema 1.x: fields are only added within 1.x), and
`parse` such a document back. `parse(to_json(build(store)))` equals what `build` returned.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import replace
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any, Literal

import regex

from forensics.dashboard.model import (
    CAUSE,
    UNEXPLAINED,
    Cause,
    Counts,
    Dashboard,
    Day,
    Example,
    Flaky,
    Matrix,
    MatrixRow,
    SinceLastRun,
    Totals,
)
from forensics.errors import ResultsError
from forensics.inputs.archive import open_regular
from forensics.inputs.tickets import system_of
from forensics.model import RETURNING_AFTER_RUNS, TICKET_SYSTEMS, Evidence, ExcerptLine, GroupKind, Ticket
from forensics.render.answer_json import iso, share_to_dict, sighting_to_dict
from forensics.store import queries
from forensics.store.answers import (
    CHANGE_STATUSES,
    MIN_FLIPS,
    OUTCOMES,
    CauseChange,
    CauseHistory,
    ChangeStatus,
    DayOutcomes,
    EnvironmentShare,
    FlippingTest,
    SeriesChanges,
    Sighting,
    TestCell,
    TestHistory,
    TestStrip,
    Window,
    cause_histories,
    day_outcomes,
    day_totals,
    failing_test_histories,
    flipping_tests,
    moment,
    open_window,
    series_changes,
    window_outcomes,
    window_start,
)
from forensics.store.base import Store
from forensics.store.queries import Filters, FindingRow, HitRow
from forensics.store.writer import LOCAL_PROVIDER

SCHEMA_VERSION = "1.1"  # 1.1: scope, since_last_run, flaky, tests run and pass rate, a ticket's system
SUPPORTED_MAJOR = "1"
MAX_EXAMPLES = 3
MATRIX_DIMENSIONS = ("gpu_model", "gpu_memory", "runner_label", "runner")  # the first with two values wins
MAX_DATA_BYTES = 512 * 1024 * 1024  # a data.json of years of nightlies is a few MiB
_DIGITS = regex.compile(r"(\d+)")
_HINT = "build the document with forensics.dashboard_data(), or use a data.json written by `ci-forensics dashboard`"


# --- build: the store's answers as a Dashboard ---------------------------------------------------------------


def build(
    store: Store,
    *,
    now: datetime | None = None,
    days: int = 30,
    filters: Filters | None = None,
    returning_after_runs: int = RETURNING_AFTER_RUNS,
    min_flips: int = MIN_FLIPS,
) -> Dashboard:
    """Totals, every day of the window with what ran, each cause with its examples and environment, a cause ×
    GPU matrix, what changed with each workflow's latest run, and the flaky tests, for the runs `filters`
    select."""
    now = (now or datetime.now(UTC)).astimezone(UTC).replace(microsecond=0)  # the document keeps seconds
    filters = filters or Filters()
    window = open_window(store, now=now, days=days, filters=filters)
    executions = window_outcomes(store, window, filters)  # read once: flaky tests and test pages
    histories = cause_histories(store, window)
    window_hits = window.window_hits
    recent: dict[str, list[HitRow]] = defaultdict(list)
    for hit in reversed(window_hits):
        recent[hit.key].append(hit)
    stored = queries.findings(store, (hit.test_pk for hit in window_hits))
    explained = sum(1 for hit in window_hits if hit.kind == CAUSE)
    ran = day_outcomes(store, window)
    tests_run = sum(day.executed for day in ran)
    # quiet_days has no say once quiet_runs is given: "returning" counts the workflow's runs, not days
    changes = series_changes(
        list(window.runs.values()), window.hits, quiet_days=0, quiet_runs=returning_after_runs
    )
    return Dashboard(
        schema_version=SCHEMA_VERSION,
        generated_at=now,
        window_days=days,
        totals=Totals(
            runs=len(window.window_runs),
            jobs=window.environments.job_total,
            failing_tests=len(window_hits),
            explained=explained,
            explained_share=round(explained / len(window_hits), 4) if window_hits else None,
            tests_run=tests_run,
            passed=sum(day.passed for day in ran),
            days_without_run=sum(1 for day in ran if day.runs == 0),
        ),
        days=tuple(
            Day(
                date=day.day,
                failures=day.failures,
                explained=day.explained,
                by_cause=day.by_cause,
                ran=outcomes,
            )
            for day, outcomes in zip(day_totals(window_hits, now=now, days=days), ran, strict=True)
        ),
        causes=tuple(
            _built_cause(history, recent[history.key], stored, window, tests_run=tests_run)
            for history in histories
        ),
        matrix=_built_matrix(histories, recent, window),
        scope=filters,
        since_last_run=SinceLastRun(
            returning_after_runs=returning_after_runs,
            series=tuple(one for one in changes if one.latest.at >= moment(window.start)),
        ),
        flaky=Flaky(min_flips=min_flips, tests=flipping_tests(window, executions, min_flips=min_flips)),
        tests=failing_test_histories(store, window, executions),
    )


SplitBy = Literal["repository", "workflow", "branch"]
_ALL = {"repository": "All repositories", "workflow": "All workflows", "branch": "All branches"}


def build_scopes(
    store: Store,
    *,
    split_by: SplitBy,
    now: datetime | None = None,
    days: int = 30,
    filters: Filters | None = None,
    returning_after_runs: int = RETURNING_AFTER_RUNS,
) -> tuple[tuple[str, Dashboard], ...]:
    """The whole scope first ("All workflows", …), then one document per repository, workflow or branch that
    ran in the window: what a site with a scope switcher shows (`write_scoped_dashboards`)."""
    now = (now or datetime.now(UTC)).astimezone(UTC).replace(microsecond=0)
    filters = filters or Filters()
    start, as_of = window_start(now, days).timestamp(), now.timestamp()
    values = sorted(
        {getattr(run, split_by) for run in queries.runs(store, filters) if start <= run.at <= as_of}
    )
    returning = returning_after_runs
    documents = [
        (_ALL[split_by], build(store, now=now, days=days, filters=filters, returning_after_runs=returning))
    ]
    documents += [
        (
            value or "(none)",
            build(
                store,
                now=now,
                days=days,
                filters=replace(filters, **{split_by: value}),
                returning_after_runs=returning,
            ),
        )
        for value in values
    ]
    return tuple(documents)


def dashboard_data(
    store: Store, *, now: datetime | None = None, days: int = 30, filters: Filters | None = None
) -> dict[str, Any]:
    """The dashboard document as JSON-ready data (what `data.json` holds): `to_json(build(…))`."""
    return to_json(build(store, now=now, days=days, filters=filters))


def _built_cause(
    history: CauseHistory,
    recent: list[HitRow],
    stored: dict[int, FindingRow],
    window: Window,
    *,
    tests_run: int,
) -> Cause:
    tickets: dict[str, str] = {}  # key → url, most recent hit first; a later hit may supply a missing url
    for hit in recent:
        finding = stored.get(hit.test_pk)
        for key, url in finding.tickets if finding else ():
            if not tickets.get(key):
                tickets[key] = url
    stats = history.stats
    return Cause(
        key=history.key,
        kind=history.kind,
        title=history.title,
        category=history.category or None,
        advice=history.advice,
        first_seen=history.first_seen,
        last_seen=history.last_seen,
        counts=Counts(
            last_24h=stats.count_24h, last_7d=stats.count_7d, last_30d=stats.count_30d, total=stats.total
        ),
        tests=history.tests,
        tickets=tuple(Ticket(system=system_of(key, url), key=key, url=url) for key, url in tickets.items()),
        environment=history.environment,
        examples=tuple(
            _built_example(hit, stored[hit.test_pk], window)
            for hit in recent[:MAX_EXAMPLES]
            if hit.test_pk in stored
        ),
        executed_share=round(history.window_hits / tests_run, 4) if tests_run else None,
    )


def _built_example(hit: HitRow, finding: FindingRow, window: Window) -> Example:
    run = window.runs[hit.run_pk]
    unexplained = finding.kind == UNEXPLAINED
    return Example(
        test=hit.name,
        run_id=None if run.provider == LOCAL_PROVIDER else run.run_id,
        run_url=run.run_url,
        at=moment(run.at),
        # An unexplained finding's summary is its last error line (shown as the evidence) or, since 0.2, its
        # likely cause, which says why that line was chosen.
        summary="" if unexplained and finding.summary == finding.text else finding.summary,
        evidence=Evidence(
            attachment=finding.attachment,
            line=finding.line,
            text=finding.text or (finding.summary if unexplained else ""),
            excerpt=tuple(ExcerptLine(number=number, text=text) for number, text in finding.excerpt),
        ),
    )


def _built_matrix(
    histories: tuple[CauseHistory, ...], recent: dict[str, list[HitRow]], window: Window
) -> Matrix:
    environments = window.environments
    candidates = [(dimension, environments.columns(dimension)) for dimension in MATRIX_DIMENSIONS]
    dimension, columns = next(
        (found for found in candidates if len(found[1]) >= 2),
        next((found for found in candidates if found[1]), (MATRIX_DIMENSIONS[0], [])),
    )
    columns = sorted(columns, key=_natural)
    rows = []
    for history in histories:
        cells: dict[str, int] = defaultdict(int)
        for hit in recent[history.key]:
            for found, value in environments.facts.get(hit.job_pk, ()):
                if found == dimension:
                    cells[value] += 1
        rows.append(
            MatrixRow(
                key=history.key,
                title=history.title,
                cells=tuple((column, cells[column]) for column in columns if cells[column]),
            )
        )
    return Matrix(dimension=dimension, columns=tuple(columns), rows=tuple(rows))


def _natural(text: str) -> list[Any]:
    """`8 GiB` before `22 GiB`: digits compare as numbers."""
    return [int(part) if part.isdigit() else part for part in _DIGITS.split(text)]


# --- to_json: the Dashboard as data.json ----------------------------------------------------------------------


def to_json(dashboard: Dashboard) -> dict[str, Any]:
    """The document as JSON-ready data (`json.dumps` it for `data.json`)."""
    totals = dashboard.totals
    return {
        "schema_version": dashboard.schema_version,
        "generated_at": iso(dashboard.generated_at),
        "window_days": dashboard.window_days,
        "totals": {
            "runs": totals.runs,
            "jobs": totals.jobs,
            "failing_tests": totals.failing_tests,
            "explained": totals.explained,
            "explained_share": totals.explained_share,
            "tests_run": totals.tests_run,
            "passed": totals.passed,
            "pass_rate": totals.pass_rate,
            "days_without_run": totals.days_without_run,
        },
        "days": [_day_json(day) for day in dashboard.days],
        "causes": [_cause_json(cause) for cause in dashboard.causes],
        "matrix": {
            "dimension": dashboard.matrix.dimension,
            "columns": list(dashboard.matrix.columns),
            "rows": [
                {"key": row.key, "title": row.title, "cells": dict(row.cells)}
                for row in dashboard.matrix.rows
            ],
        },
        "scope": {
            "repository": dashboard.scope.repository,
            "workflow": dashboard.scope.workflow,
            "branch": dashboard.scope.branch,
        },
        "since_last_run": None
        if dashboard.since_last_run is None
        else {
            "returning_after_runs": dashboard.since_last_run.returning_after_runs,
            "series": [_series_json(series) for series in dashboard.since_last_run.series],
        },
        "flaky": None
        if dashboard.flaky is None
        else {
            "min_flips": dashboard.flaky.min_flips,
            "tests": [_flaky_json(test) for test in dashboard.flaky.tests],
        },
        "test_history": _test_history_json(dashboard.tests),
    }


def _day_json(day: Day) -> dict[str, Any]:
    found: dict[str, Any] = {
        "date": day.date.isoformat(),
        "failures": day.failures,
        "explained": day.explained,
        "by_cause": dict(day.by_cause),
    }
    if day.ran is not None:
        found |= {
            "runs": day.ran.runs,
            "tests_run": day.ran.executed,
            "passed": day.ran.passed,
            "skipped": day.ran.skipped,
            "pass_rate": day.pass_rate,
        }
    return found


def _series_json(series: SeriesChanges) -> dict[str, Any]:
    return {
        "repository": series.repository,
        "workflow": series.workflow,
        "branch": series.branch,
        "latest": sighting_to_dict(series.latest),
        "previous": _optional_sighting(series.previous),
        "last_good": _optional_sighting(series.last_good),
        "changes": [
            {
                "key": change.key,
                "kind": change.kind,
                "status": change.status,
                "hits": change.hits,
                "quiet_runs": change.quiet_runs,
                "quiet_days": change.quiet_days,
                "first_seen": _optional_sighting(change.first_seen),
            }
            for change in series.changes
        ],
    }


def _flaky_json(test: FlippingTest) -> dict[str, Any]:
    return {
        "test": test.name,
        "repository": test.repository,
        "executions": test.executions,
        "failed": test.failed,
        "flips": test.flips,
        "flip_rate": test.flip_rate,
        "causes": list(test.causes),
        "same_commit": test.same_commit,
        "first_failed": sighting_to_dict(test.first_failed),
        "last_failed": sighting_to_dict(test.last_failed),
    }


def _optional_sighting(seen: Sighting | None) -> dict[str, Any] | None:
    return None if seen is None else sighting_to_dict(seen)


def _cause_json(cause: Cause) -> dict[str, Any]:
    counts = cause.counts
    return {
        "key": cause.key,
        "kind": cause.kind,
        "title": cause.title,
        "category": cause.category,
        "advice": cause.advice,
        "first_seen": sighting_to_dict(cause.first_seen),
        "last_seen": sighting_to_dict(cause.last_seen),
        "counts": {
            "24h": counts.last_24h,
            "7d": counts.last_7d,
            "30d": counts.last_30d,
            "total": counts.total,
        },
        "tests": list(cause.tests),
        "tickets": [
            {"key": ticket.key, "url": ticket.url, "system": ticket.system} for ticket in cause.tickets
        ],
        "environment": [share_to_dict(share) for share in cause.environment],
        "examples": [_example_json(example) for example in cause.examples],
        "executed_share": cause.executed_share,
    }


def _example_json(example: Example) -> dict[str, Any]:
    evidence = example.evidence
    return {
        "test": example.test,
        "run_id": example.run_id,
        "run_url": example.run_url,
        "at": iso(example.at),
        "summary": example.summary,
        "evidence": None
        if evidence is None
        else {
            "attachment": evidence.attachment,
            "line": evidence.line,
            "text": evidence.text,
            "excerpt": [{"line": line.number, "text": line.text} for line in evidence.excerpt],
        },
    }


def _test_history_json(tests: tuple[TestHistory, ...]) -> dict[str, Any]:
    """Each series' runs once, then each test's cells in the order of its series' runs (1.1)."""
    series: dict[tuple[str, str, str], tuple[Sighting, ...]] = {}
    for test in tests:
        for strip in test.strips:
            series.setdefault(_series_key(strip), tuple(cell.run for cell in strip.cells))
    index = {key: number for number, key in enumerate(series)}
    return {
        "series": [
            {
                "repository": repository,
                "workflow": workflow,
                "branch": branch,
                "runs": [sighting_to_dict(run) for run in runs],
            }
            for (repository, workflow, branch), runs in series.items()
        ],
        "tests": [
            {
                "name": test.name,
                "causes": dict(test.causes),
                "tickets": [{"key": key, "url": url} for key, url in test.tickets],
                "strips": [
                    {
                        "series": index[_series_key(strip)],
                        "cells": [_cell_json(cell) for cell in strip.cells],
                    }
                    for strip in test.strips
                ],
            }
            for test in tests
        ],
    }


def _cell_json(cell: TestCell) -> dict[str, Any]:
    """`{"outcome": "passed"}`; `causes` only when it failed, `retried` only when true (a window of a few hundred
    tests × runs stays small)."""
    found: dict[str, Any] = {"outcome": cell.outcome}
    if cell.causes:
        found["causes"] = list(cell.causes)
    if cell.retried:
        found["retried"] = True
    return found


def _series_key(strip: TestStrip) -> tuple[str, str, str]:
    return (strip.repository, strip.workflow, strip.branch)


# --- parse: data.json (or dashboard_data()) back into a Dashboard ---------------------------------------------


def read_data_file(path: Path) -> dict[str, Any]:
    """A saved dashboard document (`data.json`) as a mapping; a `ResultsError` when it cannot be read as one."""
    try:
        with open_regular(path) as stream:  # a FIFO given as --data would block a plain read forever
            raw = stream.read(MAX_DATA_BYTES + 1)
        if len(raw) > MAX_DATA_BYTES:
            raise ResultsError(
                f"dashboard data {path} is larger than {MAX_DATA_BYTES >> 20} MiB", hint="check the file"
            )
        text = raw.decode("utf-8")
    except FileNotFoundError:
        raise ResultsError(
            f"dashboard data {path} does not exist",
            hint="pass the data.json an earlier `ci-forensics dashboard` wrote, or build from the store with --store",
        ) from None
    except (OSError, UnicodeDecodeError) as err:
        raise ResultsError(f"cannot read dashboard data {path}: {err}", hint="check the file") from err
    try:
        document = json.loads(text)
    except json.JSONDecodeError as err:
        raise ResultsError(
            f"dashboard data {path} is not JSON: {err.msg} at line {err.lineno}, column {err.colno}",
            hint=_HINT,
        ) from err
    if not isinstance(document, dict):
        raise ResultsError(f"dashboard data {path} is not a JSON object", hint=_HINT)
    return document


def parse(data: Mapping[str, Any], *, source: str = "dashboard data") -> Dashboard:
    """The document as a `Dashboard`; a `ResultsError` naming the field when it does not fit schema 1.x."""
    root = _Node(data, "", source)
    version = root.field("schema_version").text()
    if version.split(".")[0] != SUPPORTED_MAJOR:
        raise ResultsError(
            f"{source}: schema_version {version} is not supported (this ci-forensics reads {SUPPORTED_MAJOR}.x)",
            hint="upgrade ci-forensics, or build the data with the ci-forensics that will render it",
        )
    totals = root.field("totals")
    matrix = root.field("matrix")
    return Dashboard(
        schema_version=version,
        generated_at=root.field("generated_at").timestamp(),
        window_days=root.field("window_days").integer(),
        totals=Totals(
            runs=totals.field("runs").integer(),
            jobs=totals.field("jobs").integer(),
            failing_tests=totals.field("failing_tests").integer(),
            explained=totals.field("explained").integer(),
            explained_share=totals.optional("explained_share").share_or_none(),
            tests_run=totals.optional("tests_run").integer_or_none(),
            passed=totals.optional("passed").integer_or_none(),
            days_without_run=totals.optional("days_without_run").integer_or_none(),
        ),
        days=tuple(_day(node) for node in root.field("days").items()),
        causes=_causes(root.field("causes")),
        matrix=Matrix(
            dimension=matrix.field("dimension").text(),
            columns=tuple(node.text() for node in matrix.field("columns").items()),
            rows=tuple(
                MatrixRow(
                    key=row.field("key").text(),
                    title=row.field("title").text(),
                    cells=row.field("cells").counts_by_name(),
                )
                for row in matrix.field("rows").items()
            ),
        ),
        scope=_scope(root.optional("scope")),
        since_last_run=_since_last_run(root.optional("since_last_run")),
        flaky=_flaky(root.optional("flaky")),
        tests=_test_histories(root.optional("test_history")),
    )


def _day(node: _Node) -> Day:
    day = node.field("date").day()
    runs = node.optional("runs").integer_or_none()
    ran = None
    if runs is not None:  # a 1.0 document does not say what ran
        executed, passed = node.field("tests_run").integer(), node.field("passed").integer()
        skipped = node.optional("skipped").integer_or_none() or 0
        ran = DayOutcomes(day=day, runs=runs, passed=passed, failed=executed - passed, skipped=skipped)
    return Day(
        date=day,
        failures=node.field("failures").integer(),
        explained=node.field("explained").integer(),
        by_cause=node.field("by_cause").counts_by_name(),
        ran=ran,
    )


def _scope(node: _Node) -> Filters:
    if node.value is None:
        return Filters()
    return Filters(
        repository=node.optional("repository").text_or_none(),
        workflow=node.optional("workflow").text_or_none(),
        branch=node.optional("branch").text_or_none(),
    )


def _since_last_run(node: _Node) -> SinceLastRun | None:
    if node.value is None:
        return None
    return SinceLastRun(
        returning_after_runs=node.field("returning_after_runs").integer(),
        series=tuple(
            SeriesChanges(
                repository=series.field("repository").text(),
                workflow=series.field("workflow").text(),
                branch=series.field("branch").text(),
                latest=_sighting(series.field("latest")),
                previous=_optional_sighting_node(series.optional("previous")),
                last_good=_optional_sighting_node(series.optional("last_good")),
                changes=tuple(_change(change) for change in series.optional("changes").items()),
            )
            for series in node.optional("series").items()
        ),
    )


def _change(node: _Node) -> CauseChange:
    return CauseChange(
        key=node.field("key").text(),
        status=_status(node.field("status")),
        hits=node.field("hits").integer(),
        quiet_days=node.optional("quiet_days").integer_or_none(),
        quiet_runs=node.optional("quiet_runs").integer_or_none(),
        kind=_kind(node.field("kind")),
        first_seen=_optional_sighting_node(node.optional("first_seen")),
    )


def _status(node: _Node) -> ChangeStatus:
    status = node.text()
    for known in CHANGE_STATUSES:
        if status == known:
            return known
    raise node.fail(f"should be one of {', '.join(map(repr, CHANGE_STATUSES))}, not {status!r}")


def _flaky(node: _Node) -> Flaky | None:
    if node.value is None:
        return None
    return Flaky(
        min_flips=node.field("min_flips").integer(),
        tests=tuple(
            FlippingTest(
                name=test.field("test").text(),
                repository=test.optional("repository").text_or_empty(),
                executions=test.field("executions").integer(),
                failed=test.field("failed").integer(),
                flips=test.field("flips").integer(),
                causes=tuple(cause.text() for cause in test.optional("causes").items()),
                first_failed=_sighting(test.field("first_failed")),
                last_failed=_sighting(test.field("last_failed")),
                same_commit=test.optional("same_commit").flag(),
            )
            for test in node.optional("tests").items()
        ),
    )


def _optional_sighting_node(node: _Node) -> Sighting | None:
    return None if node.value is None else _sighting(node)


def _causes(node: _Node) -> tuple[Cause, ...]:
    causes: dict[str, Cause] = {}
    for item in node.items():
        cause = _cause(item)
        if cause.key in causes:
            raise item.field("key").fail(f"{cause.key!r} appears twice in causes")
        causes[cause.key] = cause
    return tuple(causes.values())


def _cause(node: _Node) -> Cause:
    counts = node.field("counts")
    return Cause(
        key=node.field("key").text(),
        kind=_kind(node.field("kind")),
        title=node.field("title").text(),
        category=node.optional("category").text_or_empty() or None,
        advice=node.optional("advice").text_or_empty(),
        first_seen=_sighting(node.field("first_seen")),
        last_seen=_sighting(node.field("last_seen")),
        counts=Counts(
            last_24h=counts.field("24h").integer(),
            last_7d=counts.field("7d").integer(),
            last_30d=counts.field("30d").integer(),
            total=counts.field("total").integer(),
        ),
        tests=tuple(test.text() for test in node.optional("tests").items()),
        tickets=tuple(_ticket(ticket) for ticket in node.optional("tickets").items()),
        environment=tuple(
            EnvironmentShare(
                dimension=share.field("dimension").text(),
                value=share.field("value").text(),
                hits=share.field("hits").integer(),
                hit_share=share.field("hit_share").share(),
                run_share=share.field("run_share").share(),
            )
            for share in node.optional("environment").items()
        ),
        examples=tuple(_example(example) for example in node.optional("examples").items()),
        executed_share=node.optional("executed_share").share_or_none(),
    )


def _kind(node: _Node) -> GroupKind:
    kind = node.text()
    if kind == CAUSE:
        return CAUSE
    if kind == UNEXPLAINED:
        return UNEXPLAINED
    raise node.fail(f"should be {CAUSE!r} or {UNEXPLAINED!r}, not {kind!r}")


def _ticket(node: _Node) -> Ticket:
    key = node.field("key").text()
    url = node.optional("url").text_or_empty()
    system = node.optional("system")
    if system.value is None:  # 1.0 kept key and URL only: read them as a link would be
        return Ticket(system=system_of(key, url), key=key, url=url)
    for known in TICKET_SYSTEMS:
        if system.text() == known:
            return Ticket(system=known, key=key, url=url)
    raise system.fail(f"should be one of {', '.join(map(repr, TICKET_SYSTEMS))}, not {system.value!r}")


def _sighting(node: _Node) -> Sighting:
    return Sighting(
        at=node.field("at").timestamp(),
        run_id=node.optional("run_id").integer_or_none(),
        run_url=node.optional("run_url").text_or_empty(),
        head_sha=node.optional("head_sha").text_or_empty(),
    )


def _example(node: _Node) -> Example:
    evidence = node.optional("evidence")
    return Example(
        test=node.field("test").text(),
        run_id=node.optional("run_id").integer_or_none(),
        run_url=node.optional("run_url").text_or_empty(),
        at=node.field("at").timestamp(),
        summary=node.optional("summary").text_or_empty(),
        evidence=None if evidence.value is None else _evidence(evidence),
    )


def _evidence(node: _Node) -> Evidence:
    return Evidence(
        attachment=node.optional("attachment").text_or_empty(),
        line=node.field("line").integer(),
        text=node.field("text").text(),
        excerpt=tuple(
            ExcerptLine(number=line.field("line").integer(), text=line.field("text").text())
            for line in node.optional("excerpt").items()
        ),
    )


def _test_histories(node: _Node) -> tuple[TestHistory, ...]:
    """The `test_history` a 1.1 document carries (none in a 1.0 one)."""
    if node.value is None:
        return ()
    series = [
        (
            item.optional("repository").text_or_empty(),
            item.optional("workflow").text_or_empty(),
            item.optional("branch").text_or_empty(),
            tuple(_sighting(run) for run in item.field("runs").items()),
        )
        for item in node.field("series").items()
    ]
    return tuple(_test_history(item, series) for item in node.field("tests").items())


def _test_history(node: _Node, series: list[tuple[str, str, str, tuple[Sighting, ...]]]) -> TestHistory:
    strips = []
    for strip in node.field("strips").items():
        number = strip.field("series").integer()
        if not 0 <= number < len(series):
            raise strip.field("series").fail(f"names series {number}, but there are {len(series)}")
        repository, workflow, branch, runs = series[number]
        cells = strip.field("cells").items()
        if len(cells) != len(runs):
            raise strip.field("cells").fail(f"has {len(cells)} cells for the series' {len(runs)} runs")
        strips.append(
            TestStrip(
                repository=repository,
                workflow=workflow,
                branch=branch,
                cells=tuple(_test_cell(cell, run) for cell, run in zip(cells, runs, strict=True)),
            )
        )
    return TestHistory(
        name=node.field("name").text(),
        strips=tuple(strips),
        causes=node.optional("causes").counts_by_name() if node.optional("causes").value else (),
        tickets=tuple((ticket.key, ticket.url) for ticket in map(_ticket, node.optional("tickets").items())),
    )


def _test_cell(node: _Node, run: Sighting) -> TestCell:
    outcome = node.field("outcome").text()
    if outcome not in OUTCOMES:
        raise node.field("outcome").fail(f"should be one of {', '.join(OUTCOMES)}, not {outcome!r}")
    retried = node.optional("retried").value
    if not isinstance(retried, bool | None):
        raise node.field("retried").fail(f"should be true or false, not {retried!r}")
    return TestCell(
        run=run,
        outcome=outcome,
        causes=tuple(key.text() for key in node.optional("causes").items()),
        retried=bool(retried),
    )


class _Node:
    """A value of the document with its path, so every complaint names the field."""

    __slots__ = ("path", "source", "value")

    def __init__(self, value: Any, path: str, source: str) -> None:
        self.value = value
        self.path = path
        self.source = source

    def fail(self, problem: str) -> ResultsError:
        where = f" {self.path}" if self.path else ""
        return ResultsError(f"{self.source}:{where} {problem}", hint=_HINT)

    def field(self, key: str) -> _Node:
        mapping = self.mapping()
        if key not in mapping:
            raise self.fail(f"has no {key!r}")
        return _Node(mapping[key], f"{self.path}.{key}" if self.path else key, self.source)

    def optional(self, key: str) -> _Node:
        mapping = self.mapping()
        return _Node(mapping.get(key), f"{self.path}.{key}" if self.path else key, self.source)

    def mapping(self) -> Mapping[str, Any]:
        if not isinstance(self.value, Mapping):
            raise self.fail(f"should be an object, not {type(self.value).__name__}")
        return self.value

    def items(self) -> list[_Node]:
        if self.value is None:
            return []
        if not isinstance(self.value, list | tuple):
            raise self.fail(f"should be a list, not {type(self.value).__name__}")
        return [_Node(item, f"{self.path}[{index}]", self.source) for index, item in enumerate(self.value)]

    def text(self) -> str:
        if not isinstance(self.value, str):
            raise self.fail(f"should be a string, not {type(self.value).__name__}")
        return self.value

    def text_or_empty(self) -> str:
        return "" if self.value is None else self.text()

    def text_or_none(self) -> str | None:
        return None if self.value is None else self.text()

    def flag(self) -> bool:
        if self.value is None:
            return False
        if not isinstance(self.value, bool):
            raise self.fail(f"should be true or false, not {self.value!r}")
        return self.value

    def integer(self) -> int:
        if isinstance(self.value, bool) or not isinstance(self.value, int):
            raise self.fail(f"should be an integer, not {self.value!r}")
        return self.value

    def integer_or_none(self) -> int | None:
        return None if self.value is None else self.integer()

    def share(self) -> float:
        if isinstance(self.value, bool) or not isinstance(self.value, int | float):
            raise self.fail(f"should be a number, not {self.value!r}")
        return float(self.value)

    def share_or_none(self) -> float | None:
        return None if self.value is None else self.share()

    def timestamp(self) -> datetime:
        try:
            moment = datetime.fromisoformat(self.text())
        except ValueError:
            raise self.fail(f"{self.value!r} is not an ISO 8601 time") from None
        # A time without an offset comes from a store that writes UTC.
        return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)

    def day(self) -> date:
        try:
            return date.fromisoformat(self.text())
        except ValueError:
            raise self.fail(f"{self.value!r} is not a date (YYYY-MM-DD)") from None

    def counts_by_name(self) -> tuple[tuple[str, int], ...]:
        return tuple(
            (str(name), _Node(count, f"{self.path}[{name!r}]", self.source).integer())
            for name, count in self.mapping().items()
        )
