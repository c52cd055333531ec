"""Files of the caches under the user cache folder (the pack cache, the pre-filter's databases): each written
whole and renamed into place, and the oldest beyond a count removed. Only `os`: imported by runs that read a
cache, never more than that."""

from __future__ import annotations

import os
from pathlib import Path


def write_atomically(directory: Path, name: str, data: bytes) -> bool:
    """Write `directory/name` whole (a private temporary file renamed); False when the disk would not have it."""
    temporary = directory / f".{name}.{os.getpid()}.tmp"
    try:
        directory.mkdir(parents=True, exist_ok=True)
        try:
            descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_EXCL, 0o600)
            with os.fdopen(descriptor, "wb") as stream:
                stream.write(data)
            os.replace(temporary, directory / name)
        except BaseException:
            temporary.unlink(missing_ok=True)
            raise
    except OSError:
        return False
    return True


def prune_oldest(directory: Path, pattern: str, keep: int) -> None:
    """Remove the files matching `pattern` beyond the `keep` most recently modified (touched when used)."""
    try:
        entries = sorted(directory.glob(pattern), key=lambda path: path.stat().st_mtime, reverse=True)
        for stale in entries[keep:]:
            stale.unlink(missing_ok=True)
    except OSError:
        return
