"""The literal ways of each pattern a run probes (`required_literal_ways`), kept on disk beside the bytecode.

When the pre-filter selects a probe for a line, the scanner asks which literals every way through the pattern's
alternations needs (`rules/literals.py`), which parses the pattern with `re`'s parser and walks it: ~1 M
instructions a pattern, ~6 M of a one-line `analyze` (the five patterns a CUDA out-of-memory line selects). The
answer is a fixed function of the pattern, its case-insensitivity, `rules/literals.py` and the interpreter's `re`,
so it is kept as `regex_code` keeps compiled patterns: a marshal table in `__pycache__/` (or `sys.pycache_prefix`)
keyed by (pattern, ignore_case), in a file whose header names the interpreter (its bytecode magic number and
version) and `rules/literals.py` (its size and modification time, as Python checks a module's bytecode). A miss is
computed as before and the table written back at exit (never where bytecode writing is off:
`PYTHONDONTWRITEBYTECODE`, `-B`); a missing, unreadable, corrupt or foreign file reads as empty.
`tests/test_fixed_cost.py` checks that a warm run parses no pattern and that every stored entry equals a fresh
computation.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from forensics.code_table import DiskTable, read_table, table_path

_NAME = "_literal_ways.py"  # not a module: the name `cache_from_source` turns into the table's path
_MAX_ENTRIES = 4096  # past this the table starts again from this run's entries (patterns no run uses age out)

# One way's literal sets as plain values: ((alternatives, ignore_case), ...) per way.
StoredWays = tuple[tuple[tuple[tuple[str, ...], bool], ...], ...]


class _LiteralTable:
    """A key (a tuple of plain values) → a pattern's literals as plain values, loaded on the first lookup and
    written back at exit: `WAYS` keys the rules' literal ways by (pattern, ignore_case), `GATES` the engine's own
    patterns' gates by (pattern, flags, minimum)."""

    def __init__(self, path: str | None) -> None:
        self.table = DiskTable(path, _MAX_ENTRIES)

    def get(self, key: tuple[Any, ...]) -> Any:
        if not self.table.loaded:
            self.table.load(_header())
        return self.table.get(key)

    def put(self, key: tuple[Any, ...], value: Any) -> None:
        self.table.add(key, value)


def _header() -> bytes:
    """What the entries depend on; empty (nothing read or written) when `rules/literals.py` cannot be found."""
    from importlib.util import MAGIC_NUMBER

    try:
        source = os.stat(os.path.join(os.path.dirname(os.path.abspath(__file__)), "literals.py"))
    except OSError:
        return b""
    return b"ci-forensics literal ways\n%s\n%s\n%d %d\n" % (
        MAGIC_NUMBER,
        sys.version.encode(),
        source.st_size,
        source.st_mtime_ns,
    )


def _table_path() -> str | None:
    """Where Python would keep the bytecode of a module beside this one; None where it keeps none."""
    return table_path(__file__, _NAME)


WAYS = _LiteralTable(_table_path())  # (pattern, ignore_case) → StoredWays

_GATES_NAME = "_literal_gates.py"
# One gate as plain values: (alternatives, ignore_case), or () for a pattern with no literal long enough.
StoredGate = tuple[tuple[str, ...], bool] | tuple[()]


# (pattern, flags, minimum) → the literals one of which the engine's own pattern needs (`literals_for_flags`: the
# likely-cause picker's ~64 `GatedRegex` gates, parsed before the workers fork on every run that reads a failure's
# likely cause, ~30 ms), in a table of their own
GATES = _LiteralTable(table_path(__file__, _GATES_NAME))


def stored_entries() -> dict[Any, Any]:
    """The table as the file holds it now (for tests: every entry is compared with a fresh computation)."""
    return read_table(_table_path(), _header())


def stored_gates() -> dict[Any, Any]:
    """The gates' table as the file holds it now (for tests, as `stored_entries`)."""
    return read_table(table_path(__file__, _GATES_NAME), _header())
