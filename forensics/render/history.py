"""`ci-forensics history` and `reanalyze` output: pure functions of their results — text (a rich renderable,
not printed here) and JSON (schema 1.0; fields are only added within 1.x).
"""

from __future__ import annotations

import json
from datetime import date, timedelta
from typing import Any

from rich.console import Group as RichGroup
from rich.console import RenderableType
from rich.table import Table
from rich.text import Text

from forensics.render.answer_json import counts_to_dict, iso, share_to_dict, sighting_to_dict
from forensics.render.common import CATEGORY_STYLE, plural
from forensics.store.answers import CauseHistory, DayTotals, History, Sighting

HISTORY_SCHEMA_VERSION = "1.0"
_STATUS_STYLE = {"new": "bold red", "returning": "bold yellow", "recurring": "yellow", "gone": "green"}


def render_history_text(found: History) -> RenderableType:
    """Totals, causes (with where they hit), what changed since the last run, flaky tests, share by week."""
    parts: list[RenderableType] = [Text(_headline(found), style="bold")]
    if not found.causes:
        parts.append(Text("\nNo failing tests recorded in this window."))
    else:
        parts.append(_causes(found.causes))
    for changes in _changes(found):
        parts.extend((Text(), changes))
    if found.flaky:
        parts.extend((Text(), _flaky_table(found)))
    if found.failing:
        parts.extend((Text(), _weeks_table(found.days)))
    return RichGroup(*parts)


def render_history_json(found: History) -> str:
    """The history as indented JSON text."""
    return json.dumps(history_to_dict(found), indent=2, ensure_ascii=False) + "\n"


def history_to_dict(found: History) -> dict[str, Any]:
    """The history as plain JSON-ready data."""
    return {
        "schema_version": HISTORY_SCHEMA_VERSION,
        "generated_at": iso(found.generated_at),
        "window_days": found.window_days,
        "filters": {
            "repository": found.filters.repository,
            "workflow": found.filters.workflow,
            "branch": found.filters.branch,
            "cause": found.cause_filter,
        },
        "totals": {
            "runs": found.runs,
            "jobs": found.jobs,
            "failing_tests": found.failing,
            "explained": found.explained,
            "explained_share": round(found.explained / found.failing, 4) if found.failing else None,
        },
        "causes": [_cause(cause) for cause in found.causes],
        "days": [
            {
                "date": day.day.isoformat(),
                "failures": day.failures,
                "explained": day.explained,
                "by_cause": dict(day.by_cause),
            }
            for day in found.days
        ],
        "changes": [
            {
                "repository": series.repository,
                "workflow": series.workflow,
                "branch": series.branch,
                "latest": sighting_to_dict(series.latest),
                "previous": sighting_to_dict(series.previous) if series.previous else None,
                "changes": [
                    {"key": c.key, "status": c.status, "hits": c.hits, "quiet_days": c.quiet_days}
                    for c in series.changes
                ],
            }
            for series in found.changes
        ],
        "flaky": [
            {
                "test": test.name,
                "repository": test.repository,
                "head_sha": test.head_sha,
                "passed": test.passed,
                "failed": test.failed,
                "runs": test.runs,
                "causes": list(test.causes),
                "retried": test.retried,
            }
            for test in found.flaky
        ],
    }


def _cause(cause: CauseHistory) -> dict[str, Any]:
    stats = cause.stats
    return {
        "key": cause.key,
        "kind": cause.kind,
        "title": cause.title,
        "category": cause.category or None,
        "first_seen": sighting_to_dict(cause.first_seen),
        "last_seen": sighting_to_dict(cause.last_seen),
        "counts": counts_to_dict(stats),
        "window_hits": cause.window_hits,
        "tests": list(cause.tests),
        "environment": [share_to_dict(share) for share in cause.environment],
        "pattern": cause.pattern or None,
    }


def _headline(found: History) -> str:
    scope = " · ".join(
        value for value in (found.filters.repository, found.filters.workflow, found.filters.branch) if value
    )
    cause = f" · cause {found.cause_filter}" if found.cause_filter else ""
    first = (found.generated_at - timedelta(days=found.window_days - 1)).date()
    head = f"History{' of ' + scope if scope else ''}{cause}: last {plural(found.window_days, 'day')}"
    head += f" ({first.isoformat()} … {found.generated_at.date().isoformat()})\n"
    head += (
        f"{plural(found.runs, 'run')}, {plural(found.jobs, 'job')}, {plural(found.failing, 'failing test')}"
    )
    if found.failing:
        head += f": {found.explained} explained ({round(100 * found.explained / found.failing)}%)"
    return head


def _seen(seen: Sighting) -> str:
    run = f"run {seen.run_id}" if seen.run_id is not None else "a local run"
    sha = f", {seen.head_sha[:7]}" if seen.head_sha else ""
    return f"{seen.at.date().isoformat()} ({run}{sha})"


def _causes(causes: tuple[CauseHistory, ...]) -> Text:
    """One block per cause: key and counts, title, first and last sighting, the environment it leans to."""
    text = Text()
    for cause in causes:
        stats = cause.stats
        text.append(f"\n\n{cause.key}" if text else f"\n{cause.key}", style="bold")
        text.append(f" · {cause.category or 'unexplained'}", style=CATEGORY_STYLE.get(cause.category, "dim"))
        text.append(f" — {plural(cause.window_hits, 'hit')}, {plural(len(cause.tests), 'test')}")
        text.append(
            f"  (24 h {stats.count_24h} · 7 d {stats.count_7d} · 30 d {stats.count_30d} · total {stats.total})",
            style="dim",
        )
        text.append(f"\n  {cause.title}")
        text.append(
            f"\n  first seen {_seen(cause.first_seen)} · last seen {_seen(cause.last_seen)}", style="dim"
        )
        if cause.pattern:
            text.append(f"\n  ▲ {cause.pattern}", style="bold yellow")
    return text


def _changes(found: History) -> list[RenderableType]:
    parts: list[RenderableType] = []
    for series in found.changes:
        name = (
            " · ".join(part for part in (series.repository, series.workflow, series.branch) if part)
            or "local"
        )
        text = Text(f"Since the last run of {name}", style="bold")
        latest = series.latest
        text.append(
            f": run {latest.run_id if latest.run_id is not None else '(local)'} on {latest.at.date()}"
        )
        if series.previous is None:
            text.append(" (its first recorded run)")
        for change in series.changes:
            text.append(f"\n  {change.status:<10}", style=_STATUS_STYLE[change.status])
            text.append(change.key)
            detail = plural(change.hits, "test")
            if change.quiet_days is not None:
                detail += f", after {plural(change.quiet_days, 'quiet day')}"
            text.append(f"  ({detail})", style="dim")
        if series.previous is not None and not series.changes:
            text.append("\n  nothing new, nothing gone", style="dim")
        parts.append(text)
    return parts


def _flaky_table(found: History) -> Table:
    table = Table(title="Flaky: passed and failed on the same commit", title_justify="left")
    for name in ("test", "commit", "passed", "failed", "runs", "causes"):
        table.add_column(
            name,
            justify="right" if name in ("passed", "failed", "runs") else "left",
            overflow="fold" if name in ("test", "causes") else "ellipsis",
        )
    for test in found.flaky:
        causes = "failed, then passed on retry" if test.retried else ", ".join(test.causes)
        # test names hold brackets ("[nats]") that rich would read as markup: always Text
        table.add_row(
            Text(test.name),
            test.head_sha[:7] or "-",
            str(test.passed),
            str(test.failed),
            str(test.runs),
            Text(causes),
        )
    return table


def _weeks_table(days: tuple[DayTotals, ...]) -> Table:
    weeks: dict[date, list[DayTotals]] = {}
    for day in days:
        weeks.setdefault(day.day - timedelta(days=day.day.weekday()), []).append(day)
    table = Table(title="Share of failing tests explained, by week", title_justify="left")
    for name in ("week of", "failing", "explained", "share"):
        table.add_column(name, justify="left" if name == "week of" else "right")
    rows = list(weeks.items())
    while rows and not any(day.failures for day in rows[0][1]):
        rows.pop(0)  # weeks before the first failure say nothing
    for monday, members in rows:
        failing = sum(day.failures for day in members)
        explained = sum(day.explained for day in members)
        share = f"{round(100 * explained / failing)}%" if failing else "-"
        table.add_row(monday.isoformat(), str(failing), str(explained), share)
    return table
