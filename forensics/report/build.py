"""`analyze()`: the one library call behind `ci-forensics analyze` (and later `fetch`)."""

from __future__ import annotations

import posixpath
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import BinaryIO

from forensics.engine.scanner import CompiledRules, LogScan, ScanLimits, scan_stream, scan_text
from forensics.engine.verdict import decide
from forensics.engine.verdict_inputs import ScannedLog
from forensics.errors import ResultsError
from forensics.inputs.allure import DEFAULT_LOG_ATTACHMENTS, MESSAGE_RANK, read_allure
from forensics.inputs.archive import Archive, ZipArchive
from forensics.inputs.discover import Input, LogInput, discover
from forensics.model import InputInfo, LogRef, Problem, Report, Status, TestCase, Verdict
from forensics.report.grouping import group_verdicts
from forensics.rules.model import RuleSet


@dataclass(frozen=True, slots=True)
class AnalyzeOptions:
    """How to read the inputs: which attachments are logs, and the bounds on each log."""

    log_attachments: tuple[str, ...] = DEFAULT_LOG_ATTACHMENTS
    limits: ScanLimits = field(default_factory=ScanLimits)
    use_literals: bool = True  # False: every line through every pattern (the plain path, for checks)


def analyze(paths: Sequence[str], *, rules: RuleSet, options: AnalyzeOptions | None = None) -> Report:
    """Read every input, scan each failing test's logs once, and decide every test's verdict.

    One unreadable input becomes a problem and the others go on; ResultsError only when none is readable.
    """
    options = options or AnalyzeOptions()
    compiled = CompiledRules(rules, use_literals=options.use_literals)
    problems: list[Problem] = []
    inputs: list[Input] = []
    for path in paths:
        try:
            inputs.extend(discover(path))
        except ResultsError as err:
            problems.append(Problem(object=path, message=err.message, hint=err.hint, severity="error"))
    if not inputs:
        first = problems[0] if problems else Problem(object="", message="no input given")
        raise ResultsError(first.message, hint=first.hint)
    verdicts: list[Verdict] = []
    infos: list[InputInfo] = []
    for item in inputs:
        session = _InputSession(item, compiled, options, problems)
        found = session.run()
        verdicts.extend(found)
        infos.append(InputInfo(path=item.path, kind=item.kind, label=item.label, tests=len(found)))
    return Report(
        inputs=tuple(infos),
        verdicts=tuple(verdicts),
        groups=group_verdicts(verdicts),
        problems=tuple(_unique(problems)),
        rules_loaded=len(rules),
    )


class _InputSession:
    """One input: read its tests, scan each needed log once, decide."""

    def __init__(
        self, item: Input, compiled: CompiledRules, options: AnalyzeOptions, problems: list[Problem]
    ) -> None:
        self.item = item
        self.compiled = compiled
        self.options = options
        self.problems = problems
        self.scans: dict[tuple[str, str, str], LogScan] = {}

    def run(self) -> list[Verdict]:
        if isinstance(self.item, LogInput):
            return [self.decide(self.log_test(self.item))]
        archive = self.item
        try:
            results = read_allure(archive, log_attachments=self.options.log_attachments)
            self.problems.extend(archive.problems)
            self.problems.extend(results.problems)
            if not results.tests:
                self.problems.append(
                    Problem(
                        object=archive.label,
                        message="holds no Allure results (*-result.json)",
                        hint="check that the test step ran with --alluredir and uploaded that folder",
                        severity="error",
                    )
                )
            return [
                self.decide(test) if test.status.is_failing else Verdict(test=test) for test in results.tests
            ]
        finally:
            if isinstance(archive, ZipArchive):
                archive.close()

    def log_test(self, item: LogInput) -> TestCase:
        name = posixpath.basename(item.path) if item.path != "-" else "stdin"
        return TestCase(
            uuid=f"log:{item.label}",
            name=name,
            full_name=item.label,
            status=Status.FAILED,
            input_label=item.label,
            logs=(
                LogRef(input_label=item.label, source=item.path, attachment=name, location="file", rank=0),
            ),
            origin="log",
        )

    def decide(self, test: TestCase) -> Verdict:
        logs = [ScannedLog(ref, self.scan(ref)) for ref in (*test.logs, *_inline_logs(test))]
        return decide(test, logs, self.compiled)

    def scan(self, ref: LogRef) -> LogScan:
        key = ref.key
        cached = self.scans.get(key)
        if cached is not None:
            return cached
        where = f"{ref.input_label}: {ref.source}" if ref.source else f"{ref.input_label}: {ref.attachment}"
        limits = self.options.limits
        if ref.inline_text is not None:
            scan = scan_text(ref.inline_text, self.compiled, name=where, limits=limits)
        else:
            try:
                stream = self._open(ref)
            except Exception as err:  # a missing or unreadable entry is a problem, never the end of the run
                scan = LogScan(problems=[Problem(object=where, message=f"cannot open: {err}")])
            else:
                with stream:
                    scan = scan_stream(stream, self.compiled, name=where, limits=limits)
        self.problems.extend(scan.problems)
        self.scans[key] = scan
        return scan

    def _open(self, ref: LogRef) -> BinaryIO:
        if isinstance(self.item, LogInput):
            return self.item.open()
        archive: Archive = self.item
        return archive.open(ref.source)


def _inline_logs(test: TestCase) -> list[LogRef]:
    """The test's own status message and trace, matched after its attachments."""
    inline = []
    for offset, (attachment, text) in enumerate(
        (("status message", test.message), ("status trace", test.trace))
    ):
        if text.strip():
            inline.append(
                LogRef(
                    input_label=test.input_label,
                    source="",
                    attachment=attachment,
                    location="result",
                    rank=MESSAGE_RANK + offset,
                    inline_text=text,
                )
            )
    return inline


def _unique(problems: list[Problem]) -> list[Problem]:
    seen: set[Problem] = set()
    unique = []
    for problem in problems:
        if problem not in seen:
            seen.add(problem)
            unique.append(problem)
    return unique
