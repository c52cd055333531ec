"""The code `regex` compiles for each pattern a run uses, kept on disk beside the package's own bytecode.

`regex` parses and compiles a pattern in Python (`regex/_regex_core.py`, ~0.5-3 ms a pattern) and importing that
parser costs ~13 ms on its own, on every start of the CLI; only the matching engine (`regex._regex`, a C
extension) is needed to run a pattern. The compiler's output is a fixed function of the pattern text, its flags
and the installed `regex`: a list of integers handed to `_regex.compile` with a few tables. `compile_pattern`
keeps that output as Python keeps a module's bytecode: a table loaded from `__pycache__/` (or
`sys.pycache_prefix`), keyed by the pattern and its flags, in a file that names the installed `regex` (the size
and modification time of its parser, its front module and its engine) and the interpreter's bytecode magic
number. A pattern found there is built by `_regex.compile` from the stored output, without importing the rest of
`regex`; a missing one is compiled by `regex.compile`, whose call into the engine is read on the way, and the
table is written back at exit (never where bytecode writing is off: `PYTHONDONTWRITEBYTECODE`, `-B`).

Why it is safe: the pattern object comes from the same engine call with the same arguments that `regex.compile`
makes (`tests/test_regex_code.py` compiles every stored entry again and compares them, and compares the matches
of every shipped rule's pattern both ways), so it is an ordinary `regex.Pattern`. A missing, unreadable,
corrupt or foreign file is ignored and written afresh; a failed write is ignored. What the engine calls back
into Python (an error message's class, a replacement template) imports the rest of `regex` when it is needed,
as `regex` does itself. Patterns with the LOCALE flag (their code depends on the locale at compile time) and
a program that changed `regex.DEFAULT_VERSION` are compiled by `regex` every time. Which patterns a run needs
depends on its input; the table holds those compiled since it was last started afresh (at most
`_MAX_ENTRIES`), and a rule pack's validation compiles with `regex` directly, so a pack never fills it whole.
"""

from __future__ import annotations

import marshal
import os
import sys
import threading
from typing import TYPE_CHECKING, Any

from forensics.code_table import DiskTable, table_path

if TYPE_CHECKING:
    import regex

# The flag values of `regex` (tests/test_regex_code.py holds them equal to the module's), for code that builds a
# pattern without importing `regex`.
IGNORECASE = 0x2
VERBOSE = 0x40
_LOCALE = 0x4
_VERSION0 = 0x2000

_NAME = "_regex_code.py"  # not a module: the name `cache_from_source` turns into the table's path
_MAX_ENTRIES = 2048  # past this the table starts again from this run's entries (patterns no run uses age out)
_ENGINE = "regex._regex"


class _CompiledPatterns:
    """(pattern, flags) → the engine's arguments, loaded on the first compile and written back at exit."""

    def __init__(self, path: str | None) -> None:
        self.table = DiskTable(path, _MAX_ENTRIES)
        self.compiled: dict[tuple[str, int], regex.Pattern[str]] = {}
        self.engine: Any = None
        self.lock = threading.Lock()
        self.fresh: dict[tuple[str, int], bytes] = {}  # entries this process added since it started or forked

    def compile(self, pattern: str, flags: int) -> regex.Pattern[str]:
        """`regex.compile(pattern, flags)`, built from the table when the pattern is there."""
        key = (pattern, int(flags))
        compiled: regex.Pattern[str] | None = self.compiled.get(key)
        if compiled is not None:
            return compiled
        with self.lock:
            self.load_table()
            stored = self.table.get(key)
            if stored is not None and _default_version_unchanged():
                try:
                    compiled = self.engine.compile(pattern, *marshal.loads(stored))
                except (EOFError, ValueError, TypeError):
                    compiled = None
                if compiled is not None and "regex._main" not in sys.modules:
                    import copyreg  # what regex/_main.py registers, so that a built pattern pickles as `regex`'s do

                    copyreg.pickle(type(compiled), _reduce_pattern)
            if compiled is None:
                compiled, stored = _compile_and_record(pattern, flags)
                if stored is not None:
                    self.table.add(key, stored)
                    self.fresh[key] = stored
            self.compiled[key] = compiled
            return compiled

    def load_table(self) -> None:
        """Load the engine, and the table if its file names this interpreter and this `regex` (under the lock)."""
        if not self.table.loaded:
            self.engine, header = _engine()  # the engine is loaded either way
            self.table.load(header)

    def after_fork(self) -> None:
        """In a forked child: a fresh lock (the parent's may have been held by a thread the child does not have),
        and no entry of its own yet."""
        self.lock = threading.Lock()
        self.fresh = {}


def _engine() -> tuple[Any, bytes]:
    """`regex`'s C engine, loaded without the rest of the package when it is not loaded yet, and the header
    that names this interpreter and this installation of `regex` (empty when it cannot be told)."""
    engine: Any = sys.modules.get(_ENGINE)
    if engine is None:
        engine = _load_engine_alone()
    if engine is None:  # an unusual installation: `regex` finds its engine itself, and nothing is kept
        import regex

        return vars(regex)["_regex"] if "_regex" in vars(regex) else sys.modules[_ENGINE], b""
    from importlib.util import MAGIC_NUMBER

    folder = os.path.dirname(str(engine.__file__))
    identity = [MAGIC_NUMBER.hex(), str(engine.MAGIC), str(engine.CODE_SIZE)]
    for path in (
        str(engine.__file__),
        os.path.join(folder, "_regex_core.py"),
        os.path.join(folder, "_main.py"),
    ):
        try:
            status = os.stat(path)
        except OSError:
            return engine, b""
        identity.append(f"{os.path.basename(path)}:{status.st_size}:{status.st_mtime_ns}")
    return engine, (" ".join(identity) + "\n").encode()


def _load_engine_alone() -> Any:
    """`regex._regex` from the `regex` package's folder, registered under its name, the package not imported
    (`regex` imports the same module object when it is imported later)."""
    from importlib.machinery import PathFinder
    from importlib.util import find_spec, module_from_spec

    package = find_spec("regex")
    if package is None or not package.submodule_search_locations:
        return None
    spec = PathFinder.find_spec(_ENGINE, list(package.submodule_search_locations))
    if spec is None or spec.loader is None or spec.origin is None:
        return None
    engine = module_from_spec(spec)
    spec.loader.exec_module(engine)
    sys.modules[_ENGINE] = engine
    return engine


def _reduce_pattern(pattern: Any) -> tuple[Any, Any]:
    """regex/_main.py's `_pickle`: the engine's `compile` and the pattern's arguments to it."""
    return sys.modules[_ENGINE].compile, pattern._pickled_data


def _default_version_unchanged() -> bool:
    loaded = sys.modules.get("regex")
    return loaded is None or getattr(loaded, "DEFAULT_VERSION", _VERSION0) == _VERSION0


class _Recorder:
    """Stands in for `regex._main`'s engine during one compile: passes every call on, keeps this thread's
    `compile` arguments."""

    def __init__(self, engine: Any) -> None:
        self.engine = engine
        self.thread = threading.get_ident()
        self.arguments: tuple[Any, ...] | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self.engine, name)

    def compile(self, *arguments: Any) -> Any:
        if threading.get_ident() == self.thread:
            self.arguments = arguments
        return self.engine.compile(*arguments)


def _compile_and_record(pattern: str, flags: int) -> tuple[regex.Pattern[str], bytes | None]:
    """`regex.compile`, and the engine's arguments as the table stores them (None when they cannot be kept)."""
    import regex
    import regex._main

    front: Any = regex._main  # `regex`'s front module: `_regex` is its name for the engine
    recorder = _Recorder(front._regex)
    front._regex = recorder
    try:
        compiled = regex.compile(pattern, flags, cache_pattern=False)
    finally:
        front._regex = recorder.engine
    arguments = recorder.arguments
    if arguments is None or arguments[0] is not pattern or not _default_version_unchanged():
        return compiled, None
    if int(arguments[1]) & _LOCALE:
        return compiled, None
    try:
        stored = marshal.dumps(
            tuple(int(value) if isinstance(value, int) else value for value in arguments[1:])
        )
    except ValueError:  # something marshal cannot write (a named list holds only strings; kept to be sure)
        return compiled, None
    return compiled, stored


def _table_path() -> str | None:
    """Where Python would keep the bytecode of a module beside this one; None where it keeps none."""
    return table_path(__file__, _NAME)


_PATTERNS = _CompiledPatterns(_table_path())
if hasattr(os, "register_at_fork"):  # a worker forked while another thread held the lock must not wait for it
    os.register_at_fork(after_in_child=_PATTERNS.after_fork)


def take_recorded() -> dict[tuple[str, int], bytes]:
    """The entries this process added to the table since it started or forked (each given once): a forked worker
    ends without writing the table (`os._exit`), so it hands them to its parent (report/session.py), which keeps
    them (`keep_recorded`) and writes them at its exit; the next run's workers find them in the table."""
    fresh, _PATTERNS.fresh = _PATTERNS.fresh, {}
    return fresh


def keep_recorded(entries: dict[tuple[str, int], bytes]) -> None:
    """Add a worker's entries (`take_recorded`) to this process's table, to be written at exit."""
    with _PATTERNS.lock:
        _PATTERNS.load_table()
        for key, stored in entries.items():
            if _PATTERNS.table.get(key) is None:
                _PATTERNS.table.add(key, stored)


def compile_pattern(pattern: str, flags: int = 0) -> regex.Pattern[str]:
    """`regex.compile(pattern, flags)` for a text pattern, from the on-disk table when it holds the pattern."""
    return _PATTERNS.compile(pattern, flags)
