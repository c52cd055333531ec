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

try:  # Python 3.11+ keeps the parser private; it is stable across 3.11-3.14
    import re._parser as sre_parse  # type: ignore[import-not-found]
    from re._constants import (  # type: ignore[import-not-found]
        BRANCH,
        LITERAL,
        MAX_REPEAT,
        MIN_REPEAT,
        POSSESSIVE_REPEAT,
        SUBPATTERN,
    )
except ImportError:  # pragma: no cover - only on a Python that moved it
    sre_parse = None

try:
    import re2  # type: ignore[import-untyped]  # google-re2: a DFA for the one big alternation of literals
except ImportError:  # pragma: no cover - the dependency is declared; this keeps a broken wheel usable
    re2 = None

MIN_LITERAL = 3
_ATOMIC_GROUP = "ATOMIC_GROUP"


@dataclass(frozen=True, slots=True)
class Literals:
    """Any one of `alternatives` must occur in a line the pattern matches."""

    alternatives: tuple[str, ...]
    ignore_case: bool


# What `required_literals` found, by (pattern, ignore_case): the pack cache fills it from disk, so a run with an
# unchanged pack parses no pattern (a thousand rules' patterns take ~70 ms to parse).
_KNOWN_LITERALS: dict[tuple[str, bool], Literals | None] = {}


def remember_literals(pattern: str, *, ignore_case: bool, literals: Literals | None) -> None:
    """Record what `required_literals` returns for this pattern (from the pack cache, computed by it before)."""
    _KNOWN_LITERALS[(pattern, ignore_case)] = literals


def required_literals(pattern: str, *, ignore_case: bool) -> Literals | None:
    """The best set of literals a match must contain, or None when none is long enough."""
    key = (pattern, ignore_case)
    if key not in _KNOWN_LITERALS:
        _KNOWN_LITERALS[key] = _required_literals(pattern, ignore_case=ignore_case)
    return _KNOWN_LITERALS[key]


def _required_literals(pattern: str, *, ignore_case: bool) -> Literals | None:
    if sre_parse is None:
        return None
    try:
        parsed = sre_parse.parse(pattern, re.IGNORECASE if ignore_case else 0)
    except (re.error, OverflowError, RecursionError, TypeError):
        return None  # `regex`-only syntax: no pre-filter for this pattern
    flags = parsed.state.flags
    insensitive = ignore_case or bool(flags & re.IGNORECASE) or _has_scoped_ignorecase(parsed.data)
    best = _best_of_sequence(list(parsed.data))
    if best is None or min(len(lit) for lit in best) < MIN_LITERAL:
        return None
    alternatives = tuple(
        sorted({lit.lower() if insensitive else lit for lit in best}, key=lambda s: (-len(s), s))
    )
    return Literals(alternatives=alternatives, ignore_case=insensitive)


def _has_scoped_ignorecase(items: object) -> bool:
    """True when a `(?i:...)` group appears anywhere: its literals must then be matched case-insensitively."""
    for op, argument in items:  # type: ignore[attr-defined]
        if op is SUBPATTERN:
            _group, add_flags, _remove, sub = argument
            if add_flags & re.IGNORECASE or _has_scoped_ignorecase(sub.data):
                return True
        elif (op is BRANCH and any(_has_scoped_ignorecase(branch.data) for branch in argument[1])) or (
            op in (MAX_REPEAT, MIN_REPEAT, POSSESSIVE_REPEAT) and _has_scoped_ignorecase(argument[2].data)
        ):
            return True
    return False


def _score(option: Sequence[str]) -> tuple[int, int]:
    return (min(len(lit) for lit in option), -len(option))


def _best_of_sequence(items: list[tuple[object, object]]) -> list[str] | None:
    """Among the literal runs and required sub-parts of a sequence, the most selective one."""
    options: list[list[str]] = []
    run: list[str] = []

    def close_run() -> None:
        if run:
            options.append(["".join(run)])
            run.clear()

    for op, argument in items:
        if op is LITERAL:
            run.append(chr(argument))  # type: ignore[arg-type]
            continue
        close_run()
        sub = _required_option(op, argument)
        if sub is not None:
            options.append(sub)
    close_run()
    options = [option for option in options if option and all(option)]
    if not options:
        return None
    return max(options, key=_score)


def _required_option(op: object, argument: object) -> list[str] | None:
    """Literals that any match of this element must contain, or None."""
    if op is SUBPATTERN:
        subpattern: Any = argument
        return _best_of_sequence(list(subpattern[3].data))
    if op is BRANCH:
        branches: Any = argument[1]  # type: ignore[index]
        collected: list[str] = []
        for branch in branches:
            best = _best_of_sequence(list(branch.data))
            if best is None:
                return None
            collected.extend(best)
        return collected
    if op in (MAX_REPEAT, MIN_REPEAT, POSSESSIVE_REPEAT):
        repeat: Any = argument
        return _best_of_sequence(list(repeat[2].data)) if repeat[0] >= 1 else None
    if str(op) == _ATOMIC_GROUP:
        return _best_of_sequence(list(argument.data))  # type: ignore[attr-defined]
    return None


class _Searcher(Protocol):
    """What the scanner needs of a compiled pre-filter: the next literal at or after a position."""

    def search(self, data: bytes, pos: int = ...) -> _Match | None: ...


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
