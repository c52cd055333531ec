"""`rules backtest`: how often each rule fires on failing and on passing tests of saved results or reports.

A rule that fires on passing tests is probably matching noise (a warning that also appears in healthy
runs). Saved JSON reports only hold failing tests' findings, so they count failing hits only.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from forensics.engine.scanner import CompiledRules
from forensics.engine.verdict import matched_rules
from forensics.model import Problem, Status
from forensics.report.build import open_inputs, unique_problems
from forensics.report.saved import saved_report_at
from forensics.report.session import AnalyzeOptions, InputSession
from forensics.rules.model import RuleSet

_EXAMPLES_KEPT = 5


@dataclass
class RuleHits:
    """One rule's hits over everything backtested."""

    rule_id: str
    kind: str
    failing: int = 0
    passing: int = 0
    failing_examples: list[str] = field(default_factory=list)
    passing_examples: list[str] = field(default_factory=list)

    def add(self, test_name: str, *, failing: bool) -> None:
        """Count one test the rule fired on."""
        if failing:
            self.failing += 1
            if len(self.failing_examples) < _EXAMPLES_KEPT:
                self.failing_examples.append(test_name)
        else:
            self.passing += 1
            if len(self.passing_examples) < _EXAMPLES_KEPT:
                self.passing_examples.append(test_name)


@dataclass
class Backtest:
    """Per-rule hits and how many tests were looked at."""

    rules: list[RuleHits]
    failing_tests: int = 0
    passing_tests: int = 0
    reports_read: int = 0
    problems: list[Problem] = field(default_factory=list)

    def noisy(self) -> list[RuleHits]:
        """Rules that fired on passing tests."""
        return [hits for hits in self.rules if hits.passing]


def backtest(paths: Sequence[str], *, rules: RuleSet, options: AnalyzeOptions | None = None) -> Backtest:
    """Run every rule over results/logs (failing and passing tests) and over saved JSON reports."""
    options = options or AnalyzeOptions(read_evidence=False)  # nothing here keeps a window
    compiled = CompiledRules(rules, use_literals=options.use_literals)
    result = Backtest(rules=[RuleHits(rule.id, rule.kind.value) for rule in compiled.rules])
    by_id = {hits.rule_id: hits for hits in result.rules}
    others = []
    for path in paths:
        document = saved_report_at(path)
        if document is None:
            others.append(path)
            continue
        result.reports_read += 1
        for test in document.get("tests", []):
            if test.get("status") not in ("failed", "broken"):
                continue
            result.failing_tests += 1
            fired = {
                f["rule"] for f in [test.get("root_cause") or {}, *test.get("symptoms", [])] if f.get("rule")
            }
            for rule_id in fired & by_id.keys():
                by_id[rule_id].add(test.get("name", "?"), failing=True)
    if others:
        problems: list[Problem] = []
        for item in open_inputs(others, problems):
            with InputSession(item, compiled, options, problems) as session:
                tests = [t for t in session.tests() if t.status.is_failing or t.status is Status.PASSED]
                session.scan_tests(tests)
                for test in tests:
                    failing = test.status.is_failing
                    if failing:
                        result.failing_tests += 1
                    else:
                        result.passing_tests += 1
                    for index in matched_rules(session.scanned_logs(test), compiled):
                        result.rules[index].add(test.name, failing=failing)
        result.problems = unique_problems(problems)
    return result
