"""Read-only views of a results folder or an artifact zip: list files, open one as a stream.

Nothing is ever extracted to disk: zip entries are streamed straight from the archive, and entry names
that try to leave the archive (`../x`, `/etc/x`) are refused and reported.
"""

from __future__ import annotations

import os
import posixpath
import zipfile
from pathlib import Path
from typing import BinaryIO, Protocol

from forensics.errors import ResultsError
from forensics.model import Problem


class Archive(Protocol):
    """A set of files addressed by relative POSIX paths."""

    label: str
    path: str
    kind: str
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
    """A results folder on disk (symbolic links that lead outside it are ignored)."""

    kind = "directory"

    def __init__(self, root: Path, *, label: str | None = None) -> None:
        self.root = root.resolve()
        self.path = str(root)
        self.label = label or str(root)
        self.problems: list[Problem] = []
        self._names: list[str] | None = None

    def names(self) -> list[str]:
        if self._names is None:
            names = []
            for directory, _subdirs, files in os.walk(self.root):
                for file in files:
                    full = Path(directory, file)
                    if full.is_symlink() and not full.resolve().is_relative_to(self.root):
                        self.problems.append(
                            Problem(
                                object=str(full), message="symbolic link out of the results folder ignored"
                            )
                        )
                        continue
                    names.append(full.relative_to(self.root).as_posix())
            self._names = sorted(names)
        return self._names

    def open(self, name: str) -> BinaryIO:
        return (self.root / name).open("rb")

    def size(self, name: str) -> int:
        return (self.root / name).stat().st_size

    def reopen(self) -> DirectoryArchive:
        return DirectoryArchive(Path(self.path), label=self.label)


class ZipArchive:
    """An artifact zip as GitHub Actions stores it (files at the root, or under folders)."""

    kind = "zip"

    def __init__(self, path: Path, *, label: str | None = None) -> None:
        self.path = str(path)
        self.label = label or str(path)
        self.problems: list[Problem] = []
        try:
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
        return self._zip.open(self._entries[name])  # type: ignore[return-value]

    def size(self, name: str) -> int:
        return self._entries[name].file_size

    def reopen(self) -> ZipArchive:
        return ZipArchive(Path(self.path), label=self.label)

    def close(self) -> None:
        """Release the file handle."""
        self._zip.close()


def parent_dir(name: str) -> str:
    """The folder part of a relative POSIX path ('' at the root)."""
    return posixpath.dirname(name)
