"""`analyze()`: the one library call behind `ci-forensics analyze` (and later `fetch`)."""

from __future__ import annotations

from collections.abc import Sequence

from forensics.engine.scanner import CompiledRules
from forensics.errors import ResultsError
from forensics.inputs.discover import Input, discover
from forensics.model import InputInfo, Problem, Report, Verdict
from forensics.report.grouping import group_verdicts
from forensics.report.redact import redact_report
from forensics.report.session import AnalyzeOptions, InputSession
from forensics.rules.model import RuleSet

__all__ = ["AnalyzeOptions", "analyze", "open_inputs"]


def open_inputs(paths: Sequence[str], problems: list[Problem]) -> list[Input]:
    """Every input behind the paths; unreadable ones become problems, ResultsError when none is readable."""
    inputs: list[Input] = []
    for path in paths:
        try:
            inputs.extend(discover(path))
        except ResultsError as err:
            problems.append(Problem(object=path, message=err.message, hint=err.hint, severity="error"))
    if not inputs:
        first = problems[0] if problems else Problem(object="", message="no input given")
        raise ResultsError(first.message, hint=first.hint)
    return inputs


def analyze(paths: Sequence[str], *, rules: RuleSet, options: AnalyzeOptions | None = None) -> Report:
    """Read every input, scan each failing test's logs once, and decide every test's verdict.

    One unreadable input becomes a problem and the others go on; ResultsError only when none is readable.
    """
    options = options or AnalyzeOptions()
    compiled = CompiledRules(rules, use_literals=options.use_literals)
    problems: list[Problem] = []
    verdicts: list[Verdict] = []
    infos: list[InputInfo] = []
    for item in open_inputs(paths, problems):
        with InputSession(item, compiled, options, problems) as session:
            found = session.verdicts(session.tests())
        verdicts.extend(found)
        infos.append(InputInfo(path=item.path, kind=item.kind, label=item.label, tests=len(found)))
    report = Report(
        inputs=tuple(infos),
        verdicts=tuple(verdicts),
        groups=group_verdicts(verdicts),
        problems=tuple(unique_problems(problems)),
        rules_loaded=len(rules),
    )
    return redact_report(report, options.redactor)


def unique_problems(problems: list[Problem]) -> list[Problem]:
    """Each problem once, in the order first seen."""
    return list(dict.fromkeys(problems))
