"""Redact secrets from everything a report can show: every string of every field, at every exit.

Logs print tokens more often than anyone likes (`HF_TOKEN=hf_…` in an env dump, a signed artifact URL, an
`Authorization:` header in a debug line), and test names, parameters and step names carry them too. Reports go
to job summaries, dashboards, stores and tickets, so `redact_report` passes every string field of the model
through the redactor when the report is built (fingerprints are computed again from the redacted line, and
text is cut to its shown length only after redacting); renderers, the dashboard and ticket comments run it
(or `Redactor.text`) once more on what they are given, which covers reports saved by older versions (a report
this module marked with the same secrets is not walked twice: at 1 GiB, 300 tests, a walk is ~0.1 s of the
parent's serial time). The store never redacts: it records only a report marked `redacted` here, and the follow-up
redacts again with the run's secrets before recording. The shapes themselves are one table: `secret_shapes.SHAPES`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields, is_dataclass, replace
from typing import Any, TypeVar

from forensics.digest import sha256
from forensics.engine.fingerprint import make_fingerprint
from forensics.engine.normalize import strip_controls
from forensics.engine.scanner import EVIDENCE_TEXT_LIMIT, EXCERPT_TEXT_LIMIT
from forensics.lazy_regex import LazyRegex
from forensics.model import (
    REDACTED,
    Evidence,
    EvidenceWindow,
    ExcerptLine,
    Fingerprint,
    Problem,
    Report,
    TestCase,
)
from forensics.regex_code import IGNORECASE
from forensics.report.evidence import trim_window
from forensics.report.grouping import group_verdicts
from forensics.report.secret_shapes import PEM_BLOCK_END, PEM_BLOCK_START, PEM_BODY_LINE, SHAPES

__all__ = ["REDACTED", "Redactor", "redact_data", "redact_model", "redact_report"]

_SECRET_NAME = LazyRegex(r"TOKEN|SECRET|PASSWORD|PASSWD|KEY|CREDENTIAL", IGNORECASE)
_MIN_SECRET_LENGTH = 8  # shorter environment values ("1", "true") would redact half the log
_CACHED_LENGTH = 256  # names, labels and parameters repeat across tests: remember what they became
_CACHE_ENTRIES = 20_000  # then start afresh: memory stays bounded however many tests a report has
_WALKED_ENTRIES = 200_000  # model values remembered (a 300-test report has ~10,000): then afresh as well
# Identity fields: they join verdicts, groups and problems and must stay equal (Allure writes a uuid4 there;
# checking that it is one belongs to the reader)
_IDENTITIES = {(TestCase, "uuid"), (Problem, "test")}
_T = TypeVar("_T")
_FIELDS: dict[type[Any], tuple[str, ...] | None] = {}
# Every shape's hint, looked for with `in` (overlapping ones too: `key` and `eyj` in `keyjwt`): 3-4x faster than
# one `re` alternation of them with a lookahead, whose compile alone cost ~4 ms (~16 M instructions) at import
_HINTS = tuple(sorted({hint for shape in SHAPES for hint in shape.hints}, key=len))


@dataclass(frozen=True, slots=True)
class Redactor:
    """Known secret shapes, plus exact values (e.g. of the environment's *_TOKEN variables)."""

    secrets: tuple[str, ...] = field(default=(), repr=False)  # the values themselves: never shown
    _done: dict[str, str | None] = field(default_factory=dict, repr=False, compare=False)
    # model values walked (a verdict, its findings, …): id → (the value, what it became), and each result as
    # its own (redacted already); the value is held, so its id is not reused while the entry lives
    _walked: dict[int, tuple[Any, Any]] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_environment(cls, environment: Mapping[str, str]) -> Redactor:
        """Every value of a variable whose name says it is a secret, longest first."""
        values = {
            value
            for name, value in environment.items()
            if _SECRET_NAME.search(name) and len(value) >= _MIN_SECRET_LENGTH
        }
        return cls(secrets=tuple(sorted(values, key=lambda value: (-len(value), value))))

    @property
    def key(self) -> str:
        """Names this redactor's secret values without holding them (a digest): a report redacted by a
        redactor with the same key is redacted already."""
        return sha256("\0".join(sorted(self.secrets)).encode("utf-8")).hexdigest()

    def text(self, text: str) -> str:
        """The text with terminal controls removed and every secret replaced by [REDACTED].

        Controls go first so that a colour code inside a token cannot hide it from its shape.
        """
        if not text:
            return text
        if len(text) > _CACHED_LENGTH:
            return self._redact(text)
        if text not in self._done:
            if len(self._done) >= _CACHE_ENTRIES:
                self._done.clear()
            redacted = self._redact(text)
            self._done[text] = None if redacted is text else redacted
        done = self._done[text]
        return text if done is None else done  # unchanged: the caller's own object, so nothing is copied

    def lines(self, lines: Sequence[str]) -> list[str]:
        """Consecutive log lines: each redacted, and every line of a private key block (BEGIN … END, or from
        the first line to END when the excerpt starts inside the block) replaced whole."""
        redacted: list[str] = []
        inside = any(_pem_end(line) for line in lines) and not any(
            _pem_start(line) for line in lines[: _first_end(lines)]
        )
        for line in lines:
            if _pem_start(line):
                inside = not _pem_end(line)
                redacted.append(self.text(line))
            elif inside or (len(line) >= _PEM_LINE and PEM_BODY_LINE.match(line)):
                inside = inside and not _pem_end(line)
                redacted.append(REDACTED)
            else:
                redacted.append(self.text(line))
        return redacted

    def _redact(self, original: str) -> str:
        text = strip_controls(original)
        for secret in self.secrets:
            if secret in text:
                text = text.replace(secret, REDACTED)
        lowered = text.lower()
        hinted = {hint for hint in _HINTS if hint in lowered}
        if hinted:
            for shape in SHAPES:
                if not hinted.isdisjoint(shape.hints):
                    text = shape.pattern.sub(REDACTED, text)
        return original if text == original else text  # the same object: the walk then copies nothing


def _first_end(lines: Sequence[str]) -> int:
    return next((index for index, line in enumerate(lines) if _pem_end(line)), len(lines))


# What a line must hold before a PEM pattern is tried (`regex` compiles each in ~0.2 ms, on first use): a
# boundary names "PRIVATE KEY-----", a body line is 64 base64 characters
_PEM_MARK = "PRIVATE KEY-----"
_PEM_LINE = 64


def _pem_start(line: str) -> bool:
    return _PEM_MARK in line and PEM_BLOCK_START.search(line) is not None


def _pem_end(line: str) -> bool:
    return _PEM_MARK in line and PEM_BLOCK_END.search(line) is not None


def redact_report(report: Report, redactor: Redactor) -> Report:
    """The same report with every string redacted and cut to its shown length, fingerprints and groups anew.

    Idempotent: a redacted report comes back equal, so every output path may run it again. The result is
    marked `redacted`, the mark the store asks for, with the redactor's key: a report this function made with
    the same secrets comes back as it is, without a second walk (`analyze`, then each output of the CLI).
    """
    if report.redacted and report.redacted_with == redactor.key:
        return report
    verdicts = tuple(redact_model(verdict, redactor) for verdict in report.verdicts)
    redacted = replace(
        report,
        inputs=redact_model(report.inputs, redactor),
        verdicts=verdicts,
        groups=group_verdicts(verdicts),
        problems=redact_model(report.problems, redactor),
        context=redact_model(report.context, redactor),
    )
    # the marks are not arguments (a `replace` copy comes out unmarked): set on this one report alone
    object.__setattr__(redacted, "redacted", True)
    object.__setattr__(redacted, "redacted_with", redactor.key)
    return redacted


def redact_data(data: _T, redactor: Redactor) -> _T:
    """JSON-like data (dicts, lists, strings) with every string, keys included, through the redactor."""
    if isinstance(data, str):
        return redactor.text(data)  # type: ignore[return-value]
    if isinstance(data, Mapping):
        return {redactor.text(str(key)): redact_data(value, redactor) for key, value in data.items()}  # type: ignore[return-value]
    if isinstance(data, list | tuple):
        return type(data)(redact_data(item, redactor) for item in data)
    return data


def redact_model(value: _T, redactor: Redactor) -> _T:
    """Every string inside a model value (dataclasses, tuples, lists, dicts); a field the model adds later is
    covered without a change here. Unchanged parts are returned as they are (no copies).

    The redactor remembers each model value (dataclass) it walked and what it became, and takes what it made as
    redacted already (the walk is idempotent, as `redact_report`'s mark says): `analyze` redacts each verdict while
    the workers scan the rest, and `redact_report` with the same redactor then finds every verdict done instead
    of walking it again after the last result (~0.1 s of serial time at 1 GiB, 300 tests)."""
    redacted: _T = _walk(value, redactor)
    return redacted


def mark_redacted(value: _T, redactor: Redactor) -> _T:
    """A model value redacted by this redactor's copy in a forked worker, taken as done (`redact_model` of it, and
    `redact_report` of a report holding it, walk it no more): the same secrets redacted it, and the walk is
    idempotent."""
    walked = redactor._walked
    if len(walked) >= _WALKED_ENTRIES:
        walked.clear()
    walked[id(value)] = (value, value)
    return value


def _walk(value: Any, redactor: Redactor) -> Any:
    kind = type(value)
    if kind is str:  # not a StrEnum: statuses and categories are names, not text
        return redactor.text(value)
    if kind is tuple:
        items = tuple(_walk(item, redactor) for item in value)
        return value if all(a is b for a, b in zip(items, value, strict=True)) else items
    if kind is list:
        return [_walk(item, redactor) for item in value]
    if kind is dict:
        return {_walk(key, redactor): _walk(item, redactor) for key, item in value.items()}
    if kind not in _SPECIAL and _text_fields(kind) is None:
        return value
    walked = redactor._walked
    known = walked.get(id(value))
    if known is not None and known[0] is value:
        return known[1]
    result = _walk_model(kind, value, redactor)
    if len(walked) >= _WALKED_ENTRIES:
        walked.clear()
    walked[id(value)] = (value, result)
    walked[id(result)] = (result, result)
    return result


_SPECIAL = frozenset({Evidence, Fingerprint, EvidenceWindow})  # walked by their own functions


def _walk_model(kind: type[Any], value: Any, redactor: Redactor) -> Any:
    if kind is Evidence:
        return _evidence(value, redactor)
    if kind is Fingerprint:
        return _fingerprint(value, redactor)
    if kind is EvidenceWindow:
        return _window(value, redactor)
    names = _text_fields(kind) or ()
    changes: dict[str, Any] = {}
    for name in names:
        before = getattr(value, name)
        after = _walk(before, redactor)
        if after is not before:
            changes[name] = after
    return replace(value, **changes) if changes else value


def _text_fields(kind: type[Any]) -> tuple[str, ...] | None:
    """The fields of a dataclass the walk visits (None for anything else: numbers, enums, datetimes)."""
    if kind not in _FIELDS:
        _FIELDS[kind] = (
            tuple(item.name for item in fields(kind) if (kind, item.name) not in _IDENTITIES)
            if is_dataclass(kind)
            else None
        )
    return _FIELDS[kind]


def _evidence(evidence: Evidence, redactor: Redactor) -> Evidence:
    """Redacted first, then cut to what reports show (the scanner keeps more, so no secret is cut in half)."""
    texts = redactor.lines([line.text for line in evidence.excerpt])
    return replace(
        evidence,
        attachment=redactor.text(evidence.attachment),
        text=redactor.text(evidence.text)[:EVIDENCE_TEXT_LIMIT],
        location=redactor.text(evidence.location),
        source=redactor.text(evidence.source),
        excerpt=tuple(
            ExcerptLine(line.number, text[:EXCERPT_TEXT_LIMIT])
            for line, text in zip(evidence.excerpt, texts, strict=True)
        ),
    )


def _window(window: EvidenceWindow, redactor: Redactor) -> EvidenceWindow:
    """Line by line (a private key block is replaced whole), then cut to its size again."""
    lines = window.text.split("\n") if window.text else []
    texts = redactor.lines(lines)
    redacted = replace(
        window,
        source=redactor.text(window.source),
        attachment=redactor.text(window.attachment),
        location=redactor.text(window.location),
    )
    if all(a is b for a, b in zip(texts, lines, strict=True)):
        return window if redacted == window else redacted
    return trim_window(redacted, texts)


def _fingerprint(fingerprint: Fingerprint, redactor: Redactor) -> Fingerprint:
    """Computed again from the redacted line: masking first would keep parts of a secret in the key and title."""
    evidence = _evidence(fingerprint.evidence, redactor) if fingerprint.evidence is not None else None
    return make_fingerprint(redactor.text(fingerprint.line)[:EVIDENCE_TEXT_LIMIT], evidence)
