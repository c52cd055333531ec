"""The download cache: artifacts keyed by id, finished jobs' logs keyed by job id, per CI host.

Files only ever appear under their final name by an atomic rename of a complete, verified download
(`HttpClient.download` writes `<name>.part-<pid>-<ns>` first), so an interrupted download is never used
and two fetches sharing the cache at once at worst both download the same file and the last rename wins.
"""

from __future__ import annotations

import errno
import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import platformdirs
import regex

from forensics.errors import ConfigError

_UNSAFE = regex.compile(r"[^A-Za-z0-9_.-]+")
_CHUNK = 1 << 20
_DISK_FULL = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EROFS})


def default_cache_directory() -> Path:
    """The per-user cache folder of ci-forensics (the CLI lets CI_FORENSICS_CACHE override it)."""
    return Path(platformdirs.user_cache_dir("ci-forensics"))


@dataclass(frozen=True, slots=True)
class CachedFile:
    """A file in the cache and whether this call had to download it."""

    path: Path
    downloaded: bool


@dataclass(frozen=True, slots=True)
class DownloadCache:
    """Files under `root/<service>/<host>/<kind>/<key><suffix>`."""

    root: Path

    def path(self, *, service: str, host: str, kind: str, key: str, suffix: str) -> Path:
        """Where one object lives; every part is reduced to safe file-name characters."""
        parts = (_safe(service), _safe(host), _safe(kind), f"{_safe(key)}{suffix}")
        return self.root.joinpath(*parts)

    def obtain(
        self,
        path: Path,
        download: Callable[[Path], object],
        *,
        size: int | None = None,
        sha256: str | None = None,
        reuse: bool = True,
    ) -> CachedFile:
        """The cached file when it is complete (size and digest match, when given); else `download(path)`.

        `reuse=False` always downloads (a running job's log still grows). Trouble with the cache's own folder
        and files is a ConfigError; anything else `download` raises (a ServiceError) passes through as it is.
        """
        if reuse and is_intact(path, size=size, sha256=sha256):
            return CachedFile(path=path, downloaded=False)
        folder = path.parent
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise self._unwritable(err) from err
        try:
            download(path)
        except OSError as err:
            # requests' exceptions are OSErrors too (no errno, no file name, a signed URL in str()): only
            # errors of our own files, or of the disk filling up mid-write, are the cache's to report
            if not _about_files_in(err, folder):
                raise
            raise self._unwritable(err) from err
        return CachedFile(path=path, downloaded=True)

    def _unwritable(self, err: OSError) -> ConfigError:
        return ConfigError(
            f"cannot write to the download cache '{self.root}': {err.strerror or type(err).__name__}",
            hint="free some space, or point CI_FORENSICS_CACHE at a writable folder with room",
        )


def is_intact(path: Path, *, size: int | None = None, sha256: str | None = None) -> bool:
    """The file exists with the expected size and sha256 (each checked when given)."""
    try:
        if not path.is_file() or (size is not None and path.stat().st_size != size):
            return False
    except OSError:
        return False
    if not sha256:
        return True
    digest = hashlib.sha256()
    try:
        with path.open("rb") as stream:
            while block := stream.read(_CHUNK):
                digest.update(block)
    except OSError:
        return False
    return digest.hexdigest() == sha256.removeprefix("sha256:")


def _about_files_in(err: OSError, folder: Path) -> bool:
    """The error comes from writing into `folder`: it names a file there, or the disk ran out of room."""
    if err.errno in _DISK_FULL:  # a failed write() names no file
        return True
    named = (name for name in (err.filename, err.filename2) if isinstance(name, str | bytes | os.PathLike))
    return any(Path(os.fsdecode(name)).parent == folder for name in named)


def _safe(part: str) -> str:
    cleaned = _UNSAFE.sub("_", part).strip("._")
    return cleaned or "_"
