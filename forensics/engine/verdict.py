"""Choose each test's root cause among the rules that matched its logs, and list the symptoms it explains.

A symptom never wins over a cause. Among causes: higher priority, then an error line over warning/info
lines, then the best-ranked log, then the earliest line. A family's general rule (`general = true`, e.g.
"any CUDA error") is ranked apart: it always yields to a specific rule of its own family (`specifics`, which
says more, e.g. the "Last error:" detail under a generic NCCL error), and to any other specific cause unless
its own error line comes strictly before that cause's line. So a general rule never hides an earlier real
cause, yet the earliest fatal error still beats a later consequence. Co-conditions (`requires`, `excludes`)
are checked over all of the test's logs.
"""

from __future__ import annotations

from collections.abc import Sequence
from fnmatch import fnmatchcase

from forensics.engine.fingerprint import fingerprint_for
from forensics.engine.normalize import Level
from forensics.engine.scanner import CompiledRules, Hit, ProbeRole
from forensics.engine.verdict_inputs import ScannedLog
from forensics.model import Finding, RuleKind, TestCase, Verdict
from forensics.rules.model import Rule

_Candidate = tuple[Hit, ScannedLog]


def decide(test: TestCase, logs: Sequence[ScannedLog], compiled: CompiledRules) -> Verdict:
    """The verdict for one test from the scans of its logs."""
    best_per_rule = matched_rules(logs, compiled)
    causes = [
        (index, found)
        for index, found in best_per_rule.items()
        if compiled.rules[index].kind is RuleKind.CAUSE
    ]
    symptoms = [
        (index, found)
        for index, found in best_per_rule.items()
        if compiled.rules[index].kind is RuleKind.SYMPTOM
    ]
    root_cause = None
    chosen = _choose_cause(causes, compiled)
    if chosen is not None:
        index, (hit, log) = chosen
        root_cause = finding(compiled.rules[index], hit, log, context_values(index, log, logs, compiled))
    symptom_findings = tuple(
        finding(compiled.rules[index], hit, log, context_values(index, log, logs, compiled))
        for index, (hit, log) in sorted(symptoms, key=lambda item: (item[1][1].ref.rank, item[1][0].line))
    )
    fingerprint = None
    if root_cause is None and test.status.is_failing:
        fingerprint = fingerprint_for(test, logs)
    return Verdict(test=test, root_cause=root_cause, symptoms=symptom_findings, fingerprint=fingerprint)


def _choose_cause(
    causes: list[tuple[int, _Candidate]], compiled: CompiledRules
) -> tuple[int, _Candidate] | None:
    """The best specific cause, unless the best general one stands on an error line strictly before it and the
    specific one is not of the general rule's own family; then a specific cause on that same line, if any."""

    def rank(item: tuple[int, _Candidate]) -> tuple[int, int, int, int, str]:
        rule = compiled.rules[item[0]]
        return (-rule.priority, *_position(item[1]), rule.id)

    specific = min((c for c in causes if not compiled.rules[c[0]].general), key=rank, default=None)
    general = min((c for c in causes if compiled.rules[c[0]].general), key=rank, default=None)
    if specific is None or general is None:
        return specific or general
    general_rule, specific_rule = compiled.rules[general[0]], compiled.rules[specific[0]]
    if any(fnmatchcase(specific_rule.id, pattern) for pattern in general_rule.specifics):
        return specific
    general_hit, general_log = general[1]
    specific_hit, specific_log = specific[1]
    earlier = (general_log.ref.rank, general_hit.line) < (specific_log.ref.rank, specific_hit.line)
    if not (general_hit.level is Level.ERROR and earlier):
        return specific
    # the general rule's line is the earliest fatal error; a specific rule on that same line still says more
    same_line = [
        c
        for c in causes
        if not compiled.rules[c[0]].general and c[1][1] is general_log and c[1][0].line == general_hit.line
    ]
    return min(same_line, key=rank, default=general)


def matched_rules(logs: Sequence[ScannedLog], compiled: CompiledRules) -> dict[int, _Candidate]:
    """For every rule whose pattern matched and whose co-conditions hold, its best hit."""
    best: dict[int, _Candidate] = {}
    hit_probes = {number for log in logs for number in log.scan.hits}
    for rule_index, probe_numbers in compiled.probes_by_rule.items():
        if hit_probes.isdisjoint(probe_numbers):  # nothing of this rule matched: no candidate
            continue
        required = [n for n in probe_numbers if compiled.probes[n].role is ProbeRole.REQUIRES]
        excluded = [n for n in probe_numbers if compiled.probes[n].role is ProbeRole.EXCLUDES]
        candidates: list[_Candidate] = [
            (hit, log)
            for n in probe_numbers
            if compiled.probes[n].role is ProbeRole.PATTERN
            for log in logs
            for hit in log.scan.hits.get(n, ())
        ]
        if not candidates:
            continue
        if not all(any(log.scan.present(n) for log in logs) for n in required):
            continue
        if any(log.scan.present(n) for n in excluded for log in logs):
            continue
        best[rule_index] = min(candidates, key=_position)
    return best


def _position(candidate: _Candidate) -> tuple[int, int, int]:
    hit, log = candidate
    return (hit.level, log.ref.rank, hit.line)


def context_values(
    rule_index: int, evidence_log: ScannedLog, logs: Sequence[ScannedLog], compiled: CompiledRules
) -> dict[str, str]:
    """Values from the rule's context patterns: the first match in the evidence's log, else in another log."""
    values: dict[str, str] = {}
    ordered = [evidence_log, *(log for log in logs if log is not evidence_log)]
    for number in compiled.probes_by_rule.get(rule_index, ()):
        if compiled.probes[number].role is not ProbeRole.CONTEXT:
            continue
        for log in ordered:
            hits = log.scan.hits.get(number)
            if hits:
                first = min(hits, key=lambda hit: hit.line)
                for name, value in first.captures:
                    values.setdefault(name, value)
                break
    return values


def finding(rule: Rule, hit: Hit, log: ScannedLog, context: dict[str, str] | None = None) -> Finding:
    """A rule's match turned into what reports show: values (the line's own first), summary, evidence."""
    return rule.finding(
        {**(context or {}), **dict(hit.captures)}, log.evidence(hit.line, hit.text, hit.excerpt)
    )
