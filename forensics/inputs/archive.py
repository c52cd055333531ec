"""Read-only views of a results folder or an artifact zip: list files, open one as a stream.

Nothing is ever extracted to disk: zip entries are streamed straight from the archive, and entry names
that try to leave the archive (`../x`, `/etc/x`) are refused and reported.
"""

from __future__ import annotations

import os
import posixpath
import stat
from pathlib import Path
from typing import BinaryIO, Protocol

from forensics.errors import ResultsError
from forensics.model import InputKind, Problem
from forensics.values import MAX_TEXT_CHARS, clean_text


class Archive(Protocol):
    """A set of files addressed by relative POSIX paths."""

    label: str
    path: str
    kind: InputKind
    problems: list[Problem]

    def names(self) -> list[str]:
        """Every file, as a relative POSIX path."""
        ...

    def open(self, name: str) -> BinaryIO:
        """A binary stream of one file."""
        ...

    def size(self, name: str) -> int:
        """The file's (uncompressed) size in bytes, as the folder or archive says."""
        ...

    def reopen(self) -> Archive:
        """The same archive opened afresh (for a worker process)."""
        ...


_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


class NotRegularFileError(OSError):
    """A path that is a FIFO, device, socket or folder where a file was expected: never opened for reading."""


def file_kind(mode: int) -> str:
    """'a FIFO (named pipe)', 'a folder', … for a stat mode; '' for a regular file."""
    if stat.S_ISREG(mode):
        return ""
    return next((kind for test, kind in _KINDS if test(mode)), "not a regular file")


def require_regular(path: str | os.PathLike[str]) -> None:
    """NotRegularFileError unless `path` (followed through links) is a regular file; OSError if it cannot be seen."""
    kind = file_kind(os.stat(path).st_mode)
    if kind:
        raise NotRegularFileError(f"'{os.fsdecode(path)}' is {kind}, not a regular file")


def open_regular(path: str | os.PathLike[str]) -> BinaryIO:
    """Open a regular file for reading; a FIFO, device or socket is refused before a read could block.

    O_NONBLOCK makes the open itself return at once for a FIFO with no writer (a plain open waits forever);
    it changes nothing for regular files, the only kind kept.
    """
    descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        kind = file_kind(os.fstat(descriptor).st_mode)
        if kind:
            raise NotRegularFileError(f"'{os.fsdecode(path)}' is {kind}, not a regular file")
        return os.fdopen(descriptor, "rb")
    except BaseException:
        os.close(descriptor)
        raise


def safe_entry_name(name: str) -> str | None:
    """The entry name as a clean relative path, or None when it is absolute or climbs out."""
    cleaned = name.replace("\\", "/")
    if cleaned.startswith("/") or (len(cleaned) > 1 and cleaned[1] == ":"):
        return None
    parts = [part for part in cleaned.split("/") if part not in ("", ".")]
    if not parts or ".." in parts:
        return None
    return "/".join(parts)


class DirectoryArchive:
    """A results folder on disk: regular files only; links that lead outside it, FIFOs, devices, link loops
    and unreadable subfolders are ignored, each with a problem."""

    kind: InputKind = "directory"

    def __init__(self, root: Path, *, label: str | None = None) -> None:
        self.root = root.resolve()
        self.path = str(root)
        self.label = label or str(root)
        self.problems: list[Problem] = []
        self._names: list[str] | None = None

    def names(self) -> list[str]:
        if self._names is None:
            names = []
            for directory, _subdirs, files in os.walk(self.root, onerror=self._unreadable_folder):
                for file in files:
                    full = Path(directory, file)
                    if self._usable(full):
                        names.append(full.relative_to(self.root).as_posix())
            self._names = sorted(names)
        return self._names

    def _usable(self, full: Path) -> bool:
        """A regular file inside the folder; anything else is a problem and skipped."""
        try:
            kind = file_kind(os.stat(full).st_mode)  # follows links: a loop or a dangling link is an OSError
            escapes = full.is_symlink() and not full.resolve().is_relative_to(self.root)
        except (OSError, RuntimeError) as err:  # RuntimeError: pathlib's "Symlink loop" on Python 3.11/3.12
            self._problem(full, f"cannot be read ({_reason(err)}); ignored")
            return False
        if escapes:
            self._problem(full, "symbolic link out of the results folder ignored")
            return False
        if kind:
            self._problem(full, f"is {kind}, not a regular file; ignored")
            return False
        return True

    def _unreadable_folder(self, err: OSError) -> None:
        where = os.fsdecode(err.filename) if err.filename is not None else self.label
        self.problems.append(
            Problem(
                object=_printable(where),
                message=f"folder cannot be read ({_reason(err)}); its results are missing from the report",
                hint="check the folder's permissions",
                severity="error",
            )
        )

    def _problem(self, full: Path, message: str) -> None:
        self.problems.append(Problem(object=_printable(str(full)), message=message))

    def open(self, name: str) -> BinaryIO:
        return open_regular(self.root / name)

    def size(self, name: str) -> int:
        return (self.root / name).stat().st_size

    def reopen(self) -> DirectoryArchive:
        return DirectoryArchive(Path(self.path), label=self.label)


class ZipArchive:
    """An artifact zip as GitHub Actions stores it (files at the root, or under folders)."""

    kind: InputKind = "zip"

    def __init__(self, path: Path, *, label: str | None = None) -> None:
        self.path = str(path)
        self.label = label or str(path)
        self.problems: list[Problem] = []
        import zipfile  # only for a zip: a plain log never loads it

        try:
            require_regular(path)  # a FIFO named b.zip would block the open below forever
            self._zip = zipfile.ZipFile(path)
            self._zip.infolist()
        except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, ValueError) as err:
            raise ResultsError(
                f"cannot read '{path}' as a zip archive: {err}",
                hint="the download may be truncated; download the artifact again",
            ) from err
        self._entries: dict[str, zipfile.ZipInfo] = {}
        for info in self._zip.infolist():
            if info.is_dir():
                continue
            safe = safe_entry_name(info.filename)
            if safe is None:
                self.problems.append(
                    Problem(
                        object=f"{self.label}: entry '{info.filename}'",
                        message="entry name points outside the archive; ignored (nothing is ever extracted)",
                        hint="the artifact was not made by actions/upload-artifact; check what produced it",
                    )
                )
                continue
            self._entries.setdefault(safe, info)

    def names(self) -> list[str]:
        return sorted(self._entries)

    def open(self, name: str) -> BinaryIO:
        from forensics.inputs.inflate import open_deflated  # zlib-ng where installed: ~2x zlib's speed

        return open_deflated(self._zip, self._entries[name])  # type: ignore[return-value]

    def size(self, name: str) -> int:
        return self._entries[name].file_size

    def reopen(self) -> ZipArchive:
        return ZipArchive(Path(self.path), label=self.label)

    def close(self) -> None:
        """Release the file handle."""
        self._zip.close()


def _reason(err: BaseException) -> str:
    if isinstance(err, OSError) and err.strerror:
        return err.strerror
    return str(err) or type(err).__name__


def _printable(text: str) -> str:
    """A path as report text: bytes that were not UTF-8 (held as surrogate escapes) become U+FFFD."""
    return clean_text(text, limit=MAX_TEXT_CHARS)


def parent_dir(name: str) -> str:
    """The folder part of a relative POSIX path ('' at the root)."""
    return posixpath.dirname(name)
