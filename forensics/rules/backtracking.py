"""Find the repeats that make a regex backtrack exponentially: nested quantifiers and overlapping alternatives.

`(a+)+`, `(\\w+\\s?)*$` and `(a|aa)+$` take seconds on a 60-character line that almost matches. The
timing check in `rules lint` only catches the lines it thinks to try; this looks at the pattern's shape. A
repeated group is flagged when one pass of it can be split into several passes in more than one way:

- it holds an unbounded repeat and nothing it must match sets the passes apart (a mandatory item whose
  characters the inner repeat cannot take): `(\\d+\\.)+` is fine, `(\\d+\\.?)+` is not;
- two of its alternatives can start with the same character: `(a|aa)+`, `(foo|f\\w+)*`.

Character sets are compared over a sample of characters (ASCII and a few others), which is enough to tell
digits from dots; a pattern `re` cannot parse (syntax only `regex` knows) is not judged here.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

try:  # Python 3.11+ keeps the parser private; it is stable across 3.11-3.14 (as in engine/prefilter.py)
    import re._parser as sre_parse  # type: ignore[import-not-found]
    from re._constants import (  # type: ignore[import-not-found]
        ANY,
        AT,
        BRANCH,
        CATEGORY,
        IN,
        LITERAL,
        MAX_REPEAT,
        MAXREPEAT,
        MIN_REPEAT,
        NEGATE,
        NOT_LITERAL,
        POSSESSIVE_REPEAT,
        RANGE,
        SUBPATTERN,
    )
except ImportError:  # pragma: no cover - only on a Python that moved it
    sre_parse = None

_SAMPLE = frozenset(chr(code) for code in range(0x80)) | frozenset("é中Ж\u00a0\u2028")
_MANY = 16  # a repeat allowing this many passes counts as unbounded
_CATEGORIES: dict[str, Callable[[str], bool]] = {
    "CATEGORY_DIGIT": str.isdigit,
    "CATEGORY_SPACE": str.isspace,
    "CATEGORY_WORD": lambda char: char.isalnum() or char == "_",
}
Item = tuple[Any, Any]


def backtracking_repeats(pattern: str, *, ignore_case: bool = False) -> list[str]:
    """A description of each repeat in `pattern` that can backtrack exponentially ([] when none)."""
    if sre_parse is None:
        return []
    try:
        parsed = sre_parse.parse(pattern, re.IGNORECASE if ignore_case else 0)
    except (re.error, OverflowError, RecursionError, TypeError, ValueError):
        return []
    found: list[str] = []
    _walk(list(parsed.data), found)
    return found


def _walk(items: Sequence[Item], found: list[str]) -> None:
    for op, argument in items:
        for child in _children(op, argument):
            _walk(child, found)
        if op in (MAX_REPEAT, MIN_REPEAT) and argument[1] >= _MANY:
            body = _flatten(list(argument[2].data))
            problem = _nested(body) or _overlapping(body)
            if problem:
                found.append(problem)


def _children(op: Any, argument: Any) -> list[Sequence[Item]]:
    if op is SUBPATTERN:
        return [list(argument[-1].data)]
    if op is BRANCH:
        return [list(branch.data) for branch in argument[1]]
    if op in (MAX_REPEAT, MIN_REPEAT, POSSESSIVE_REPEAT):
        return [list(argument[2].data)]
    return []


def _flatten(items: Sequence[Item]) -> list[Item]:
    """A sequence with plain groups opened up: `((\\d+)\\.)` is `\\d+ \\.`."""
    flat: list[Item] = []
    for op, argument in items:
        if op is SUBPATTERN:
            flat.extend(_flatten(list(argument[-1].data)))
        else:
            flat.append((op, argument))
    return flat


def _nested(body: list[Item]) -> str:
    """An unbounded repeat inside the repeated body, with no mandatory item to set the passes apart."""
    for index, (op, argument) in enumerate(body):
        inner = _unbounded_repeats(op, argument)
        for taken in inner:
            separated = any(
                _min_width(other) > 0 and not (_chars([other]) & taken)
                for number, other in enumerate(body)
                if number != index
            )
            if not separated:
                return "a repeat inside a repeat (like `(a+)+`) with nothing between passes that the inner one cannot take"
    return ""


def _overlapping(body: list[Item]) -> str:
    """Alternatives (or an optional tail and the next pass) that can start with the same character."""
    body_first = _first(body)
    for index, (op, argument) in enumerate(body):
        if op is not BRANCH:
            continue
        rest = body[index + 1 :]
        starts = []
        for branch in argument[1]:
            alternative = [*branch.data, *rest]
            first = _first(alternative)
            if _min_width_of(alternative) == 0:
                first |= body_first  # an empty way through: the next pass starts here
            starts.append(first)
        for number, first in enumerate(starts):
            if any(first & other for other in starts[number + 1 :]):
                return "overlapping alternatives inside a repeat (like `(a|aa)+`)"
    return ""


def _unbounded_repeats(op: Any, argument: Any) -> list[frozenset[str]]:
    """The characters each unbounded repeat in this item (at any depth) can take."""
    found = []
    if op in (MAX_REPEAT, MIN_REPEAT) and argument[1] >= _MANY:
        found.append(_chars(list(argument[2].data)))
    for child in _children(op, argument):
        for child_op, child_argument in child:
            found.extend(_unbounded_repeats(child_op, child_argument))
    return found


def _chars(items: Sequence[Item]) -> frozenset[str]:
    """Every sample character the items can consume, at any position."""
    chars: set[str] = set()
    for op, argument in items:
        single = _single(op, argument)
        if single is not None:
            chars |= single
        for child in _children(op, argument):
            chars |= _chars(child)
    return frozenset(chars)


def _first(items: Sequence[Item]) -> frozenset[str]:
    """The sample characters a match of the sequence can start with."""
    first: set[str] = set()
    for op, argument in items:
        single = _single(op, argument)
        if single is not None:
            return frozenset(first | single)
        if op is BRANCH:
            for branch in argument[1]:
                first |= _first(list(branch.data))
        else:
            for child in _children(op, argument):
                first |= _first(child)
        if _min_width((op, argument)) > 0:
            return frozenset(first)
    return frozenset(first)


def _single(op: Any, argument: Any) -> frozenset[str] | None:
    """The characters a one-character item matches; None for anything else."""
    if op is LITERAL:
        return frozenset({chr(argument)})
    if op is NOT_LITERAL:
        return _SAMPLE - {chr(argument)}
    if op is ANY:
        return _SAMPLE - {"\n"}
    if op is IN:
        return _in_set(argument)
    return None


def _in_set(members: Sequence[Item]) -> frozenset[str]:
    chars: set[str] = set()
    negate = False
    for op, argument in members:
        if op is NEGATE:
            negate = True
        elif op is LITERAL:
            chars.add(chr(argument))
        elif op is NOT_LITERAL:
            chars |= _SAMPLE - {chr(argument)}
        elif op is RANGE:
            chars |= {char for char in _SAMPLE if argument[0] <= ord(char) <= argument[1]}
        elif op is CATEGORY:
            name = str(argument)
            test = _CATEGORIES.get(name.replace("NOT_", "").replace("LOC_", "").replace("UNI_", ""))
            if test is not None:
                matched = {char for char in _SAMPLE if test(char)}
                chars |= (_SAMPLE - matched) if "NOT_" in name else matched
            else:
                chars |= _SAMPLE
    return frozenset(_SAMPLE - chars if negate else chars)


def _min_width(item: Item) -> int:
    op, argument = item
    if op is AT:
        return 0
    if _single(op, argument) is not None:
        return 1
    if op is SUBPATTERN:
        return _min_width_of(list(argument[-1].data))
    if op is BRANCH:
        return min(_min_width_of(list(branch.data)) for branch in argument[1])
    if op in (MAX_REPEAT, MIN_REPEAT, POSSESSIVE_REPEAT):
        low: int = min(int(argument[0]), MAXREPEAT)
        return low * _min_width_of(list(argument[2].data))
    return 0  # lookarounds, backreferences, group references: assume they may be empty


def _min_width_of(items: Sequence[Item]) -> int:
    return sum(_min_width(item) for item in items)
