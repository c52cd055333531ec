"""The download cache: artifacts keyed by id, finished jobs' logs keyed by job id, per CI host.

Files only ever appear under their final name by an atomic rename of a complete, verified download
(`HttpClient.download` writes `<name>.part-<pid>-<ns>` first), so an interrupted download is never used
and two fetches sharing the cache at once at worst both download the same file and the last rename wins.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import platformdirs
import regex

from forensics.errors import ConfigError

_UNSAFE = regex.compile(r"[^A-Za-z0-9_.-]+")
_CHUNK = 1 << 20


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

        `reuse=False` always downloads (a running job's log still grows).
        """
        if reuse and is_intact(path, size=size, sha256=sha256):
            return CachedFile(path=path, downloaded=False)
        try:
            download(path)
        except OSError as err:  # the network side raises ServiceError; this is our disk
            raise ConfigError(
                f"cannot write to the download cache '{self.root}': {err.strerror or err}",
                hint="free some space, or point CI_FORENSICS_CACHE at a writable folder with room",
            ) from err
        return CachedFile(path=path, downloaded=True)


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


def _safe(part: str) -> str:
    cleaned = _UNSAFE.sub("_", part).strip("._")
    return cleaned or "_"
