"""Fingerprints for unexplained failures: the last error line with volatile parts masked (Drain3-style)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from forensics.engine.normalize import normalize_line
from forensics.engine.verdict_inputs import ScannedLog
from forensics.lazy_regex import LazyRegex
from forensics.model import Evidence, Fingerprint, TestCase

if TYPE_CHECKING:
    import regex


def _port(match: regex.Match[str]) -> str:
    """`\\1:<port>` as a function: a template makes `regex` import its whole Python part (~13 ms) in every
    process that masks a line (each worker process), to parse it."""
    return f"{match.group(1)}:<port>"


# Order matters: whole tokens (UUIDs, URLs, paths) go before the numbers inside them.
_MASKS: tuple[tuple[LazyRegex, str | Callable[[regex.Match[str]], str]], ...] = (
    (
        LazyRegex(r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b"),
        "<uuid>",
    ),
    (LazyRegex(r"\b[a-zA-Z][\w+.-]*://[^\s'\"<>)\]]+"), "<url>"),
    (LazyRegex(r"(?<![\w.])(?:[A-Za-z]:)?(?:[/\\][\w.@+~-]+){2,}[/\\]?"), "<path>"),
    (LazyRegex(r"\b\d{1,3}(?:\.\d{1,3}){3}(?::\d{1,5})?\b"), "<ip>"),
    (LazyRegex(r"\b(localhost|[A-Za-z][\w-]*):\d{2,5}\b"), _port),
    (LazyRegex(r"\b0x[0-9a-fA-F]+\b|\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{8,}\b"), "<hex>"),
    (
        LazyRegex(r"(?<![\w.])\d+(?:\.\d+)?\s?(?:ms|us|µs|ns|s|sec|secs|seconds|min|mins|minutes|h|hours)\b"),
        "<duration>",
    ),
    (LazyRegex(r"(?<![A-Za-z<])[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?"), "<num>"),
    (LazyRegex(r"\s+"), " "),
)
NO_ERROR_TEXT = "no error text found"


def mask(text: str) -> str:
    """The line with numbers, hex, UUIDs, paths, addresses, ports and durations replaced by placeholders."""
    masked = text
    for pattern, replacement in _MASKS:
        masked = pattern.sub(replacement, masked)
    return masked.strip()


def fingerprint_for(test: TestCase, logs: Sequence[ScannedLog]) -> Fingerprint:
    """Fingerprint a failing test nothing explained, from its best-ranked log's last error line."""
    for log in sorted(logs, key=lambda scanned: scanned.ref.rank):
        last = log.scan.last_error
        if last is not None:
            return make_fingerprint(last.text, log.evidence(last.number, last.text, (last,)))
    first_line = next((line for line in test.message.splitlines() if line.strip()), "")
    return make_fingerprint(first_line or NO_ERROR_TEXT, None)


def make_fingerprint(line: str, evidence: Evidence | None) -> Fingerprint:
    """The fingerprint of one error line; the report computes it again from the redacted line."""
    masked = mask(normalize_line(line).text) or NO_ERROR_TEXT
    import hashlib  # only for an unexplained failure: a one-line analyze that explains it never loads it

    key = hashlib.sha1(masked.encode("utf-8"), usedforsecurity=False).hexdigest()[:12]
    return Fingerprint(key=key, masked=masked, line=line, evidence=evidence)
