"""A marshal table kept beside the package's bytecode: read when its header matches, written back atomically.

`dataclass_code` (the code `dataclasses` compiles), `regex_code` (what `regex` compiles for a pattern) and
`rules/literal_table` (the literal ways of a pattern) each keep one such table in `__pycache__/` (or
`sys.pycache_prefix`), at `table_path`; the header names what the entries depend on (the interpreter's bytecode magic
number, the installed `regex`, `rules/literals.py`), so a table written by another one is ignored. A
missing, unreadable, corrupt or foreign file reads as empty; a failed write leaves the file as it was.
"""

from __future__ import annotations

import contextlib
import marshal
import os
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
