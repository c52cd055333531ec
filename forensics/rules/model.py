"""A loaded rule: compiled patterns, co-conditions, derived values, summary, examples."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, overload

from forensics.lazy_regex import LazyRegex
from forensics.model import Category, Evidence, Finding, FoundBy, RuleKind, RuleScope, Value
from forensics.regex_code import compile_pattern
from forensics.rules.expressions import Expression
from forensics.rules.literals import Literals, required_literal_ways, required_literals
from forensics.rules.template import Template

if TYPE_CHECKING:
    import regex

# A rule's pattern fields, in the order the scanner makes probes of them (its ProbeRole follows this order)
PATTERN_FIELDS = ("patterns", "requires", "excludes", "context")

_INTEGER = LazyRegex(r"[+-]?\d{1,18}")
_FLOAT = LazyRegex(r"[+-]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?")


class RulePattern:
    """A rule's regular expression, compiled the first time it is searched (`regex`, so every search is bounded).

    A run pays only for the patterns whose pre-filter literal occurs in some line: compiling the whole pack
    (~1.5 ms a pattern with `regex`) was most of the fixed cost of a small `analyze`. The loader compiles and
    checks every pattern whenever it validates the pack, so a pattern built from the pack cache is known good.
    Equal when source and flags are equal.
    """

    __slots__ = ("_compiled", "flags", "groupindex", "pattern")

    def __init__(
        self,
        pattern: str,
        flags: int = 0,
        *,
        groupindex: Mapping[str, int] | None = None,
        compiled: regex.Pattern[str] | None = None,
    ) -> None:
        self.pattern = pattern
        self.flags = flags
        self._compiled = compiled
        if groupindex is None:
            groupindex = self.compiled.groupindex
        self.groupindex: Mapping[str, int] = dict(groupindex)

    @property
    def compiled(self) -> regex.Pattern[str]:
        """The `regex` pattern (compiled now if this is its first use)."""
        if self._compiled is None:
            self._compiled = compile_pattern(self.pattern, self.flags)
        return self._compiled

    @property
    def is_compiled(self) -> bool:
        """Whether the pattern was compiled already (what the lazy path saves is visible in tests)."""
        return self._compiled is not None

    def search(
        self, string: str, pos: int | None = None, endpos: int | None = None, *, timeout: float | None = None
    ) -> regex.Match[str] | None:
        """`regex.Pattern.search`, with its time bound."""
        return self.compiled.search(string, pos, endpos, timeout=timeout)

    def match(
        self, string: str, pos: int | None = None, endpos: int | None = None, *, timeout: float | None = None
    ) -> regex.Match[str] | None:
        """`regex.Pattern.match`, with its time bound."""
        return self.compiled.match(string, pos, endpos, timeout=timeout)

    def finditer(self, string: str, *, timeout: float | None = None) -> Iterator[regex.Match[str]]:
        """`regex.Pattern.finditer`, with its time bound."""
        return self.compiled.finditer(string, timeout=timeout)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, RulePattern):
            return NotImplemented
        return (self.pattern, self.flags) == (other.pattern, other.flags)

    def __hash__(self) -> int:
        return hash((self.pattern, self.flags))

    def __repr__(self) -> str:
        return f"RulePattern({self.pattern!r}, {self.flags})"

    def __getstate__(self) -> dict[str, Any]:
        """Pickled without the compiled form (a worker compiles what it needs)."""
        return {"pattern": self.pattern, "flags": self.flags, "groupindex": dict(self.groupindex)}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.pattern = state["pattern"]
        self.flags = state["flags"]
        self.groupindex = state["groupindex"]
        self._compiled = None


@dataclass(frozen=True, slots=True)
class Example:
    """A log snippet a rule must match (example) or must not match (near miss)."""

    text: str
    source: str = ""
    fields: tuple[tuple[str, Value], ...] = ()


@dataclass(frozen=True, slots=True)
class Rule:
    """One root-cause or symptom signature, compiled and validated."""

    id: str
    title: str
    category: Category
    kind: RuleKind
    patterns: tuple[RulePattern, ...]
    summary: Template
    advice: str = ""
    priority: int = 50
    general: bool = False  # a family's catch-all: wins only on an error line before every specific cause
    specifics: tuple[
        str, ...
    ] = ()  # for a general rule: id globs of its family's specific rules (always win)
    tags: tuple[str, ...] = ()
    ignore_case: bool = False
    requires: tuple[RulePattern, ...] = ()
    excludes: tuple[RulePattern, ...] = ()
    context: tuple[RulePattern, ...] = ()  # more values, from other lines of the same logs
    derive: tuple[tuple[str, Expression], ...] = ()
    tickets: tuple[str, ...] = ()
    examples: tuple[Example, ...] = ()
    near_misses: tuple[Example, ...] = ()
    path: str = ""
    # every-line: scanned on every line of the logs; likely-cause: a fatal-line family rule, tried only on the
    # likely-cause line of a failing test no other rule explains (engine/fatal_line.py), never scanned
    scope: RuleScope = RuleScope.EVERY_LINE

    @property
    def capture_names(self) -> frozenset[str]:
        """Every named group over all patterns and context patterns."""
        return frozenset(name for pattern in (*self.patterns, *self.context) for name in pattern.groupindex)

    def values(self, captures: Mapping[str, str]) -> dict[str, Value]:
        """Typed captures (numbers become numbers) followed by the derived values, in order."""
        values: dict[str, Value] = {}
        for name, text in captures.items():
            values[name] = typed_value(text)
        for name, expression in self.derive:
            result = expression.evaluate(values)
            if result is not None:
                values[name] = result
        return values

    def finding(
        self, captures: Mapping[str, str], evidence: Evidence, *, found_by: FoundBy = FoundBy.SCAN
    ) -> Finding:
        """This rule's match as reports show any cause: its values, summary and advice, the evidence line, and how
        it was found (by the scan, or on the likely-cause line by a fatal-line rule)."""
        values = self.values(captures)
        return Finding(
            rule_id=self.id,
            title=self.title,
            category=self.category,
            kind=self.kind,
            summary=self.summary.render(values),
            advice=self.advice,
            fields=tuple(values.items()),
            evidence=evidence,
            tickets=self.tickets,
            found_by=found_by,
        )


def typed_value(text: str) -> Value:
    """`"19.5"` → 19.5, `"8192"` → 8192, anything else stays text."""
    stripped = text.strip()
    if stripped.isascii() and stripped.strip("0123456789+-.eE"):
        return (
            text  # an ASCII character neither pattern has: no number (they compile on a number's first use)
        )
    if _INTEGER.fullmatch(stripped):
        return int(stripped)
    if _FLOAT.fullmatch(stripped):
        return float(stripped)
    return text


class RuleSource(Protocol):
    """Rules kept apart from their `Rule` objects (a cached pack, rules/cache.py): what the scanner needs of each
    (id, kind, case-insensitivity, every pattern's required literals) without building the rule, the rule and
    its patterns built on first use."""

    def rule(self, index: int) -> Rule: ...

    def is_built(self, index: int) -> bool: ...

    def rule_id(self, index: int) -> str: ...

    def kind(self, index: int) -> RuleKind: ...

    def ignore_case(self, index: int) -> bool: ...

    def scope(self, index: int) -> RuleScope: ...

    def probes(self, index: int) -> Sequence[tuple[int, int, Literals | None]]:
        """(field number in PATTERN_FIELDS, position in that field, required literals) of each pattern."""
        ...

    def pattern(self, index: int, field: int, position: int) -> RulePattern: ...

    def literal_ways(self, index: int, field: int, position: int) -> tuple[tuple[Literals, ...], ...]:
        """`required_literal_ways` of one of the rule's patterns."""
        ...


class PackRules(Sequence[Rule]):
    """The rules of a run in load order, each a `Rule` or a rule of a `RuleSource` built when first read: a run
    whose logs hold no literal of a cached rule never builds it (its text, examples and patterns stay unparsed
    JSON). Reads like the tuple of its rules (equal to it, too)."""

    __slots__ = ("_entries",)

    def __init__(self, entries: Sequence[Rule | tuple[RuleSource, int]]) -> None:
        self._entries = tuple(entries)

    def __len__(self) -> int:
        return len(self._entries)

    @overload
    def __getitem__(self, index: int) -> Rule: ...

    @overload
    def __getitem__(self, index: slice) -> PackRules: ...

    def __getitem__(self, index: int | slice) -> Rule | PackRules:
        if isinstance(index, slice):  # still unbuilt: the first 50 rules of a pack build none of them
            return PackRules(self._entries[index])
        entry = self._entries[index]
        return entry if isinstance(entry, Rule) else entry[0].rule(entry[1])

    def __iter__(self) -> Iterator[Rule]:
        return (self[number] for number in range(len(self._entries)))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str):
            return NotImplemented
        return tuple(self) == tuple(other)

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"PackRules({len(self._entries)} rules)"

    def is_built(self, index: int) -> bool:
        """Whether rule `index` has been built (what the lazy path saves is visible in tests)."""
        entry = self._entries[index]
        return isinstance(entry, Rule) or entry[0].is_built(entry[1])

    def rule_id(self, index: int) -> str:
        """Rule `index`'s id, without building the rule."""
        entry = self._entries[index]
        return entry.id if isinstance(entry, Rule) else entry[0].rule_id(entry[1])

    def kind(self, index: int) -> RuleKind:
        """Rule `index`'s kind, without building the rule."""
        entry = self._entries[index]
        return entry.kind if isinstance(entry, Rule) else entry[0].kind(entry[1])

    def ignore_case(self, index: int) -> bool:
        """Whether rule `index` matches regardless of case, without building the rule."""
        entry = self._entries[index]
        return entry.ignore_case if isinstance(entry, Rule) else entry[0].ignore_case(entry[1])

    def scope(self, index: int) -> RuleScope:
        """Which lines rule `index` is tried on, without building the rule."""
        entry = self._entries[index]
        return entry.scope if isinstance(entry, Rule) else entry[0].scope(entry[1])

    def probes(self, index: int) -> Sequence[tuple[int, int, Literals | None]]:
        """(field number in PATTERN_FIELDS, position, required literals) of each of rule `index`'s patterns."""
        entry = self._entries[index]
        if not isinstance(entry, Rule):
            return entry[0].probes(entry[1])
        return [
            (field, position, required_literals(pattern.pattern, ignore_case=entry.ignore_case))
            for field, name in enumerate(PATTERN_FIELDS)
            for position, pattern in enumerate(getattr(entry, name))
        ]

    def pattern(self, index: int, field: int, position: int) -> RulePattern:
        """One of rule `index`'s patterns (the rule's own object once the rule is built)."""
        entry = self._entries[index]
        if isinstance(entry, Rule):
            patterns: tuple[RulePattern, ...] = getattr(entry, PATTERN_FIELDS[field])
            return patterns[position]
        return entry[0].pattern(entry[1], field, position)

    def literal_ways(self, index: int, field: int, position: int) -> tuple[tuple[Literals, ...], ...]:
        """Per way through one of rule `index`'s patterns, every literal set it needs one of
        (`required_literal_ways`)."""
        entry = self._entries[index]
        if isinstance(entry, Rule):
            pattern = self.pattern(index, field, position)
            return required_literal_ways(pattern.pattern, ignore_case=entry.ignore_case)
        return entry[0].literal_ways(entry[1], field, position)


@dataclass(frozen=True, slots=True)
class RuleSet:
    """The rules of one run, in load order, with where each came from: a tuple, or the `PackRules` of a cached
    pack (built one by one when read). `automata_folder`: where the pre-filter's compiled database is kept
    between runs (rules/automata.py), beside the pack cache the rules came through; None keeps nothing (a pack
    loaded without the cache: `rules test`, `rules lint`, the test suite's shared loads)."""

    rules: Sequence[Rule]
    automata_folder: Path | None = field(default=None, compare=False)

    def __iter__(self) -> Iterator[Rule]:
        return iter(self.rules)

    def __len__(self) -> int:
        return len(self.rules)

    def get(self, rule_id: str) -> Rule | None:
        """The rule with this id, if loaded (a cached pack builds only that rule)."""
        rules = self.rules
        if isinstance(rules, PackRules):
            return next((rules[n] for n in range(len(rules)) if rules.rule_id(n) == rule_id), None)
        for rule in rules:
            if rule.id == rule_id:
                return rule
        return None

    def only(self, rule_ids: set[str]) -> RuleSet:
        """A subset, for testing one rule's examples alone."""
        return RuleSet(tuple(rule for rule in self.rules if rule.id in rule_ids))


@dataclass(frozen=True, slots=True)
class RuleProblem:
    """Why a rule (or a whole rule file) did not load: data, so tools never parse the message back."""

    path: str  # the rule file
    message: str  # "unknown field (typo?)", "not valid TOML: …"
    rule: str = ""  # how the rule is named: "rule 'vllm.startup-free-memory'" or "rule #2"; "" for the file
    rule_id: str = ""  # its id when it has one
    field: str = ""  # the field at fault, "" when the rule or file is

    def detail(self) -> str:
        """`rule 'id': field: why`: everything after the file."""
        return ": ".join(part for part in (self.rule, self.field, self.message) if part)

    def __str__(self) -> str:
        return f"{self.path}: {self.detail()}"
