"""What an input file held when it was read, so `reanalyze` reads it again only while it still holds that.

A path says nothing about content: a job log is overwritten by the next night's, a cached zip can be
replaced. Each input of a report carries its identity, computed by `analyze` while the input is open (the
store keeps it with each failing test's row):

- a plain log: `log:<size>:sha256:<hex>` of the file's first 512 MiB (the default `--max-log-size`; a longer
  log is told apart by its size too);
- an artifact zip: `zip:<size>:<hex>`, a SHA-256 over the zip's central directory (every entry's name,
  CRC-32 and size), which reads only the directory at the end of the file, not the entries;
- an allure-results folder: `directory:<hex>`, a SHA-256 over its files' relative paths and sizes.

An empty identity (stdin, an unreadable input, a row recorded before store schema version 2)
matches nothing.
"""

from __future__ import annotations

import os
from pathlib import Path

from forensics.digest import sha256
from forensics.errors import zip_read_errors
from forensics.inputs.archive import open_regular

KINDS = ("log", "zip", "directory")
MAX_HASHED_BYTES = 512 * 1024 * 1024
_CHUNK_BYTES = 1024 * 1024
_READ_ERRORS = (OSError, ValueError, EOFError)  # and zip_read_errors()


def input_identity(path: str, kind: str) -> str:
    """The identity of the input of this `kind` at `path` now; "" when it cannot be read (or is stdin)."""
    try:
        if kind == "log":
            with open_regular(path) as stream:
                size = os.fstat(stream.fileno()).st_size
                digest = sha256(expected_size=size)
                left = MAX_HASHED_BYTES
                while left > 0 and (chunk := stream.read(min(_CHUNK_BYTES, left))):
                    digest.update(chunk)
                    left -= len(chunk)
            return f"log:{size}:sha256:{digest.hexdigest()}"
        if kind == "zip":
            return f"zip:{os.path.getsize(path)}:{_zip_directory_digest(path)}"
        if kind == "directory":
            return f"directory:{_listing_digest(Path(path))}"
    except zip_read_errors(*_READ_ERRORS):
        return ""
    return ""


def kind_of(identity: str) -> str:
    """The input kind an identity was computed for ("log", "zip", "directory"), or "" for none."""
    kind = identity.partition(":")[0]
    return kind if kind in KINDS else ""


def _zip_directory_digest(path: str) -> str:
    import zipfile  # only for a zip input

    digest = sha256()  # names and sizes: a few KiB
    with zipfile.ZipFile(path) as archive:
        for info in archive.infolist():
            digest.update(f"{info.filename}\0{info.CRC:08x}\0{info.file_size}\n".encode())
    return digest.hexdigest()


def _listing_digest(root: Path) -> str:
    if not root.is_dir():
        raise NotADirectoryError(root)
    files = []
    for directory, _subdirectories, names in os.walk(root):
        for name in names:
            full = Path(directory, name)
            files.append((full.relative_to(root).as_posix(), full.stat().st_size))
    digest = sha256()  # names and sizes: a few KiB
    for name, size in sorted(files):
        digest.update(f"{name}\0{size}\n".encode())
    return digest.hexdigest()
