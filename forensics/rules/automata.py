"""Compiled Hyperscan databases kept on disk, so that a pack's pre-filter is compiled once and not on every run.

Compiling the pre-filter's literals into a Hyperscan database costs ~10 ms for the shipped pack and ~50-100 ms
for 500 rules, on every run that searches more than a few KiB; reading the same database back costs well under
a millisecond (`hs_deserialize_database`). The store keys a database by everything that went into it (each
literal, its case flag, the literal count and Hyperscan's version), so an edited pack, another Hyperscan or a
different order of literals is another entry; a pack is never named. Each file holds the SHA-256 of the
serialized database before it: a truncated or damaged file is not handed to Hyperscan but compiled again and
rewritten. At most `MAX_ENTRIES` databases are kept (the least recently written go first; rules/cache_files.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from forensics.rules.cache_files import prune_oldest, write_atomically

MAX_ENTRIES = 32
_FORMAT = b"ci-forensics hyperscan database 1\n"
_DIGEST = 32  # bytes of SHA-256 before the database


def _sha256(data: bytes) -> bytes:
    import hashlib  # the store is read only past a few KiB of logs: a one-line log never loads hashlib

    return hashlib.sha256(data).digest()


class AutomatonStore:
    """Serialized Hyperscan databases in one folder, one file per key (`database_key`)."""

    __slots__ = ("directory",)

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    @classmethod
    def default(cls) -> AutomatonStore:
        """The store beside the rule-pack cache (`~/.cache/ci-forensics/rules/automata` on Linux)."""
        from forensics.rules.cache import default_cache_dir

        return cls(default_cache_dir() / "automata")

    def load(self, key: str) -> bytes | None:
        """The serialized database stored under `key`, or None (missing, unreadable or damaged)."""
        try:
            with open(self.directory / f"{key}.hs", "rb") as stream:
                data = stream.read()
        except OSError:
            return None
        digest, blob = data[:_DIGEST], data[_DIGEST:]
        if len(digest) < _DIGEST or not blob or _sha256(blob) != digest:
            return None
        return blob

    def save(self, key: str, blob: bytes) -> None:
        """Store a serialized database (written whole, then renamed into place; a failure is ignored: the next
        run compiles again)."""
        if write_atomically(self.directory, f"{key}.hs", _sha256(blob) + blob):
            prune_oldest(self.directory, "*.hs", MAX_ENTRIES)


def database_key(version: str, expressions: Sequence[bytes], flags: Sequence[int]) -> str:
    """The name of the database compiled from these literals with these flags by this Hyperscan."""
    parts = [_FORMAT, version.encode(), b"\n%d\n" % len(expressions)]
    for expression, flag in zip(expressions, flags, strict=True):
        parts.append(b"%d:%d:" % (flag, len(expression)))
        parts.append(expression)
    return _sha256(b"".join(parts)).hex()
