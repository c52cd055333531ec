"""A log of a test together with what scanning it found: the input to verdicts and fingerprints."""

from __future__ import annotations

from dataclasses import dataclass

from forensics.engine.scanner import LogScan
from forensics.model import LogRef


@dataclass(frozen=True, slots=True)
class ScannedLog:
    """One of a test's logs and its scan (shared by every test that has the same log)."""

    ref: LogRef
    scan: LogScan
