"""A loaded rule: compiled patterns, co-conditions, derived values, summary, examples."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass

import regex

from forensics.model import Category, RuleKind, Value
from forensics.rules.expressions import Expression
from forensics.rules.template import Template

_INTEGER = regex.compile(r"[+-]?\d{1,18}")
_FLOAT = regex.compile(r"[+-]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?")


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
    patterns: tuple[regex.Pattern[str], ...]
    summary: Template
    advice: str = ""
    priority: int = 50
    general: bool = False  # a family's catch-all: wins only on an error line before every specific cause
    specifics: tuple[
        str, ...
    ] = ()  # for a general rule: id globs of its family's specific rules (always win)
    tags: tuple[str, ...] = ()
    ignore_case: bool = False
    requires: tuple[regex.Pattern[str], ...] = ()
    excludes: tuple[regex.Pattern[str], ...] = ()
    context: tuple[regex.Pattern[str], ...] = ()  # more values, from other lines of the same logs
    derive: tuple[tuple[str, Expression], ...] = ()
    tickets: tuple[str, ...] = ()
    examples: tuple[Example, ...] = ()
    near_misses: tuple[Example, ...] = ()
    path: str = ""

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


def typed_value(text: str) -> Value:
    """`"19.5"` → 19.5, `"8192"` → 8192, anything else stays text."""
    stripped = text.strip()
    if _INTEGER.fullmatch(stripped):
        return int(stripped)
    if _FLOAT.fullmatch(stripped):
        return float(stripped)
    return text


@dataclass(frozen=True, slots=True)
class RuleSet:
    """The rules of one run, in load order, with where each came from."""

    rules: tuple[Rule, ...]

    def __iter__(self) -> Iterator[Rule]:
        return iter(self.rules)

    def __len__(self) -> int:
        return len(self.rules)

    def get(self, rule_id: str) -> Rule | None:
        """The rule with this id, if loaded."""
        for rule in self.rules:
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
