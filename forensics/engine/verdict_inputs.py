"""A log of a test together with what scanning it found: the input to verdicts and fingerprints."""

from __future__ import annotations

from dataclasses import dataclass

from forensics.engine.scanner import LogScan
from forensics.model import Evidence, ExcerptLine, LogRef


@dataclass(frozen=True, slots=True)
class ScannedLog:
    """One of a test's logs and its scan (shared by every test that has the same log)."""

    ref: LogRef
    scan: LogScan

    def evidence(self, line: int, text: str, excerpt: tuple[ExcerptLine, ...]) -> Evidence:
        """Evidence at a line of this log, naming the attachment and where it was attached."""
        return Evidence(
            attachment=self.ref.attachment,
            line=line,
            text=text,
            location=self.ref.location,
            source=self.ref.source,
            excerpt=excerpt,
        )
