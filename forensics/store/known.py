"""Which filter values a store knows: `history --repo foo/bar` for a repository never recorded is a typo,
not "no failing tests", so the command names the value and the closest ones the store has.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from forensics.store.base import Store
from forensics.store.queries import Filters

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
