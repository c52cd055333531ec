"""Redact secrets from everything a report can show: log lines, excerpts, messages, values, links.

Logs print tokens more often than anyone likes (`HF_TOKEN=hf_…` in an env dump, a signed artifact URL, an
`Authorization:` header in a debug line). Reports go to job summaries, dashboards and tickets, so every
text field passes through here once, when the report is built; renderers never see a secret.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace

import regex

from forensics.model import (
    Evidence,
    ExcerptLine,
    Finding,
    Fingerprint,
    Link,
    Problem,
    Report,
    TestCase,
    Value,
    Verdict,
)

REDACTED = "[REDACTED]"
_SECRET_NAME = regex.compile(r"TOKEN|SECRET|PASSWORD|PASSWD|KEY|CREDENTIAL", regex.I)
_MIN_SECRET_LENGTH = 8  # shorter environment values ("1", "true") would redact half the log
_PATTERNS: tuple[tuple[regex.Pattern[str], str], ...] = (
    # credentials in URLs: scheme://user:password@host
    (regex.compile(r"(?<=[a-zA-Z][\w+.-]{0,20}://)[^/\s:@'\"]{1,200}:[^/\s@'\"]{1,200}(?=@)"), REDACTED),
    # signed URLs (S3, Azure blob as GitHub artifact downloads use): drop the whole query string
    (
        regex.compile(
            r"(?<=https?://[^\s?'\"]{1,500})\?[^\s'\"]{0,2000}?(?:sig|signature|X-Amz-Signature|X-Amz-Credential|"
            r"token|se|sv|st)=[^\s'\"]{0,2000}",
            regex.I,
        ),
        "?" + REDACTED,
    ),
    (
        regex.compile(
            r"(?i)(?<=\bauthorization\s{0,4}[:=]\s{0,4})(?:(?:bearer|basic|token)\s{1,4})?[^\s'\",]{4,}"
        ),
        REDACTED,
    ),
    (regex.compile(r"(?i)(?<=\bbearer\s{1,4})[A-Za-z0-9._~+/=-]{8,}"), REDACTED),
    (regex.compile(r"\bgh[pousr]_[A-Za-z0-9]{20,255}\b"), REDACTED),
    (regex.compile(r"\bgithub_pat_[A-Za-z0-9_]{20,255}\b"), REDACTED),
    (regex.compile(r"\bhf_[A-Za-z0-9]{20,}\b"), REDACTED),
    (regex.compile(r"\blin_(?:api|oauth)_[A-Za-z0-9]{20,}\b"), REDACTED),
    (regex.compile(r"\b(?:AKIA|ASIA)[A-Z0-9]{16}\b"), REDACTED),
    # NAME=value where the name says it is a secret (env dumps, CLI flags, config echoes)
    (
        regex.compile(
            r"(?i)(?<=\b[A-Z0-9_]{0,40}(?:TOKEN|SECRET(?:_?KEY)?|PASSWORD|PASSWD|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY)\b['\"]?"
            r"\s{0,3}[=:]\s{0,3}['\"]?)(?!\[REDACTED\])[^\s'\",;]{4,}"
        ),
        REDACTED,
    ),
)


@dataclass(frozen=True, slots=True)
class Redactor:
    """Known secret shapes, plus exact values (e.g. of the environment's *_TOKEN variables)."""

    secrets: tuple[str, ...] = field(default=(), repr=False)  # the values themselves: never shown

    @classmethod
    def from_environment(cls, environment: Mapping[str, str]) -> Redactor:
        """Every value of a variable whose name says it is a secret, longest first."""
        values = {
            value
            for name, value in environment.items()
            if _SECRET_NAME.search(name) and len(value) >= _MIN_SECRET_LENGTH
        }
        return cls(secrets=tuple(sorted(values, key=lambda value: (-len(value), value))))

    def text(self, text: str) -> str:
        """The text with every secret replaced by [REDACTED]."""
        for secret in self.secrets:
            if secret in text:
                text = text.replace(secret, REDACTED)
        for pattern, replacement in _PATTERNS:
            text = pattern.sub(replacement, text)
        return text


def redact_report(report: Report, redactor: Redactor) -> Report:
    """The same report with every text field passed through the redactor."""
    return replace(
        report,
        verdicts=tuple(_verdict(verdict, redactor) for verdict in report.verdicts),
        problems=tuple(_problem(problem, redactor) for problem in report.problems),
    )


def _verdict(verdict: Verdict, redactor: Redactor) -> Verdict:
    return replace(
        verdict,
        test=_test(verdict.test, redactor),
        root_cause=_finding(verdict.root_cause, redactor) if verdict.root_cause else None,
        symptoms=tuple(_finding(symptom, redactor) for symptom in verdict.symptoms),
        fingerprint=_fingerprint(verdict.fingerprint, redactor) if verdict.fingerprint else None,
        likely_cause=(
            replace(verdict.likely_cause, evidence=_evidence(verdict.likely_cause.evidence, redactor))
            if verdict.likely_cause
            else None
        ),
        problems=tuple(_problem(problem, redactor) for problem in verdict.problems),
    )


def _test(test: TestCase, redactor: Redactor) -> TestCase:
    return replace(
        test,
        message=redactor.text(test.message),
        trace=redactor.text(test.trace),
        links=tuple(
            Link(link.type, redactor.text(link.name), redactor.text(link.url)) for link in test.links
        ),
        parameters=tuple((name, redactor.text(value)) for name, value in test.parameters),
        labels=tuple((name, redactor.text(value)) for name, value in test.labels),
    )


def _finding(finding: Finding, redactor: Redactor) -> Finding:
    return replace(
        finding,
        summary=redactor.text(finding.summary),
        fields=tuple((name, _value(value, redactor)) for name, value in finding.fields),
        evidence=_evidence(finding.evidence, redactor),
    )


def _fingerprint(fingerprint: Fingerprint, redactor: Redactor) -> Fingerprint:
    return replace(
        fingerprint,
        masked=redactor.text(fingerprint.masked),
        line=redactor.text(fingerprint.line),
        evidence=_evidence(fingerprint.evidence, redactor) if fingerprint.evidence else None,
    )


def _evidence(evidence: Evidence, redactor: Redactor) -> Evidence:
    return replace(
        evidence,
        text=redactor.text(evidence.text),
        excerpt=_lines(evidence.excerpt, redactor),
    )


def _lines(lines: Iterable[ExcerptLine], redactor: Redactor) -> tuple[ExcerptLine, ...]:
    return tuple(ExcerptLine(line.number, redactor.text(line.text)) for line in lines)


def _value(value: Value, redactor: Redactor) -> Value:
    return redactor.text(value) if isinstance(value, str) else value


def _problem(problem: Problem, redactor: Redactor) -> Problem:
    return replace(problem, object=redactor.text(problem.object), message=redactor.text(problem.message))
