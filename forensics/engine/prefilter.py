"""Find the literal text every match of a pattern must contain, and search a block for all of them at once.

Matching every rule's regex against every line is what makes a naive engine slow. Instead one combined
search over raw bytes finds the few lines that contain some rule's required literal; only those lines
are decoded, normalised and given to the real patterns. A pattern without a usable literal (3+ chars)
makes every line a candidate: correct, just slower (`rules lint` points such patterns out).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from forensics.rules.literals import Literals

try:
    import re2  # type: ignore[import-untyped]  # google-re2: a DFA for the one big alternation of literals
except ImportError:  # pragma: no cover - the dependency is declared; this keeps a broken wheel usable
    re2 = None


class _Searcher(Protocol):
    """What the scanner needs of a compiled pre-filter: the next literal at or after a position."""

    def search(self, data: bytes, pos: int = ..., endpos: int = ...) -> _Match | None: ...


class _Match(Protocol):
    def start(self) -> int: ...


@dataclass(frozen=True, slots=True)
class Prefilter:
    """One compiled bytes pattern that finds any rule literal; `None` means every line is a candidate.

    RE2 (google-re2) runs the alternation as a DFA, ~3x faster than Python's `re` on an alternation of a few
    hundred literals, which backtracks per position; `re` is the fallback where RE2 cannot be imported.
    """

    pattern: _Searcher | None

    @classmethod
    def build(cls, literal_sets: Sequence[Literals | None]) -> Prefilter:
        """Combine the literals of every probe; one probe without literals turns the filter off."""
        if not literal_sets or any(literals is None for literals in literal_sets):
            return cls(pattern=None)
        sensitive: set[bytes] = set()
        insensitive: set[bytes] = set()
        for literals in literal_sets:
            assert literals is not None
            target = insensitive if literals.ignore_case else sensitive
            target.update(lit.encode("utf-8") for lit in literals.alternatives)
        if re2 is not None:
            return cls(pattern=re2.compile(_alternation(sensitive, insensitive, _re2_escape), _re2_options()))
        return cls(pattern=re.compile(_alternation(sensitive, insensitive, re.escape)))


def first_match_finder(pattern: _Searcher) -> Callable[[bytes, int, int], int]:
    """`find(data, pos, endpos)`: where the pattern's next match in `data[pos:endpos]` starts, or -1.

    With RE2 it calls the compiled regexp itself: google-re2's `search` is a Python generator that builds a
    match object, a few microseconds per call, and the scanner calls it once per candidate line (~50 a MiB)."""
    compiled = getattr(pattern, "_regexp", None)
    anchor = getattr(getattr(re2, "_Anchor", None), "UNANCHORED", None)
    if compiled is not None and anchor is not None and hasattr(compiled, "Match"):
        match = compiled.Match

        def find_re2(data: bytes, pos: int, endpos: int) -> int:
            start: int = match(anchor, data, pos, endpos)[0][0]
            return start

        return find_re2

    def find(data: bytes, pos: int, endpos: int) -> int:
        found = pattern.search(data, pos, endpos)
        return -1 if found is None else found.start()

    return find


RE2_MEMORY = 256 * 1024 * 1024


def _re2_options() -> Any:
    """RE2's default 8 MiB budget is too small for the DFA of a few hundred rules' literals: past it RE2
    falls back to its NFA (~100x slower) and logs "DFA out of memory". The DFA cache fills only as needed."""
    options = re2.Options()
    options.max_mem = RE2_MEMORY
    return options


def _alternation(sensitive: set[bytes], insensitive: set[bytes], escape: Callable[[bytes], bytes]) -> bytes:
    parts = [escape(lit) for lit in sorted(sensitive, key=lambda b: (-len(b), b))]
    if insensitive:
        joined = b"|".join(escape(lit) for lit in sorted(insensitive, key=lambda b: (-len(b), b)))
        parts.append(b"(?i:" + joined + b")")
    return b"|".join(parts)


_RE2_ESCAPES = {byte: b"\\x%02x" % byte for byte in range(0x80) if not chr(byte).isalnum()}
_RE2_UNSAFE = re.compile(b"[" + b"".join(b"\\x%02x" % byte for byte in _RE2_ESCAPES) + b"]")


def _re2_escape(literal: bytes) -> bytes:
    """Every ASCII byte that is not a letter or digit as `\\xHH` (RE2 refuses some backslash escapes)."""
    return _RE2_UNSAFE.sub(lambda match: _RE2_ESCAPES[match.group()[0]], literal)


class ProbeSelector:
    """Which probes' literals occur in one candidate line, so only their patterns run.

    With RE2, one `RE2::Set` call answers for every probe at once; without it, each probe's literals are
    looked up with `in`. Probes without literals are always selected.
    """

    def __init__(self, literal_sets: Sequence[Literals | None]) -> None:
        self.always = tuple(number for number, literals in enumerate(literal_sets) if literals is None)
        self._literal_sets = tuple(literal_sets)
        self._set_members: list[int] = []
        self._set: Any = None
        if re2 is not None:
            matcher = re2.Set.SearchSet(_re2_options())
            for number, literals in enumerate(literal_sets):
                if literals is None:
                    continue
                encoded = {literal.encode("utf-8") for literal in literals.alternatives}
                pattern = b"|".join(_re2_escape(literal) for literal in sorted(encoded))
                matcher.Add(b"(?i:" + pattern + b")" if literals.ignore_case else pattern)
                self._set_members.append(number)
            if self._set_members:
                matcher.Compile()
                self._set = matcher

    def select(self, text: str) -> list[int]:
        """Probe numbers, ascending, whose literals occur in the (normalised) line."""
        if self._set is not None:
            found = self._set.Match(text.encode("utf-8")) or ()
            selected = [self._set_members[index] for index in found]
        else:
            folded = text.lower()
            selected = [
                number
                for number, literals in enumerate(self._literal_sets)
                if literals is not None
                and any(
                    literal in (folded if literals.ignore_case else text) for literal in literals.alternatives
                )
            ]
        if self.always:
            selected.extend(self.always)
        selected.sort()
        return selected
