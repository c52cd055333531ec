"""SHA-256 without loading `hashlib` (and OpenSSL through it) for a small input.

A one-line `analyze` hashes its log (report/identity.py) and its redactor's secrets (report/redact.py): a few
bytes. Importing `hashlib` costs ~11 M instructions (about 3 ms, a tenth of what a one-line analyze spends in
its own code), the interpreter's built-in SHA-256 module a few hundred thousand. Both compute the same digest;
OpenSSL's is several times faster over big data, so a big input, or any input once `hashlib` is loaded anyway,
uses it.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any, Protocol

SMALL_INPUT = 1024 * 1024  # bytes: up to this, the built-in module's speed does not matter
_BUILTIN: list[Any] = []  # the built-in sha256 constructor, or None where this Python has none


class Digest(Protocol):
    """What the callers use of a hash object."""

    def update(self, data: bytes, /) -> None: ...

    def hexdigest(self) -> str: ...


def sha256(data: bytes = b"", *, expected_size: int = 0) -> Digest:
    """A SHA-256 hash object fed `data`; `expected_size`: how many bytes will be hashed in all."""
    if expected_size <= SMALL_INPUT and "hashlib" not in sys.modules:
        builtin = _builtin_sha256()
        if builtin is not None:
            digest: Digest = builtin(data)
            return digest
    import hashlib

    return hashlib.sha256(data)


def _builtin_sha256() -> Any:
    """`_sha256.sha256` (Python 3.11) or `_sha2.sha256` (3.12+), None where neither is built in."""
    if not _BUILTIN:
        constructor = None
        for module, name in (("_sha2", "sha256"), ("_sha256", "sha256")):
            try:
                constructor = getattr(importlib.import_module(module), name)
            except (ImportError, AttributeError):
                continue
            break
        _BUILTIN.append(constructor)
    return _BUILTIN[0]
