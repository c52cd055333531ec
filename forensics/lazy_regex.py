"""A module-level `regex` pattern compiled the first time it is used, so importing a module compiles nothing.

`regex` compiles in Python (~0.5-3 ms a pattern, ~14 ms for the line-prefix pattern); modules with many
patterns made every start of the CLI pay for patterns the run may never use (the likely-cause picker's only
run for unexplained failures, a secret shape only on text holding its hint, a ticket pattern only on a test
with links). It sits in the bottom layer so that every layer may use it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from forensics.regex_code import compile_pattern

if TYPE_CHECKING:
    import regex


class LazyRegex:
    """`regex.compile(pattern, flags)` on first use (through forensics/regex_code.py); the methods the engine uses, with the same signatures."""

    __slots__ = ("_compiled", "flags", "pattern")

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self.pattern = pattern
        self.flags = flags
        self._compiled: regex.Pattern[str] | None = None

    @property
    def compiled(self) -> regex.Pattern[str]:
        """The compiled pattern."""
        if self._compiled is None:
            self._compiled = compile_pattern(self.pattern, self.flags)
        return self._compiled

    def search(
        self, string: str, pos: int | None = None, endpos: int | None = None
    ) -> regex.Match[str] | None:
        """`regex.Pattern.search`."""
        return self.compiled.search(string, pos, endpos)

    def match(
        self, string: str, pos: int | None = None, endpos: int | None = None
    ) -> regex.Match[str] | None:
        """`regex.Pattern.match`."""
        return self.compiled.match(string, pos, endpos)

    def fullmatch(
        self, string: str, pos: int | None = None, endpos: int | None = None
    ) -> regex.Match[str] | None:
        """`regex.Pattern.fullmatch`."""
        return self.compiled.fullmatch(string, pos, endpos)

    def finditer(self, string: str) -> Iterator[regex.Match[str]]:
        """`regex.Pattern.finditer`."""
        return self.compiled.finditer(string)

    def findall(self, string: str) -> list[Any]:
        """`regex.Pattern.findall`."""
        return self.compiled.findall(string)

    def sub(self, replacement: str | Callable[[regex.Match[str]], str], string: str, count: int = 0) -> str:
        """`regex.Pattern.sub`."""
        return self.compiled.sub(replacement, string, count)
