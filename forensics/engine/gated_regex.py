"""A lazily compiled `regex` pattern that skips its search when the text lacks every literal a match needs.

The likely-cause picker runs a dozen patterns over each line it is fed; on a long line (a request dumped as
JSON, a few KiB) each search costs up to a millisecond in `regex`, while looking for the literals a match must
contain (`rules/literals.py`, the pre-filter's extraction) costs a few microseconds. Same answers: a text
without any of them cannot match. An alternation asked only whether it matches (`AnyOf`) is searched one
branch at a time: `regex` tries every branch at every position of a line, but finds one branch's literal
quickly.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from forensics.lazy_regex import LazyRegex
from forensics.regex_code import compile_pattern
from forensics.rules.literals import MIN_LITERAL, literals_for_flags

if TYPE_CHECKING:
    import regex

_UNKNOWN = ()  # the gate is computed on first use, with the pattern


class GatedRegex(LazyRegex):
    """`LazyRegex` whose `search`/`match`/`fullmatch` return None at once when no required literal occurs."""

    __slots__ = ("_gate", "_minimum")

    def __init__(self, pattern: str, flags: int = 0, *, minimum: int = MIN_LITERAL) -> None:
        super().__init__(pattern, flags)
        self._minimum = minimum  # the shortest literal worth looking for
        self._gate: tuple[tuple[str, ...], bool] | tuple[()] | None = _UNKNOWN

    def possible(self, string: str) -> bool:
        """False only when `string` holds none of the literals every match contains."""
        gate = self._gate
        if gate == _UNKNOWN:
            gate = self._gate = _gate_of(self.pattern, self.flags, self._minimum)
        if not gate:
            return True
        literals, insensitive = gate
        if insensitive:
            if not string.isascii():  # case folding beyond ASCII (`ſ` matches `s`): let `regex` decide
                return True
            string = string.lower()
        return any(literal in string for literal in literals)

    def search(
        self, string: str, pos: int | None = None, endpos: int | None = None
    ) -> regex.Match[str] | None:
        """`regex.Pattern.search`."""
        return self.compiled.search(string, pos, endpos) if self.possible(string) else None

    def match(
        self, string: str, pos: int | None = None, endpos: int | None = None
    ) -> regex.Match[str] | None:
        """`regex.Pattern.match`."""
        return self.compiled.match(string, pos, endpos) if self.possible(string) else None

    def fullmatch(
        self, string: str, pos: int | None = None, endpos: int | None = None
    ) -> regex.Match[str] | None:
        """`regex.Pattern.fullmatch`."""
        return self.compiled.fullmatch(string, pos, endpos) if self.possible(string) else None


def _gate_of(pattern: str, flags: int, minimum: int) -> tuple[tuple[str, ...], bool] | None:
    literals = literals_for_flags(pattern, flags, minimum=minimum)
    if literals is None or not all(literal.isascii() for literal in literals.alternatives):
        return None  # no literal long enough, or one whose case folding `str.lower` may not match
    return literals.alternatives, literals.ignore_case


class AnyOf:
    """Whether an alternation matches anywhere in a text, asked of each top-level branch in turn (each gated
    by its own literals, however short): the same yes or no as the whole pattern, far faster on long lines."""

    __slots__ = ("branches", "flags", "pattern")

    def __init__(self, pattern: str, flags: int = 0, branches: Sequence[str] | None = None) -> None:
        self.pattern = pattern
        self.flags = flags
        self.branches = tuple(
            GatedRegex(branch, flags, minimum=1)
            for branch in (top_level_branches(pattern) if branches is None else branches)
        )

    @classmethod
    def of_branches(cls, branches: Sequence[str], flags: int = 0) -> AnyOf:
        """The alternation of `branches` (each a whole pattern), asked branch by branch: for one that
        `top_level_branches` would keep whole (a `#` in a branch)."""
        return cls("|".join(f"(?:{branch})" for branch in branches), flags, branches)

    def found(self, string: str) -> bool:
        """`regex.compile(pattern, flags).search(string) is not None`."""
        return any(branch.search(string) is not None for branch in self.branches)


_INLINE_FLAGS = compile_pattern(r"\s*\(\?[a-zA-Z]+\)")


def top_level_branches(pattern: str) -> list[str]:
    """The pattern split at each `|` outside groups and classes (escapes respected); a pattern that sets flags
    inline or holds a `#` (a VERBOSE comment) stays whole: the flag or the comment would not reach every part."""
    if _INLINE_FLAGS.match(pattern) or "#" in pattern:
        return [pattern]
    branches: list[str] = []
    depth = 0
    in_class = False
    start = 0
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            index += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
            if pattern[index + 1 : index + 2] == "^":
                index += 1
            if pattern[index + 1 : index + 2] == "]":  # `[]…]` and `[^]…]`: that first `]` is a member
                index += 1
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "|" and depth == 0:
            branches.append(pattern[start:index])
            start = index + 1
        index += 1
    branches.append(pattern[start:])
    return branches
