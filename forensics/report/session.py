"""One input's work: read its tests, scan every needed log once (in parallel), decide verdicts.

Shared by `analyze()` and `backtest()`. Logs are scanned by a small thread pool: zlib and RE2 release the
GIL, so inflating one log and searching another overlap on a second core.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import BinaryIO

from forensics.engine.scanner import CompiledRules, LogScan, ScanLimits, scan_stream, scan_text
from forensics.engine.verdict import decide
from forensics.engine.verdict_inputs import ScannedLog
from forensics.inputs.allure import DEFAULT_LOG_ATTACHMENTS, MESSAGE_RANK, read_allure
from forensics.inputs.archive import ZipArchive
from forensics.inputs.discover import Input, LogInput
from forensics.model import LogRef, Problem, Status, TestCase, Verdict


def default_jobs() -> int:
    """Scanning threads: one per core, at most 4 (more only adds contention for the GIL)."""
    return max(
        1, min(4, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)
    )


@dataclass(frozen=True, slots=True)
class AnalyzeOptions:
    """How to read the inputs: which attachments are logs, the bounds on each log, how many threads."""

    log_attachments: tuple[str, ...] = DEFAULT_LOG_ATTACHMENTS
    limits: ScanLimits = field(default_factory=ScanLimits)
    use_literals: bool = True  # False: every line through every pattern (the plain path, for checks)
    jobs: int = field(default_factory=default_jobs)


class InputSession:
    """One input: its tests, each needed log scanned once, the verdicts."""

    def __init__(
        self, item: Input, compiled: CompiledRules, options: AnalyzeOptions, problems: list[Problem]
    ) -> None:
        self.item = item
        self.compiled = compiled
        self.options = options
        self.problems = problems
        self.scans: dict[tuple[str, str, str], LogScan] = {}

    def __enter__(self) -> InputSession:
        return self

    def __exit__(self, *exc_info: object) -> None:
        if isinstance(self.item, ZipArchive):
            self.item.close()

    def tests(self) -> list[TestCase]:
        """Every test of the input (a plain log is one failing item)."""
        if isinstance(self.item, LogInput):
            return [_log_test(self.item)]
        archive = self.item
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
        return results.tests

    def verdicts(self, tests: list[TestCase], *, include_passing: bool = False) -> list[Verdict]:
        """A verdict per test; passing and skipped tests are only scanned with `include_passing`."""
        chosen = [test for test in tests if include_passing or test.status.is_failing]
        self.scan_all(ref for test in chosen for ref in _all_logs(test))
        return [
            decide(test, self.scanned_logs(test), self.compiled)
            if include_passing or test.status.is_failing
            else Verdict(test=test)
            for test in tests
        ]

    def scanned_logs(self, test: TestCase) -> list[ScannedLog]:
        """The test's logs with their scans (scan them first with `scan_all`)."""
        return [ScannedLog(ref, self.scans[ref.key]) for ref in _all_logs(test)]

    def scan_tests(self, tests: Iterable[TestCase]) -> None:
        """Scan every log of these tests."""
        self.scan_all(ref for test in tests for ref in _all_logs(test))

    def scan_all(self, refs: Iterable[LogRef]) -> None:
        """Scan every log not scanned yet, `jobs` at a time; problems are kept in log order."""
        pending: dict[tuple[str, str, str], LogRef] = {}
        for ref in refs:
            if ref.key not in self.scans and ref.key not in pending:
                pending[ref.key] = ref
        work = list(pending.values())
        if self.options.jobs > 1 and len(work) > 1:
            with ThreadPoolExecutor(max_workers=self.options.jobs, thread_name_prefix="scan") as pool:
                scans = list(pool.map(self._scan_one, work))
        else:
            scans = [self._scan_one(ref) for ref in work]
        for ref, scan in zip(work, scans, strict=True):
            self.scans[ref.key] = scan
            self.problems.extend(scan.problems)

    def _scan_one(self, ref: LogRef) -> LogScan:
        where = f"{ref.input_label}: {ref.source}" if ref.source else f"{ref.input_label}: {ref.attachment}"
        limits: ScanLimits = self.options.limits
        if ref.inline_text is not None:
            return scan_text(ref.inline_text, self.compiled, name=where, limits=limits)
        try:
            stream = self._open(ref)
        except Exception as err:  # a missing or unreadable entry is a problem, never the end of the run
            return LogScan(problems=[Problem(object=where, message=f"cannot open: {err}")])
        with stream:
            return scan_stream(stream, self.compiled, name=where, limits=limits)

    def _open(self, ref: LogRef) -> BinaryIO:
        if isinstance(self.item, LogInput):
            return self.item.open()
        return self.item.open(ref.source)


def _log_test(item: LogInput) -> TestCase:
    name = posixpath.basename(item.path) if item.path != "-" else "stdin"
    return TestCase(
        uuid=f"log:{item.label}",
        name=name,
        full_name=item.label,
        status=Status.FAILED,
        input_label=item.label,
        logs=(LogRef(input_label=item.label, source=item.path, attachment=name, location="file", rank=0),),
        origin="log",
    )


def _all_logs(test: TestCase) -> list[LogRef]:
    """The test's attachments, then its own status message and trace."""
    inline = [
        LogRef(
            input_label=test.input_label,
            source="",
            attachment=attachment,
            location="result",
            rank=MESSAGE_RANK + offset,
            inline_text=text,
        )
        for offset, (attachment, text) in enumerate(
            (("status message", test.message), ("status trace", test.trace))
        )
        if text.strip()
    ]
    return [*test.logs, *inline]
