"""The dashboard's data: one JSON-ready document (schema 1.0) the HTML dashboard is built from, and that
other dashboards can read as `data.json`. Fields are only added within 1.x.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import UTC, datetime
from typing import Any

import regex

from forensics.store import queries
from forensics.store.answers import CauseHistory, Window, cause_histories, day_totals, open_window
from forensics.store.base import Store
from forensics.store.documents import counts_to_dict, iso, share_to_dict, sighting_to_dict
from forensics.store.queries import Filters, FindingRow, HitRow
from forensics.store.writer import LOCAL_PROVIDER

SCHEMA_VERSION = "1.0"
MAX_EXAMPLES = 3
MATRIX_DIMENSIONS = ("gpu_model", "gpu_memory", "runner_label", "runner")  # the first with two values wins
_DIGITS = regex.compile(r"(\d+)")


def dashboard_data(store: Store, *, now: datetime | None = None, days: int = 30) -> dict[str, Any]:
    """Totals, every day of the window, each cause with its examples and environment, and a cause × GPU matrix."""
    now = now or datetime.now(UTC)
    window = open_window(store, now=now, days=days, filters=Filters())
    causes = cause_histories(store, window)
    window_hits = window.window_hits
    recent: dict[str, list[HitRow]] = defaultdict(list)
    for hit in reversed(window_hits):
        recent[hit.key].append(hit)
    stored = queries.findings(store, (hit.test_pk for hit in window_hits))
    explained = sum(1 for hit in window_hits if hit.kind == "cause")
    return {
        "schema_version": SCHEMA_VERSION,
        "generated_at": iso(now),
        "window_days": days,
        "totals": {
            "runs": len(window.window_runs),
            "jobs": window.environments.job_total,
            "failing_tests": len(window_hits),
            "explained": explained,
            "explained_share": round(explained / len(window_hits), 4) if window_hits else None,
        },
        "days": [
            {
                "date": day.day.isoformat(),
                "failures": day.failures,
                "explained": day.explained,
                "by_cause": dict(day.by_cause),
            }
            for day in day_totals(window_hits, now=now, days=days)
        ],
        "causes": [_cause(cause, recent[cause.key], stored, window) for cause in causes],
        "matrix": _matrix(causes, recent, window),
    }


def _cause(
    cause: CauseHistory, recent: list[HitRow], stored: dict[int, FindingRow], window: Window
) -> dict[str, Any]:
    tickets: dict[str, str] = {}  # key → url, most recent hit first; a later hit may supply a missing url
    for hit in recent:
        finding = stored.get(hit.test_pk)
        for key, url in finding.tickets if finding else ():
            if not tickets.get(key):
                tickets[key] = url
    return {
        "key": cause.key,
        "kind": cause.kind,
        "title": cause.title,
        "category": cause.category or None,
        "advice": cause.advice,
        "first_seen": sighting_to_dict(cause.first_seen),
        "last_seen": sighting_to_dict(cause.last_seen),
        "counts": counts_to_dict(cause.stats),
        "tests": list(cause.tests),
        "tickets": [{"key": key, "url": url} for key, url in tickets.items()],
        "environment": [share_to_dict(share) for share in cause.environment],
        "examples": [
            _example(hit, stored[hit.test_pk], window)
            for hit in recent[:MAX_EXAMPLES]
            if hit.test_pk in stored
        ],
    }


def _example(hit: HitRow, finding: FindingRow, window: Window) -> dict[str, Any]:
    run = window.runs[hit.run_pk]
    unexplained = finding.kind == "unexplained"
    return {
        "test": hit.name,
        "run_id": None if run.provider == LOCAL_PROVIDER else run.run_id,
        "run_url": run.run_url,
        "at": iso(datetime.fromtimestamp(run.at, UTC)),
        # An unexplained finding's summary is its last error line (shown as the evidence) or, since 0.2, its
        # likely cause, which says why that line was chosen.
        "summary": "" if unexplained and finding.summary == finding.text else finding.summary,
        "evidence": {
            "attachment": finding.attachment,
            "line": finding.line,
            "text": finding.text or (finding.summary if unexplained else ""),
            "excerpt": [{"line": number, "text": text} for number, text in finding.excerpt],
        },
    }


def _matrix(
    causes: tuple[CauseHistory, ...], recent: dict[str, list[HitRow]], window: Window
) -> dict[str, Any]:
    environments = window.environments
    candidates = [(dimension, environments.columns(dimension)) for dimension in MATRIX_DIMENSIONS]
    dimension, columns = next(
        (found for found in candidates if len(found[1]) >= 2),
        next((found for found in candidates if found[1]), (MATRIX_DIMENSIONS[0], [])),
    )
    columns = sorted(columns, key=_natural)
    rows = []
    for cause in causes:
        cells: dict[str, int] = defaultdict(int)
        for hit in recent[cause.key]:
            for found, value in environments.facts.get(hit.job_pk, ()):
                if found == dimension:
                    cells[value] += 1
        rows.append(
            {"key": cause.key, "title": cause.title, "cells": {c: cells[c] for c in columns if cells[c]}}
        )
    return {"dimension": dimension, "columns": columns, "rows": rows}


def _natural(text: str) -> list[Any]:
    """`8 GiB` before `22 GiB`: digits compare as numbers."""
    return [int(part) if part.isdigit() else part for part in _DIGITS.split(text)]
