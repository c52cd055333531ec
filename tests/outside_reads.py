"""A guard that notices when the test session reads a path outside the repository.

A clone of this repository is all a test may need: a file read from beside the checkout (a folder that
only the project's own machines have) passes on those machines and fails on a contributor's.
`tests/conftest.py` installs `OutsideReads` as an audit hook (PEP 578) for the whole session and fails the
run at its end if anything outside the allowed places was opened or listed. Child processes (the CLI run
as a command, pip, bash) are not watched; `tests/test_self_contained.py` checks their code statically.
"""

from __future__ import annotations

import os
import site
import sys
import sysconfig
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

REPOSITORY_ROOT = Path(__file__).resolve().parents[1]
WATCHED_EVENTS = frozenset({"open", "os.listdir", "os.scandir"})
# What a test may reach besides the repository: the interpreter and its packages, temporary folders, and
# the system's own files (devices, /proc, certificates and locale data, /usr).
SYSTEM_FOLDERS = ("/dev", "/proc", "/sys", "/etc", "/usr")


def allowed_folders(extra: Sequence[str | os.PathLike[str]] = ()) -> tuple[str, ...]:
    """The folders a test may read below: the repository, the interpreter, site-packages, temp, the system."""
    folders = [
        str(REPOSITORY_ROOT),
        sys.prefix,
        sys.base_prefix,
        sys.exec_prefix,
        sys.base_exec_prefix,
        *site.getsitepackages(),
        site.getusersitepackages(),
        *(path for path in sysconfig.get_paths().values()),
        tempfile.gettempdir(),
        *SYSTEM_FOLDERS,
        *(os.fspath(path) for path in extra),
    ]
    resolved = {os.path.realpath(folder) for folder in folders} | {os.path.abspath(f) for f in folders}
    return tuple(sorted(folder.rstrip("/") + "/" for folder in resolved if folder))


def import_path() -> frozenset[str]:
    """The folders on `sys.path`: the import system (and mypy) list them looking for a module.

    An editable install elsewhere (a shared development environment) puts its checkout there.
    """
    return frozenset(os.path.abspath(entry) for entry in sys.path if entry)


class OutsideReads:
    """An audit hook that records every `open`, `os.listdir` and `os.scandir` of a path outside `allowed`."""

    def __init__(self, allowed: tuple[str, ...], *, listed: frozenset[str] = frozenset()) -> None:
        self.allowed = allowed
        self.listed = listed  # folders that may be listed (not read below): the import path
        self.found: list[str] = []
        self._diverted: list[str] | None = None

    def allow(self, folder: str | os.PathLike[str]) -> None:
        """Also allow below `folder` (pytest's base temporary folder, known only once the session starts)."""
        path = os.path.abspath(os.fspath(folder)).rstrip("/") + "/"
        self.allowed = (*self.allowed, path)

    def __call__(self, event: str, arguments: tuple[object, ...]) -> None:
        if event not in WATCHED_EVENTS or not arguments:
            return
        target = arguments[0]
        if target is None:  # os.listdir() / os.scandir(): the current folder
            target = "."
        if isinstance(target, int):  # a file descriptor: its path was checked when it was opened
            return
        if isinstance(target, os.PathLike):
            target = os.fspath(target)
        if isinstance(target, bytes):
            target = os.fsdecode(target)
        if not isinstance(target, str):
            return
        path = os.path.abspath(target)
        if (path + "/").startswith(self.allowed) or (event != "open" and path in self.listed):
            return
        (self._diverted if self._diverted is not None else self.found).append(f"{event} {path}")

    @contextmanager
    def diverted(self) -> Iterator[list[str]]:
        """Collect what is found inside the block into a list of its own (the guard's own test plants reads)."""
        collected: list[str] = []
        self._diverted = collected
        try:
            yield collected
        finally:
            self._diverted = None
