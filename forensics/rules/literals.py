"""The literal text every match of a rule's pattern must contain, read from the pattern itself.

A property of the pattern, so it lives with the rules: the loader caches it with a validated pack, and the
engine's pre-filter (engine/prefilter.py) searches a block of log bytes for all of them at once.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

try:  # Python 3.11+ keeps the parser private; it is stable across 3.11-3.14
    import re._parser as sre_parse  # type: ignore[import-not-found]
    from re._constants import (  # type: ignore[import-not-found]
        ASSERT,
        ASSERT_NOT,
        AT,
        BRANCH,
        IN,
        LITERAL,
        MAX_REPEAT,
        MIN_REPEAT,
        POSSESSIVE_REPEAT,
        SUBPATTERN,
    )
except ImportError:  # pragma: no cover - only on a Python that moved it
    sre_parse = None

MIN_LITERAL = 3
# The flags as plain ints: `int & re.IGNORECASE` is RegexFlag's `__rand__`, which builds a flag member for every
# new value (~0.1 M instructions each, ~5 M of a one-line `analyze` for the matching rule's patterns).
_IGNORECASE = int(re.IGNORECASE)
_PARSE_FLAGS = int(re.IGNORECASE | re.VERBOSE | re.MULTILINE | re.DOTALL)
# Adjacent parts that each match one of a few exact strings are joined (`(?:failed|timed out) after` requires
# "failed after" or "timed out after"); past this many alternatives a part starts a new run instead.
MAX_JOINED = 64
MAX_CLASS = 4  # a character class of at most this many single characters is a few exact strings
MAX_WAYS = 16  # alternations split into ways (`required_literal_ways`), at most this many per pattern
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


def literals_for_flags(pattern: str, flags: int, *, minimum: int = MIN_LITERAL) -> Literals | None:
    """`required_literals` of a pattern compiled with these `re`/`regex` flags (IGNORECASE, VERBOSE, MULTILINE
    mean the same in both), literals of at least `minimum` characters: for the engine's own patterns, each
    computed once and kept on disk (`rules/literal_table.py`'s `GATES`)."""
    from forensics.rules.literal_table import GATES, StoredGate

    stored: StoredGate | None = GATES.get((pattern, flags, minimum))
    if stored is not None:
        return Literals(*stored) if stored else None
    literals = _required_literals(pattern, ignore_case=False, flags=flags, minimum=minimum)
    GATES.put((pattern, flags, minimum), (literals.alternatives, literals.ignore_case) if literals else ())
    return literals


def required_literal_sets(pattern: str, *, ignore_case: bool) -> tuple[Literals, ...]:
    """Every set of literals a match must contain one of (each part of the pattern that needs one), not only
    the best: a line that lacks any of them cannot match. Empty when the pattern cannot be read."""
    parsed = _parse(pattern, ignore_case=ignore_case, flags=0)
    if parsed is None:
        return ()
    insensitive = _insensitive(parsed, ignore_case=ignore_case)
    return tuple(_literals(option, insensitive) for option in _options_of_sequence(list(parsed.data)))


def required_literal_ways(pattern: str, *, ignore_case: bool) -> tuple[tuple[Literals, ...], ...]:
    """`required_literal_sets` per way a match can take through the pattern's alternations (`A|B`, `x(?:A|B)y`:
    each branch spliced into the sequence around it, at most `MAX_WAYS` ways): a line the pattern matches holds
    one literal of every set of some way. Finer than the sets of the whole pattern, which take each branch's best
    literals together: `(?:Error|Exception): .{0,80}CUDA.{0,40}not available|No CUDA GPUs` needs "Error: " or
    "Exception: ", "CUDA" and "not available" (or the other branch's text), where the whole pattern's sets ask
    only for "not available" or that text. One way (the whole pattern's sets) when there is no alternation to
    split; empty when the pattern cannot be read. Kept on disk per pattern (`rules/literal_table.py`)."""
    from forensics.rules.literal_table import WAYS, StoredWays

    stored: StoredWays | None = WAYS.get((pattern, ignore_case))
    if stored is not None:
        return tuple(
            tuple(Literals(alternatives, insensitive) for alternatives, insensitive in way) for way in stored
        )
    ways = computed_literal_ways(pattern, ignore_case=ignore_case)
    WAYS.put(
        (pattern, ignore_case),
        tuple(tuple((lit.alternatives, lit.ignore_case) for lit in way) for way in ways),
    )
    return ways


def computed_literal_ways(pattern: str, *, ignore_case: bool) -> tuple[tuple[Literals, ...], ...]:
    """`required_literal_ways` read from the pattern itself (no table)."""
    parsed = _parse(pattern, ignore_case=ignore_case, flags=0)
    if parsed is None:
        return ()
    insensitive = _insensitive(parsed, ignore_case=ignore_case)
    return tuple(
        tuple(_literals(option, insensitive) for option in _options_of_sequence(items))
        for items in _ways(list(parsed.data))
    )


def _ways(items: list[tuple[object, object]]) -> list[list[tuple[object, object]]]:
    """The sequence with its alternations (not those of a few exact strings, which `_options_of_sequence`
    already joins into runs) replaced by each of their branches in turn, first one first; an alternation that
    would make more than `MAX_WAYS` ways is left whole."""
    done: list[list[tuple[object, object]]] = []
    pending = [items]
    while pending:
        sequence = pending.pop(0)
        split = _alternation_in(sequence)
        if split is None or len(done) + len(pending) + len(split[1]) > MAX_WAYS:
            done.append(sequence)
            continue
        index, branches = split
        pending.extend([*sequence[:index], *branch, *sequence[index + 1 :]] for branch in branches)
    return done


def _alternation_in(
    items: list[tuple[object, object]],
) -> tuple[int, list[list[tuple[object, object]]]] | None:
    """The first element of a sequence that is an alternation (or a group holding only one), with its branches,
    unless it matches a few exact strings; None when there is none."""
    for index, (outer, outer_argument) in enumerate(items):
        op, argument = outer, outer_argument
        if outer is SUBPATTERN:
            inner: Any = outer_argument
            if len(inner[3].data) != 1:
                continue
            op, argument = inner[3].data[0]
        if op is BRANCH and _exact(op, argument) is None:
            branches: Any = argument
            return index, [list(branch.data) for branch in branches[1]]
    return None


def _required_literals(
    pattern: str, *, ignore_case: bool, flags: int = 0, minimum: int = MIN_LITERAL
) -> Literals | None:
    parsed = _parse(pattern, ignore_case=ignore_case, flags=flags)
    if parsed is None:
        return None
    best = _best_of_sequence(list(parsed.data))
    if best is None or min(len(lit) for lit in best) < minimum:
        return None
    return _literals(best, _insensitive(parsed, ignore_case=ignore_case))


def _parse(pattern: str, *, ignore_case: bool, flags: int) -> Any:
    if sre_parse is None:
        return None
    parse_flags = (int(flags) & _PARSE_FLAGS) | (_IGNORECASE if ignore_case else 0)
    try:
        return sre_parse.parse(pattern, parse_flags)
    except (re.error, OverflowError, RecursionError, TypeError):
        return None  # `regex`-only syntax: no pre-filter for this pattern


def _insensitive(parsed: Any, *, ignore_case: bool) -> bool:
    return ignore_case or bool(int(parsed.state.flags) & _IGNORECASE) or _has_scoped_ignorecase(parsed.data)


def _literals(option: Sequence[str], insensitive: bool) -> Literals:
    found = {lit.lower() if insensitive else lit for lit in option}
    # a literal holding another one adds nothing: wherever it occurs, the shorter one does too
    kept = {lit for lit in found if not any(other != lit and other in lit for other in found)}
    alternatives = tuple(sorted(kept, key=lambda s: (-len(s), s)))
    return Literals(alternatives=alternatives, ignore_case=insensitive)


def _has_scoped_ignorecase(items: object) -> bool:
    """True when a `(?i:...)` group appears anywhere: its literals must then be matched case-insensitively."""
    for op, argument in items:  # type: ignore[attr-defined]
        if op is SUBPATTERN:
            _group, add_flags, _remove, sub = argument
            if int(add_flags) & _IGNORECASE or _has_scoped_ignorecase(sub.data):
                return True
        elif (op is BRANCH and any(_has_scoped_ignorecase(branch.data) for branch in argument[1])) or (
            op in (MAX_REPEAT, MIN_REPEAT, POSSESSIVE_REPEAT) and _has_scoped_ignorecase(argument[2].data)
        ):
            return True
    return False


def _score(option: Sequence[str]) -> tuple[int, int]:
    return (min(len(lit) for lit in option), -len(option))


def _best_of_sequence(items: list[tuple[object, object]]) -> list[str] | None:
    """Among the runs of exact parts and required sub-parts of a sequence, the most selective one."""
    options = _options_of_sequence(items)
    return max(options, key=_score) if options else None


def _options_of_sequence(items: list[tuple[object, object]]) -> list[list[str]]:
    """The runs of exact parts and the required sub-parts of a sequence: a match holds one of each."""
    options: list[list[str]] = []
    run: list[str] = [""]  # every string the exact parts since the last other part can match, joined

    def close_run() -> None:
        if run != [""]:
            options.append(list(run))
        run[:] = [""]

    for op, argument in items:
        exact = _exact(op, argument)
        if exact is not None:
            if len(run) * len(exact) > MAX_JOINED:
                close_run()
            run[:] = list(dict.fromkeys(head + tail for head in run for tail in exact))
            continue
        close_run()
        sub = _required_option(op, argument)
        if sub is not None:
            options.append(sub)
    close_run()
    return [option for option in options if option and all(option)]


def _exact(op: object, argument: object) -> list[str] | None:
    """The strings this element can match, when they are few and known (zero-width: the empty string), or None."""
    if op is LITERAL:
        return [chr(argument)]  # type: ignore[arg-type]
    if op in (AT, ASSERT, ASSERT_NOT):
        return [""]  # an anchor or a look-around consumes nothing: the parts around it are adjacent
    if op is IN:
        members: Any = argument
        if len(members) <= MAX_CLASS and all(kind is LITERAL for kind, _value in members):
            return [chr(value) for _kind, value in members]
        return None
    if op is SUBPATTERN:
        subpattern: Any = argument
        return _exact_sequence(list(subpattern[3].data))
    if op is BRANCH:
        collected = _every_branch(argument, _exact_sequence)
        return (
            list(dict.fromkeys(collected)) if collected is not None and len(collected) <= MAX_JOINED else None
        )
    if op in (MAX_REPEAT, MIN_REPEAT, POSSESSIVE_REPEAT):
        repeat: Any = argument
        low, high = repeat[0], repeat[1]
        body = _exact_sequence(list(repeat[2].data))
        if body is None or high > 2 or (low == 0 and high == 2):
            return None
        once = body if low == high == 1 else [*body, ""] if low == 0 else None
        if low == high == 2:
            once = [a + b for a in body for b in body]
        return list(dict.fromkeys(once)) if once is not None and len(once) <= MAX_JOINED else None
    return None


def _every_branch(
    argument: object, of_sequence: Callable[[list[tuple[object, object]]], list[str] | None]
) -> list[str] | None:
    """`of_sequence` of each branch of an alternation, all together; None when one branch has none."""
    branches: Any = argument[1]  # type: ignore[index]
    collected: list[str] = []
    for branch in branches:
        strings = of_sequence(list(branch.data))
        if strings is None:
            return None
        collected.extend(strings)
    return collected


def _exact_sequence(items: list[tuple[object, object]]) -> list[str] | None:
    """The strings a whole sequence can match, when each of its elements is exact and they stay few."""
    strings = [""]
    for op, argument in items:
        exact = _exact(op, argument)
        if exact is None or len(strings) * len(exact) > MAX_JOINED:
            return None
        strings = list(dict.fromkeys(head + tail for head in strings for tail in exact))
    return strings


def _required_option(op: object, argument: object) -> list[str] | None:
    """Literals that any match of this element must contain, or None."""
    if op is SUBPATTERN:
        subpattern: Any = argument
        return _best_of_sequence(list(subpattern[3].data))
    if op is BRANCH:
        return _every_branch(argument, _best_of_sequence)
    if op in (MAX_REPEAT, MIN_REPEAT, POSSESSIVE_REPEAT):
        repeat: Any = argument
        return _best_of_sequence(list(repeat[2].data)) if repeat[0] >= 1 else None
    if str(op) == _ATOMIC_GROUP:
        return _best_of_sequence(list(argument.data))  # type: ignore[attr-defined]
    return None
