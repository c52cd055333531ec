"""The second tier of root causes: fatal-line family rules, tried only on a failure's likely cause and its excerpt.

An ordinary rule is tried on every line of every log, so it must be safe on healthy traffic, warnings, retries
and quoted docs: it is written narrowly and misses the next wording. A fatal-line rule (`scope = "likely-cause"`)
is tried on a few lines only: the line the likely-cause picker (engine/likely.py) chose for a failing test that no
ordinary rule explains, a line already known to be where the process failed, then the lines of its excerpt that
report a failure themselves, ranked (engine/likely.py `tier_candidates`: above a fatal event only, since what follows
one is its aftermath; below a line that only reports a failure first). So it can name a family by its core words
(`certificate has expired`, `Too many open files`, `manifest unknown`). It is never scanned: no probe, no pre-filter
literal (engine/scanner.py leaves it out), so it costs nothing on healthy logs.

On the first of those lines that one matches, the first fatal-line rule by priority (then load order) whose pattern
matches it, normalised as every rule sees a line (engine/normalize.py), becomes the test's root cause, with that line
as its evidence and `FoundBy.FATAL_LINE` saying how it was found. Without one, the likely cause stays a pointer.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from forensics.engine.normalize import normalize_line
from forensics.engine.scanner import CompiledRules
from forensics.model import Evidence, ExcerptLine, Finding, FoundBy
from forensics.rules.literals import Literals, required_literals
from forensics.rules.model import Rule

# the picker is imported only where a failure no rule explains needs it (tests/test_fixed_cost.py)
if TYPE_CHECKING:
    from forensics.engine.likely import LikelyLine

DEFAULT_TIMEOUT = 0.5  # seconds a pattern may take on the one line (ScanLimits.regex_timeout's default)


def fatal_line_rules(compiled: CompiledRules) -> tuple[Rule, ...]:
    """The pack's fatal-line rules in the order they are tried: higher priority first, then load order."""
    rules = [compiled.rules[index] for index in compiled.fatal_line_rules]
    return tuple(sorted(rules, key=lambda rule: -rule.priority))  # a stable sort keeps load order on ties


def match_fatal_line(
    text: str, rules: Sequence[Rule], *, timeout: float = DEFAULT_TIMEOUT
) -> tuple[Rule, dict[str, str]] | None:
    """The first of `rules` whose pattern matches the line (normalised as the scanner does), with its captures."""
    line = normalize_line(text).text
    if not line:
        return None
    folded = line.lower()
    for rule in rules:
        for pattern in rule.patterns:
            # the pattern's required literals first, as the scanner's pre-filter does: a pattern compiles only when
            # the line could match it (compiling every fatal-line pattern cost a small run ~0.1 s)
            if not _may_match(line, folded, required_literals(pattern.pattern, ignore_case=rule.ignore_case)):
                continue
            try:
                found = pattern.search(line, timeout=timeout)
            except TimeoutError:  # bounded like any rule: a pattern that gives up is no match
                continue
            if found is not None:
                return rule, {name: value for name, value in found.groupdict().items() if value is not None}
    return None


def _may_match(line: str, folded: str, literals: Literals | None) -> bool:
    """Whether the line holds one of the literals every match of a pattern contains (or it has none)."""
    if literals is None:
        return True
    if literals.ignore_case:
        if not line.isascii():  # case folding beyond ASCII: leave it to the pattern
            return True
        return any(literal in folded for literal in literals.alternatives)
    return any(literal in line for literal in literals.alternatives)


def likely_line_cause(
    picked: LikelyLine,
    evidence_at: Callable[[int, str, tuple[ExcerptLine, ...]], Evidence],
    compiled: CompiledRules,
    *,
    is_wrapper: Callable[[str], bool] = lambda _text: False,
    timeout: float = DEFAULT_TIMEOUT,
) -> Finding | None:
    """The root cause the tiers after the scan name for a likely cause: a fatal-line rule (`match_likely_cause`),
    else the family model learned from the corpus (engine/learned.py, imported only then), with the line it names as
    the evidence; `evidence_at(line, text, excerpt)` places a line in its log."""
    if not compiled.fatal_line_rules:
        return None
    found = match_likely_cause(picked, fatal_line_rules(compiled), is_wrapper=is_wrapper, timeout=timeout)
    if found is None:
        from forensics.engine.learned import learned_line_cause

        return learned_line_cause(picked, evidence_at, compiled, is_wrapper=is_wrapper)
    number, text, rule, captures = found
    return rule.finding(captures, evidence_at(number, text, picked.excerpt), found_by=FoundBy.FATAL_LINE)


def match_likely_cause(
    picked: LikelyLine,
    rules: Sequence[Rule],
    *,
    is_wrapper: Callable[[str], bool] = lambda _text: False,
    timeout: float = DEFAULT_TIMEOUT,
) -> tuple[int, str, Rule, dict[str, str]] | None:
    """The first of `rules` that matches the likely-cause line, else the best-ranked line of its excerpt that reports
    a failure (engine/likely.py's `tier_candidates`): that line's number and text, the rule and its captures."""
    for number, text in candidate_lines(picked, is_wrapper=is_wrapper):
        matched = match_fatal_line(text, rules, timeout=timeout)
        if matched is not None:
            return number, text, *matched
    return None


def candidate_lines(
    picked: LikelyLine, *, is_wrapper: Callable[[str], bool] = lambda _text: False
) -> tuple[tuple[int, str], ...]:
    """The lines the tiers try, in their order: the likely cause, then `tier_candidates` (number and text)."""
    from forensics.engine.likely import tier_candidates

    return (
        (picked.line, picked.text),
        *((line.number, line.text) for line in tier_candidates(picked, is_wrapper=is_wrapper)),
    )
