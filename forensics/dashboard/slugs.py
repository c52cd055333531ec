"""File names for cause pages: safe on every file system and in a URL, unique, and stable across builds."""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Iterable

_UNSAFE = re.compile(r"[^a-z0-9._-]+")
_MAX_LENGTH = 80
# Windows refuses these as file names whatever the extension; a site copied there must still open.
_RESERVED = frozenset(
    {"con", "prn", "aux", "nul", *(f"com{n}" for n in range(10)), *(f"lpt{n}" for n in range(10))}
)


def slugify(key: str) -> str:
    """`vllm.startup-free-memory` stays; `Weird Key/…` → `weird-key`; never empty, hidden or `..`."""
    slug = _UNSAFE.sub("-", key.lower()).strip("-._")[:_MAX_LENGTH].strip("-._")
    if not slug:
        return "cause"
    return f"{slug}-cause" if slug.split(".")[0] in _RESERVED else slug


def unique_slugs(keys: Iterable[str]) -> dict[str, str]:
    """Key → slug; keys whose slugs collide (`A` and `a`, `x/y` and `x-y`) get a suffix from their own hash.

    The suffix depends on the key alone, so a page keeps its address when other causes come and go.
    """
    ordered = list(dict.fromkeys(keys))
    base = {key: slugify(key) for key in ordered}
    clashes = Counter(base.values())
    taken = {slug for slug, count in clashes.items() if count == 1}
    slugs: dict[str, str] = {key: base[key] for key in ordered if clashes[base[key]] == 1}
    for key in ordered:
        if key in slugs:
            continue
        candidate = f"{base[key]}-{hashlib.sha256(key.encode('utf-8')).hexdigest()[:8]}"
        number = 2
        unique = candidate
        while unique in taken:
            unique = f"{candidate}-{number}"
            number += 1
        taken.add(unique)
        slugs[key] = unique
    return {key: slugs[key] for key in ordered}
