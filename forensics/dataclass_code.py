"""The code `dataclasses` compiles for each class's methods, kept on disk beside the package's own bytecode.

Python 3.11's `@dataclass` writes the source of `__init__`, `__repr__`, `__eq__`, `__hash__`, `__setattr__` and
`__delattr__` (frozen) of every class and compiles each with `exec`, at every import: about 60 % of the ~0.5 ms a
frozen slotted class costs to create, ~25 ms for the ~50 classes a one-line `analyze` imports. The text is the same
on every run, so its compiled code is cached as Python caches a module's bytecode: `install()` gives the
`dataclasses` module an `exec` (its global name shadows the builtin) that looks the source text up in a table
loaded from `__pycache__/` (or `sys.pycache_prefix`) and compiles only what is missing; new code is written back
at exit, unless bytecode writing is off (`PYTHONDONTWRITEBYTECODE`, `-B`). The CLI installs it first thing
(forensics/cli/main.py), the public API on its first name (`forensics.__getattr__`); `import forensics` alone
does not (it stays free of `dataclasses`), and a module imported directly only misses the cache.

Why it is safe: the table is keyed by the exact source text, in a file named by the interpreter's cache tag and
checked against its bytecode magic number, and `compile(text, "<string>", "exec", dont_inherit=True)` is what
`exec(text)` does in `dataclasses` (a module without `__future__` imports): the same code object, so the same
functions and classes (`dataclasses.fields`, `replace`, `asdict` see ordinary dataclasses). A missing, unreadable,
corrupt or foreign file is ignored and written afresh; a failed write is ignored. Python 3.13+ compiles one
text per class; it goes through the same `exec` and is cached the same way. `tests/test_dataclass_code.py` checks
that a warm start compiles no dataclass method and that every cached code object equals a fresh compile.
"""

from __future__ import annotations

import builtins
import dataclasses
from typing import Any

from forensics.code_table import DiskTable, table_path

_NAME = "_dataclass_methods.py"  # not a module: the name `cache_from_source` turns into the table's path
_MAX_ENTRIES = (
    4096  # past this the table starts again from this run's entries (a stale version's text ages out)
)


class _CompiledSources:
    """Source text → code, loaded on the first `exec` and written back at exit when it grew."""

    def __init__(self, path: str | None) -> None:
        self.table = DiskTable(path, _MAX_ENTRIES)

    def exec(self, source: Any, /, *args: Any, **kwargs: Any) -> Any:
        """`exec` for `dataclasses`: a source text's code comes from the table when it is there."""
        if not isinstance(source, str):
            return builtins.exec(source, *args, **kwargs)
        if not self.table.loaded:
            self.table.load(_magic())
        code = self.table.get(source)
        if code is None:
            code = compile(source, "<string>", "exec", dont_inherit=True)
            self.table.add(source, code)
        return builtins.exec(code, *args, **kwargs)


def _magic() -> bytes:
    from importlib.util import MAGIC_NUMBER

    return MAGIC_NUMBER


def _table_path() -> str | None:
    """Where Python would keep the bytecode of a module beside this one; None where it keeps none."""
    return table_path(__file__, _NAME)


def install() -> None:
    """Serve `dataclasses`' compiles from the table (once per process: a second call changes nothing)."""
    if "exec" not in vars(dataclasses):
        dataclasses.exec = _CompiledSources(_table_path()).exec  # type: ignore[attr-defined]
