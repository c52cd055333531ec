"""A lazily compiled `regex` pattern that skips its search when the text lacks every literal a match needs.

The likely-cause picker runs a dozen patterns over each line it is fed; on a long line (a request dumped as
JSON, a few KiB) each search costs up to a millisecond in `regex`, while looking for the literals a match must
contain (`rules/literals.py`, the pre-filter's extraction) costs a few microseconds. Same answers: a text
without any of them cannot match.
"""

from __future__ import annotations

import regex

from forensics.engine.lazy_regex import LazyRegex
from forensics.rules.literals import literals_for_flags

_UNKNOWN = ()  # the gate is computed on first use, with the pattern


class GatedRegex(LazyRegex):
    """`LazyRegex` whose `search`/`match`/`fullmatch` return None at once when no required literal occurs."""

    __slots__ = ("_gate",)

    def __init__(self, pattern: str, flags: int = 0) -> None:
        super().__init__(pattern, flags)
        self._gate: tuple[tuple[str, ...], bool] | tuple[()] | None = _UNKNOWN

    def possible(self, string: str) -> bool:
        """False only when `string` holds none of the literals every match contains."""
        gate = self._gate
        if gate == _UNKNOWN:
            gate = self._gate = _gate_of(self.pattern, self.flags)
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


def _gate_of(pattern: str, flags: int) -> tuple[tuple[str, ...], bool] | None:
    literals = literals_for_flags(pattern, flags)
    if literals is None or not all(literal.isascii() for literal in literals.alternatives):
        return None  # no literal long enough, or one whose case folding `str.lower` may not match
    return literals.alternatives, literals.ignore_case
