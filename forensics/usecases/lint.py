"""`rules lint`: what a rule author should fix before a rule ships.

Errors: a file that does not load (schema, bad regex, duplicate id), an example that fails, a pattern that
gives up on a pathological 1 MB line, a repeat shaped to backtrack exponentially (`(a+)+`, `(a|aa)+$`:
rules/backtracking.py). Warnings: no near misses, no literal for the pre-filter, literals that healthy traffic
holds (usecases/healthy_load.py: more than 200 candidate lines a MiB of a healthy sample), and two causes of equal
priority that both match one example (the tie is then decided by line order alone). A fatal-line rule (`scope =
"likely-cause"`) is never scanned, so neither pre-filter warning applies to it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from forensics.engine.scanner import CompiledRules
from forensics.engine.verdict import matched_rules
from forensics.model import RuleKind, RuleScope, Severity
from forensics.progress import StepProgress
from forensics.rules.backtracking import backtracking_repeats
from forensics.rules.literals import required_literals
from forensics.rules.loader import collect_rules
from forensics.rules.model import Rule, RulePattern, RuleProblem, RuleSet
from forensics.usecases.healthy_load import MAX_CANDIDATES_PER_MIB, HealthySample, RuleLoad, heavy_rules
from forensics.usecases.selftest import check_rule, scan_example

PATHOLOGICAL_LINE_BYTES = 1024 * 1024


LintCheck = Literal[
    "schema", "examples", "timeout", "backtracking", "near-misses", "prefilter", "healthy-load", "ambiguous"
]


@dataclass(frozen=True, slots=True)
class LintFinding:
    """One thing a rule author should look at."""

    severity: Severity
    check: LintCheck
    rule_id: str
    path: str
    message: str


def lint(
    paths: Sequence[Path] = (),
    *,
    include_shipped: bool = True,
    line_bytes: int = PATHOLOGICAL_LINE_BYTES,
    timeout: float = 1.0,
    healthy: Sequence[bytes] = (),
    healthy_threshold: float = MAX_CANDIDATES_PER_MIB,
    progress: StepProgress | None = None,
) -> list[LintFinding]:
    """Every finding over the given rule files (and the shipped pack unless excluded).

    `healthy`: the contents of files of healthy traffic to measure the rules' pre-filter literals on (default: the shipped
    sample); a rule whose literals make more than `healthy_threshold` lines a MiB of it candidates is warned of.
    `progress` hears of each rule as it is checked (a pack takes seconds: each pattern meets 1 MB lines).
    """
    rules, errors = collect_rules(paths, include_shipped=include_shipped, cache=False)
    findings = [_schema_finding(error) for error in errors]
    steps = len(rules) + 1
    for number, rule in enumerate(rules):
        if progress is not None:
            progress(rule.id, number, steps)
        findings.extend(_rule_findings(rule, line_bytes=line_bytes, timeout=timeout))
    if progress is not None:
        progress("equal-priority overlaps", steps - 1, steps)
    findings.extend(_ambiguities(rules))
    sample = HealthySample.of(healthy)
    findings.extend(
        _heavy_finding(load, healthy_threshold)
        for load in heavy_rules(
            (
                rule for rule in rules if rule.scope is RuleScope.EVERY_LINE
            ),  # fatal-line rules see no healthy line
            sample,
            threshold=healthy_threshold,
        )
    )
    return findings


def _heavy_finding(load: RuleLoad, threshold: float) -> LintFinding:
    worst = ", ".join(
        f"{literal.literal!r} in {literal.where} {literal.per_mib:,.0f}"
        for literal in load.literals[:3]
        if literal.lines
    )
    return LintFinding(
        "warning",
        "healthy-load",
        load.rule_id,
        load.path,
        f"its pre-filter literals make {load.per_mib:,.0f} lines a MiB of healthy traffic candidates ({load.lines} "
        f"lines of the sample; over {threshold:,.0f}): {worst} a MiB. Every such line goes through Python on every "
        "log: anchor the pattern or co-condition on text only the failure prints",
    )


def _schema_finding(problem: RuleProblem) -> LintFinding:
    return LintFinding("error", "schema", problem.rule_id, problem.path, problem.detail())


def _rule_findings(rule: Rule, *, line_bytes: int, timeout: float) -> list[LintFinding]:
    findings: list[LintFinding] = []

    def add(severity: Severity, check: LintCheck, message: str) -> None:
        findings.append(LintFinding(severity, check, rule.id, rule.path, message))

    for result in check_rule(rule).results:
        if not result.passed:
            add("error", "examples", f"{result.kind} {result.number}: {result.detail}")
    if not rule.near_misses:
        add("warning", "near-misses", "no near misses: add a line that looks similar but must not match")
    for role, patterns in (
        ("patterns", rule.patterns),
        ("requires", rule.requires),
        ("excludes", rule.excludes),
        ("context", rule.context),
    ):
        for number, pattern in enumerate(patterns, start=1):
            literals = required_literals(pattern.pattern, ignore_case=rule.ignore_case)
            for shape in backtracking_repeats(pattern.pattern, ignore_case=rule.ignore_case):
                add(
                    "error",
                    "backtracking",
                    f"{role}[{number}] has {shape}: it can take seconds on one line; make the repeat "
                    "unambiguous (a separator the inner repeat cannot match, disjoint alternatives) or bound it",
                )
            if literals is None and rule.scope is RuleScope.EVERY_LINE:  # a fatal-line rule is never scanned
                add(
                    "warning",
                    "prefilter",
                    f"{role}[{number}] has no literal of 3+ characters that every match "
                    "must contain, so every line of every log goes through it: anchor it on fixed text",
                )
            slow = _pathological(
                pattern, rule, literals.alternatives if literals else (), line_bytes, timeout
            )
            if slow:
                add(
                    "error",
                    "timeout",
                    f"{role}[{number}] took more than {timeout}s on {slow}: bound its repeats",
                )
    return findings


def _pathological(
    pattern: RulePattern, rule: Rule, literals: Sequence[str], size: int, timeout: float
) -> str:
    """The name of the first pathological line the pattern gives up on, or ''."""
    candidates = {
        "a 1 MB line of 'a'": "a" * size,
        "a 1 MB line of spaces": " " * size,
        "a 1 MB line of digits and dots": "1." * (size // 2),
        "a 1 MB line of word characters and spaces": "ab1_ " * (size // 5),
    }
    for literal in literals[:2]:
        candidates[f"a 1 MB line repeating {literal!r}"] = (literal + " ") * (size // (len(literal) + 1))
        for filler in (
            "a",
            " ",
            "1",
            "ab1_ ",
            "/",
        ):  # the classic: the anchor, then a long run that almost fits
            candidates[f"{literal!r} followed by a 1 MB run of {filler!r}"] = (
                literal + filler * (size // len(filler)) + "\x00"
            )
    example_lines = [line for example in rule.examples for line in example.text.splitlines() if line.strip()]
    if example_lines:
        longest = max(example_lines, key=len)
        candidates["a 1 MB line repeating the longest example line"] = (longest + " ") * (
            size // (len(longest) + 1)
        )
        candidates["the longest example line cut short and padded"] = (
            longest[: len(longest) * 2 // 3] + " " * size
        )
    for name, line in candidates.items():
        try:
            pattern.search(line, timeout=timeout)
        except TimeoutError:
            return name
    return ""


def _ambiguities(rules: RuleSet) -> list[LintFinding]:
    """Causes of equal priority that both match one rule's example."""
    causes = RuleSet(tuple(rule for rule in rules if rule.kind is RuleKind.CAUSE))
    compiled = CompiledRules(causes)
    findings = []
    reported: set[tuple[str, str]] = set()
    for index, rule in enumerate(compiled.rules):
        for number, example in enumerate(rule.examples, start=1):
            log = scan_example(example.text, compiled, name=f"{rule.id} example {number}")
            for other_index in matched_rules([log], compiled):
                other = compiled.rules[other_index]
                pair = tuple(sorted((rule.id, other.id)))
                if other_index == index or other.priority != rule.priority or pair in reported:
                    continue
                reported.add((pair[0], pair[1]))
                findings.append(
                    LintFinding(
                        "warning",
                        "ambiguous",
                        rule.id,
                        rule.path,
                        f"example {number} is also matched by '{other.id}' at the same priority ({rule.priority}); "
                        "raise the more specific one's priority",
                    )
                )
    return findings
