"""Rules prove themselves: each example must produce a hit (with its pinned values), each near miss none."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from forensics.engine.scanner import CompiledRules, ScanLimits, scan_text
from forensics.engine.verdict import context_values, finding, matched_rules
from forensics.engine.verdict_inputs import ScannedLog
from forensics.model import LogRef, RuleScope, Value
from forensics.rules.model import Example, Rule, RuleSet

_EXAMPLE_LIMITS = ScanLimits(regex_timeout=2.0)


ExampleKind = Literal["example", "near miss"]


@dataclass(frozen=True, slots=True)
class ExampleResult:
    """The outcome of one example or near miss."""

    kind: ExampleKind
    number: int
    passed: bool
    detail: str
    fields: tuple[tuple[str, Value], ...] = ()
    line: int = 0


@dataclass(frozen=True, slots=True)
class RuleCheck:
    """All example outcomes of one rule."""

    rule: Rule
    results: tuple[ExampleResult, ...]

    @property
    def passed(self) -> bool:
        """True when every example matched and no near miss did."""
        return all(result.passed for result in self.results)


def check_rule(rule: Rule) -> RuleCheck:
    """Run one rule, alone, over its own examples and near misses through the real scanner (a fatal-line rule:
    on the line the likely-cause picker chooses in each, as analyze tries it)."""
    if rule.scope is RuleScope.LIKELY_CAUSE:
        return _check_fatal_line_rule(rule)
    compiled = CompiledRules(RuleSet((rule,)))
    results = [
        _run(rule, compiled, example, number, expect_match=True)
        for number, example in enumerate(rule.examples, 1)
    ]
    results += [
        _run(rule, compiled, example, number, expect_match=False)
        for number, example in enumerate(rule.near_misses, 1)
    ]
    return RuleCheck(rule=rule, results=tuple(results))


def scan_example(text: str, compiled: CompiledRules, *, name: str) -> ScannedLog:
    """An example or near miss scanned as a small log of its own, through the real scanner."""
    ref = LogRef(input_label="rule", source="", attachment=name, location="rule", rank=0)
    return ScannedLog(ref, scan_text(text.strip("\n"), compiled, name=name, limits=_EXAMPLE_LIMITS))


def _run(
    rule: Rule, compiled: CompiledRules, example: Example, number: int, *, expect_match: bool
) -> ExampleResult:
    kind: ExampleKind = "example" if expect_match else "near miss"
    log = scan_example(example.text, compiled, name=f"{rule.id} {kind} {number}")
    scan = log.scan
    hits = matched_rules([log], compiled)
    if not expect_match:
        if hits:
            hit = hits[0][0]
            return ExampleResult(
                kind, number, False, f"matched line {hit.line}: {hit.text[:200]}", line=hit.line
            )
        return ExampleResult(kind, number, True, "no match, as expected")
    if not hits:
        problems = "; ".join(problem.message for problem in scan.problems)
        return ExampleResult(kind, number, False, "did not match" + (f" ({problems})" if problems else ""))
    hit, _log = hits[0]
    found = finding(rule, hit, log, context_values(0, log, [log], compiled))
    values = dict(found.fields)
    wrong = [
        f"{name}: expected {expected!r}, got {values.get(name)!r}"
        for name, expected in example.fields
        if not _same(expected, values.get(name))
    ]
    if wrong:
        return ExampleResult(kind, number, False, "; ".join(wrong), found.fields, hit.line)
    return ExampleResult(kind, number, True, f"matched line {hit.line}", found.fields, hit.line)


def _same(expected: Value, actual: Value | None) -> bool:
    if isinstance(expected, int | float) and isinstance(actual, int | float):
        return round(float(expected), 2) == round(float(actual), 2)
    return expected == actual


def _check_fatal_line_rule(rule: Rule) -> RuleCheck:
    """A fatal-line rule's examples: each must match where analyze tries it (the line the likely-cause picker chooses
    in it, else a line of its excerpt that reports a failure: engine/fatal_line.py `match_likely_cause`), each near
    miss must not (whether its words are on another line or on that line in a test's own failure)."""
    results = [
        _run_fatal_line(rule, example, number, expect_match=True)
        for number, example in enumerate(rule.examples, 1)
    ]
    results += [
        _run_fatal_line(rule, example, number, expect_match=False)
        for number, example in enumerate(rule.near_misses, 1)
    ]
    return RuleCheck(rule=rule, results=tuple(results))


def _run_fatal_line(rule: Rule, example: Example, number: int, *, expect_match: bool) -> ExampleResult:
    from forensics.engine.fatal_line import match_likely_cause
    from forensics.engine.likely import pick_likely_cause

    kind: ExampleKind = "example" if expect_match else "near miss"
    picked = pick_likely_cause(example.text.strip("\n").splitlines())
    found = (
        None if picked is None else match_likely_cause(picked, (rule,), timeout=_EXAMPLE_LIMITS.regex_timeout)
    )
    if picked is None or found is None:
        if expect_match:
            where = (
                "no likely-cause line"
                if picked is None
                else f"likely-cause line {picked.line}: {picked.text[:200]}"
            )
            return ExampleResult(kind, number, False, f"did not match ({where})")
        return ExampleResult(kind, number, True, "no match, as expected")
    line, text, _rule, captures = found
    if not expect_match:
        return ExampleResult(kind, number, False, f"matched line {line}: {text[:200]}", line=line)
    values = rule.values(captures)
    wrong = [
        f"{name}: expected {expected!r}, got {values.get(name)!r}"
        for name, expected in example.fields
        if not _same(expected, values.get(name))
    ]
    fields = tuple(values.items())
    if wrong:
        return ExampleResult(kind, number, False, "; ".join(wrong), fields, line)
    return ExampleResult(kind, number, True, f"matched line {line}", fields, line)
