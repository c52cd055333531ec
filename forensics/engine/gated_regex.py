"""A lazily compiled `regex` pattern that skips its search when the text lacks every literal a match needs.

The likely-cause picker runs a dozen patterns over each line it is fed; on a long line (a request dumped as
JSON, a few KiB) each search costs up to a millisecond in `regex`, while looking for the literals a match must
contain (`rules/literals.py`, the pre-filter's extraction) costs a few microseconds. Same answers: a text
without any of them cannot match. An alternation asked only whether it matches (`AnyOf`) is searched one
branch at a time: `regex` tries every branch at every position of a line, but finds one branch's literal
quickly. The picker asks ~50 gates about each line it is fed, several of them about the same text: which of the
gates' literals a text holds is found for all of them in one pass (`_LiteralsPresent`, RE2's Set).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from forensics.lazy_regex import LazyRegex
from forensics.regex_code import compile_pattern
from forensics.rules.literals import MIN_LITERAL, literals_for_flags

if TYPE_CHECKING:
    import regex

_UNKNOWN = ()  # the gate is computed on first use, with the pattern
_RECENT_TEXTS = 4  # texts whose literals `_LiteralsPresent` keeps: the picker asks about 2-4 texts a line
# texts each gate answers for itself before the Set is built (2-10 ms): a short log, or a few lines of a long one
# before its fatal event, never pays for it
PLAIN_TEXTS = 512


class _LiteralsPresent:
    """Which of the gates' literals a text holds: all found in one pass of RE2's Set, kept for the last few
    texts (by identity: each is held, so its id cannot be reused). `literal in text` for each literal of each gate,
    ~50 gates a line, cost about a third of a likely-cause re-read's CPU on lines of a few hundred characters;
    where RE2 is not installed, `found` answers None and each gate looks for its literals itself. A caseless
    literal (lower case) is found with `(?i)`: on ASCII text (a caseless gate asks of no other), what
    `literal in text.lower()` finds."""

    def __init__(self) -> None:
        self.ids: dict[tuple[str, bool], int] = {}  # (literal, caseless) → its number in the Set
        self._set: Any = None  # built on the first text after a literal is added
        self._recent: list[tuple[str, frozenset[int]]] = []
        self._unavailable = False
        self.plain_left = PLAIN_TEXTS  # new texts still answered by each gate itself

    def register(self, literals: Iterable[str], *, caseless: bool) -> frozenset[int]:
        """The numbers of these literals (numbered on first sight)."""
        keys = [(literal, caseless) for literal in literals]
        for key in keys:
            if key not in self.ids:
                self.ids[key] = len(self.ids)
                self._set = None
                self._recent.clear()  # found without this literal
        return frozenset(self.ids[key] for key in keys)

    def found(self, text: str) -> frozenset[int] | None:
        """The numbers of the registered literals `text` holds; None for the first PLAIN_TEXTS texts and where RE2
        is not installed."""
        for recent, found in self._recent:
            if recent is text:
                return found
        if not text:
            return frozenset()
        if self.plain_left > 0:
            self.plain_left -= 1
            return None
        search_set = self._set if self._set is not None else self._build()
        if search_set is None:
            return None
        try:
            found = frozenset(search_set.Match(text) or ())
        except (UnicodeError, TypeError):  # text RE2 cannot take (a lone surrogate): each gate looks itself
            return None
        self._recent.append((text, found))
        if len(self._recent) > _RECENT_TEXTS:
            del self._recent[0]
        return found

    def _build(self) -> Any:
        """RE2's Set of every literal numbered so far; None where RE2 is not installed."""
        # imported here: only a process that has fed the gates PLAIN_TEXTS texts builds the Set
        from forensics.engine.prefilter import re2_module

        re2 = None if self._unavailable else re2_module()
        if re2 is None:
            self._unavailable = True
            return None
        search_set = re2.Set.SearchSet(re2.Options())
        try:
            for literal, caseless in sorted(self.ids, key=self.ids.__getitem__):
                # every character by its code point: no literal's text reads as syntax
                escaped = "".join(f"\\x{{{ord(char):x}}}" for char in literal)
                search_set.Add(f"(?i){escaped}" if caseless else escaped)
            search_set.Compile()
        except re2.error:  # over RE2's memory budget: each gate looks for its literals itself
            self._unavailable = True
            return None
        self._set = search_set
        return search_set


_PRESENT = _LiteralsPresent()


class GatedRegex(LazyRegex):
    """`LazyRegex` whose `search`/`match`/`fullmatch` return None at once when no required literal occurs."""

    __slots__ = ("_gate", "_ids", "_minimum")

    def __init__(self, pattern: str, flags: int = 0, *, minimum: int = MIN_LITERAL) -> None:
        super().__init__(pattern, flags)
        self._minimum = minimum  # the shortest literal worth looking for
        self._gate: tuple[tuple[str, ...], bool] | tuple[()] | None = _UNKNOWN
        self._ids: frozenset[int] = frozenset()  # the gate's literals (two or more), numbered by `_PRESENT`

    def possible(self, string: str) -> bool:
        """False only when `string` holds none of the literals every match contains."""
        gate = self._gate
        if gate == _UNKNOWN:
            gate = self._gate = _gate_of(self.pattern, self.flags, self._minimum)
            if gate:
                self._ids = _numbered(*gate)
        if not gate:
            return True
        literals, insensitive = gate
        # case folding beyond ASCII (`ſ` matches `s`): let `regex` decide
        if insensitive and not string.isascii():
            return True
        if self._ids and (found := _PRESENT.found(string)) is not None:
            return not self._ids.isdisjoint(found)
        if insensitive:
            string = string.lower()
        if len(literals) == 1:
            return literals[0] in string
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


def _numbered(literals: tuple[str, ...], caseless: bool) -> frozenset[int]:
    """A gate's literals numbered in `_PRESENT`: when there are two or more (one is looked for faster on its own) and,
    for a caseless gate, all in lower case (as `(?i)` finds them on ASCII text)."""
    if len(literals) < 2 or (caseless and any(literal != literal.lower() for literal in literals)):
        return frozenset()
    return _PRESENT.register(literals, caseless=caseless)


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
