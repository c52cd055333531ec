"""A marshal table kept beside the package's bytecode: read when its header matches, written back atomically.

`dataclass_code` (the code `dataclasses` compiles), `regex_code` (what `regex` compiles for a pattern) and
`rules/literal_table` (the literal ways of a pattern) each keep one such table in `__pycache__/` (or
`sys.pycache_prefix`), at `table_path`, as a `DiskTable`; the header names what the entries depend on (the
interpreter's bytecode magic number, the installed `regex`, `rules/literals.py`), so a table written by another one is
ignored. A missing, unreadable, corrupt or foreign file reads as empty; a failed write leaves the file as it was.
"""

from __future__ import annotations

import contextlib
import marshal
import os
import sys
from typing import Any


def read_table(path: str | None, header: bytes) -> dict[Any, Any]:
    """The table in the file at `path` when it starts with `header`; empty otherwise."""
    if path is None or not header:
        return {}
    try:
        with open(path, "rb") as file:
            data = file.read()
    except OSError:
        return {}
    if not data.startswith(header):
        return {}
    try:
        table = marshal.loads(memoryview(data)[len(header) :])
    except (EOFError, ValueError, TypeError):
        return {}
    return table if isinstance(table, dict) else {}


def write_table(path: str, header: bytes, table: dict[Any, Any]) -> None:
    """`header` then the marshalled table, written to a temporary file and moved over `path`."""
    temporary = f"{path}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(temporary, "wb") as file:
            file.write(header + marshal.dumps(table))
        os.replace(temporary, path)
    except (OSError, ValueError):
        with contextlib.suppress(OSError):
            os.unlink(temporary)


def table_path(beside: str, name: str) -> str | None:
    """Where Python would keep the bytecode of a module `name` in the folder of the file `beside` (a module's
    `__file__`); None where it keeps none."""
    from importlib.util import cache_from_source

    try:
        return cache_from_source(os.path.join(os.path.dirname(os.path.abspath(beside)), name))
    except NotImplementedError:  # no cache tag: this Python caches no bytecode
        return None


class DiskTable:
    """One such table in a run: loaded once under its header (`load`), looked up (`get`) and grown (`add`), and
    written back at exit when it grew (never where bytecode writing is off: `PYTHONDONTWRITEBYTECODE`, `-B`; nor
    without a header) with this run's entries and what the file held, or only the entries this run used once that
    passes `max_entries` (entries no run uses age out)."""

    def __init__(self, path: str | None, max_entries: int) -> None:
        self.path = path
        self.max_entries = max_entries
        self.entries: dict[Any, Any] | None = None
        self.used: dict[Any, Any] = {}
        self.header = b""
        self.added = False

    @property
    def loaded(self) -> bool:
        return self.entries is not None

    def load(self, header: bytes) -> None:
        """Read the file, if it starts with `header` (what the entries depend on; empty: nothing is read or kept)."""
        self.header = header
        self.entries = read_table(self.path, header)

    def get(self, key: Any) -> Any:
        """The entry for `key` (None when the table has none, or is not loaded), kept as used by this run."""
        found = None if self.entries is None else self.entries.get(key)
        if found is not None:
            self.used[key] = found
        return found

    def add(self, key: Any, value: Any) -> None:
        """A new entry, written back at exit; nothing when the table was never loaded."""
        if self.entries is None:
            return
        self.entries[key] = self.used[key] = value
        if not self.added and self.path is not None and self.header and not sys.dont_write_bytecode:
            self.added = True
            import atexit

            atexit.register(self.save)

    def save(self) -> None:
        """Write the table atomically; a failure leaves the file as it was."""
        if self.path is None or self.entries is None or not self.header:
            return
        write_table(
            self.path, self.header, self.entries if len(self.entries) <= self.max_entries else self.used
        )
