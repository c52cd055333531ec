"""What a ticket comment says: the run, then each root cause or unexplained fingerprint with its tests.

Blocks only (see `document`); `compose` renders them per tracker and keeps them under its size limit.
Everything taken from the report passes through `Cleaner`: the redactor again, `@mentions` broken with a
zero-width joiner, the marker prefix defused, the length capped.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Protocol

import regex

from forensics.annotate.document import (
    Block,
    BulletList,
    CodeBlock,
    Heading,
    Paragraph,
    Span,
    code,
    link,
    plain,
    strong,
)
from forensics.annotate.targets import LinkedTarget
from forensics.model import (
    LEARNED_WORDS,
    LIKELY_CAUSE_LABEL,
    Evidence,
    Finding,
    FoundBy,
    Report,
    Verdict,
    shows_same_line,
)
from forensics.report.redact import Redactor
from forensics.sinks.base import MARKER_PREFIX

if TYPE_CHECKING:  # the answer's shape only: annotate never imports the store
    from forensics.store.answers import FlippingTest, Sighting
    from forensics.store.since_last_run import CauseChange, SinceLastRun

_ZWJ = "\u200d"
_MENTION = regex.compile(r"@(?=[A-Za-z0-9_])")
_WHITESPACE = regex.compile(r"\s+")
_EXCERPT_CONTEXT = 3  # lines either side of the evidence line
_MAX_TEXT = 500
_MAX_LINE = 400
_MAX_SYMPTOMS = 5
_MAX_OTHERS = 10
_MAX_CHANGES = 10
_CHANGE_LABELS = {
    "new": "New since the last run:",
    "returning": "Returning:",
    "gone": "Gone since the last run:",
}


class CauseStatistics(Protocol):
    """What the history store knows about one cause (rule id) or unexplained fingerprint in a repository.

    `forensics.store.answers.CauseStats` has this shape, so `history=lambda key: cause_stats(store,
    key=key, repository=…, now=…)` plugs the store in; annotate itself never imports the store.
    """

    @property
    def first_seen_at(self) -> datetime | str: ...
    @property
    def first_seen_run_url(self) -> str | None: ...
    @property
    def first_seen_sha(self) -> str | None: ...
    @property
    def last_seen_at(self) -> datetime | str: ...
    @property
    def last_seen_run_url(self) -> str | None: ...
    @property
    def count_24h(self) -> int: ...
    @property
    def count_7d(self) -> int: ...
    @property
    def count_30d(self) -> int: ...
    @property
    def total(self) -> int: ...


History = Callable[[str], CauseStatistics | None]
"""Looks a cause up by rule id or fingerprint key; None when it was never seen before."""


def group_key(verdict: Verdict) -> str:
    """The rule id of an explained test, the fingerprint key of an unexplained one ("" without either)."""
    if verdict.root_cause is not None:
        return verdict.root_cause.rule_id
    return verdict.fingerprint.key if verdict.fingerprint else ""


@dataclass(frozen=True, slots=True)
class Cleaner:
    """Makes report text safe to post: redacted, no pings, no fake markers, bounded."""

    redactor: Redactor
    _done: dict[tuple[str, int], str] = field(default_factory=dict)  # truncation re-renders the same text

    def inline(self, text: str, limit: int = _MAX_TEXT) -> str:
        return self._safe(_WHITESPACE.sub(" ", text).strip(), limit)

    def line(self, text: str) -> str:
        return self._safe(text.replace("\r", "").replace("\n", " "), _MAX_LINE)

    def _safe(self, text: str, limit: int) -> str:
        done = self._done.get((text, limit))
        if done is None:
            done = self._done[(text, limit)] = self._clean(text, limit)
        return done

    def _clean(self, text: str, limit: int) -> str:
        text = self.redactor.text(text)
        text = _MENTION.sub("@" + _ZWJ, text).replace(MARKER_PREFIX, f"ci-forensics{_ZWJ}:v1")
        return text if len(text) <= limit else text[: limit - 1] + "…"


@dataclass(frozen=True, slots=True)
class CommentSections:
    """The blocks of one ticket's comment, for the tests shown; `truncated` says what was left out."""

    report: Report
    linked: LinkedTarget
    clean: Cleaner
    histories: dict[str, CauseStatistics]
    since: SinceLastRun | None = None

    def blocks(self, shown: Sequence[Verdict], truncated: str = "") -> list[Block]:
        count = len(self.linked.failing)
        blocks: list[Block] = [
            Heading(
                3,
                (
                    plain(f"ci-forensics: {count} failing test{'' if count == 1 else 's'} linked to "),
                    code(self.linked.target.key),
                ),
            ),
            Paragraph(self._run_line()),
            *self._since(),
        ]
        groups: dict[str, list[Verdict]] = {}
        for verdict in shown:
            groups.setdefault(group_key(verdict) or verdict.test.uuid, []).append(verdict)
        for members in groups.values():
            blocks.extend(self._cause(members) if members[0].root_cause else self._unexplained(members))
        if truncated:
            blocks.append(Paragraph((plain(truncated),)))
        blocks.extend(self._others())
        return blocks

    def _run_line(self) -> tuple[Span, ...]:
        context = self.report.context
        if context is None:
            return (plain("Local analysis: the report names no CI run."),)
        name = context.workflow or "CI run"
        attempt = f" (attempt {context.run_attempt})" if context.run_attempt > 1 else ""
        spans = [
            plain("Run "),
            link(self.clean.inline(f"{name} #{context.run_id}{attempt}"), context.run_url),
        ]
        if context.head_sha:
            spans += [plain(" · commit "), code(self.clean.inline(context.head_sha[:12], 12))]
        if context.branch:
            spans += [plain(" on "), code(self.clean.inline(context.branch, 200))]
        if context.created_at:
            spans += [plain(f" · {self.clean.inline(context.created_at, 40)}")]
        spans += [plain(f" · {self.clean.inline(context.repository, 200)}")]
        return tuple(spans)

    def _since(self) -> list[Block]:
        """What changed since the last run for this ticket's causes and tests (nothing without a store)."""
        since = self.since
        if since is None:
            return []
        heading = Heading(4, (plain("Since the last run"),))
        if since.previous is None:
            return [
                heading,
                Paragraph(
                    (plain("First recorded run of this workflow and branch: nothing to compare with yet."),)
                ),
            ]
        by_uuid = self.report.verdict_by_uuid()
        failing = [by_uuid[uuid] for uuid in self.linked.failing if uuid in by_uuid]
        keys = {group_key(verdict) for verdict in failing} - {""}
        names = {
            by_uuid[uuid].test.name for uuid in (*self.linked.failing, *self.linked.others) if uuid in by_uuid
        }
        ticket = self.linked.target.key
        changes = [
            change
            for change in since.changes
            if change.key in keys or (change.status == "gone" and ticket in change.tickets)
        ]
        flaky = [test for test in since.flaky if test.name in names]
        against = [plain("Against "), *self._sighting(since.previous), plain(".")]
        if not changes and not flaky:
            return [
                heading,
                Paragraph(
                    (
                        *against[:-1],
                        plain(": nothing new, returning or gone for this ticket, and no flaky test."),
                    )
                ),
            ]
        items = [self._change(change) for change in changes[:_MAX_CHANGES]]
        items += [self._flaky(test) for test in flaky[:_MAX_CHANGES]]
        hidden = max(0, len(changes) - _MAX_CHANGES) + max(0, len(flaky) - _MAX_CHANGES)
        if hidden:
            items.append((plain(f"… and {hidden} more (the step summary lists them)"),))
        return [heading, Paragraph(tuple(against)), BulletList(tuple(items))]

    def _change(self, change: CauseChange) -> tuple[Span, ...]:
        label = (
            "New unexplained failure:"
            if change.kind == "unexplained" and change.status == "new"
            else _CHANGE_LABELS[change.status]
        )
        spans: list[Span] = [
            strong(label),
            plain(" "),
            code(self.clean.inline(change.title, 200))
            if change.kind == "unexplained"
            else plain(self.clean.inline(change.title, 200)),
            plain(f" — {_tests(change.tests)}{' in the last run' if change.status == 'gone' else ''}"),
        ]
        if change.absent_runs is not None:
            spans.append(
                plain(
                    f", back after {change.absent_runs} run{'' if change.absent_runs == 1 else 's'} without it"
                )
            )
        spans += [plain(" · first seen "), *self._sighting(change.first_seen)]
        if change.commits is not None:
            label = " · fixed within " if change.status == "gone" else " · commits since the last good run: "
            span = f"{change.commits.base_sha[:12]}…{change.commits.head_sha[:12]}"
            spans += [
                plain(label),
                link(span, change.commits.compare_url) if change.commits.compare_url else code(span),
            ]
        return tuple(spans)

    def _flaky(self, test: FlippingTest) -> tuple[Span, ...]:
        spans: list[Span] = [
            strong("Flaky:"),
            plain(" "),
            code(self.clean.inline(test.name, 300)),
            plain(f" — flip rate {test.flip_rate:.0%} ({test.flips} flips in {test.executions} tries)"),
            plain(" · first failed "),
            *self._sighting(test.first_failed),
        ]
        return tuple(spans)

    def _sighting(self, seen: Sighting) -> list[Span]:
        name = f"run {seen.run_id}" if seen.run_id is not None else "a local run"
        return [link(name, seen.run_url), plain(f" ({self._when(seen.at)})")]

    def _cause(self, members: list[Verdict]) -> list[Block]:
        first = members[0].root_cause
        assert first is not None  # callers group explained tests here
        blocks: list[Block] = [
            Heading(4, (plain(f"Root cause: {self.clean.inline(first.title)} — {_tests(len(members))}"),)),
            Paragraph((code(self.clean.inline(first.rule_id, 200)), plain(f" · {first.category.value}"))),
        ]
        summaries: dict[str, int] = {}
        for verdict in members:
            assert verdict.root_cause is not None
            summaries[verdict.root_cause.summary] = summaries.get(verdict.root_cause.summary, 0) + 1
        for summary, sharing in summaries.items():
            prefix = "" if sharing == len(members) else f"({sharing} of {len(members)}) "
            blocks.append(Paragraph((plain(prefix + self.clean.inline(summary)),)))
        values = self._values(members)
        if values:
            blocks.append(Paragraph((strong("Captured values:"), *values)))
        blocks += self._test_list(members)
        words = dict(first.fields).get(LEARNED_WORDS) if first.found_by is FoundBy.LEARNED else None
        found = (
            f" ({first.found_by}{f'; words: {words}' if words else ''})"
            if first.found_by is not FoundBy.SCAN
            else ""
        )
        blocks += self._evidence(f"Evidence{found}", first.evidence, members[0])
        if members[0].symptoms:
            blocks.append(self._symptoms("Symptoms it explains:", members[0].symptoms))
        blocks += self._history(first.rule_id)
        if first.advice:
            blocks.append(Paragraph((strong("Advice:"), plain(" " + self.clean.inline(first.advice, 1000)))))
        return blocks

    def _unexplained(self, members: list[Verdict]) -> list[Block]:
        fingerprint = members[0].fingerprint
        blocks: list[Block] = [Heading(4, (plain(f"Unexplained — {_tests(len(members))}"),))]
        if fingerprint is None:
            blocks.append(Paragraph((plain("No rule explains this failure and no error line was found."),)))
        else:
            blocks.append(
                Paragraph(
                    (
                        plain("No rule explains this failure yet. Fingerprint "),
                        code(self.clean.inline(fingerprint.key, 100)),
                        plain(": "),
                        code(self.clean.inline(fingerprint.masked or fingerprint.line)),
                    )
                )
            )
        blocks += self._test_list(members)
        likely = members[0].likely_cause
        if likely is not None:
            blocks += self._evidence(f"{LIKELY_CAUSE_LABEL} — {likely.reason}", likely.evidence, members[0])
        if (
            fingerprint is not None
            and fingerprint.evidence is not None
            and not shows_same_line(likely, fingerprint)
        ):
            blocks += self._evidence("Last error line", fingerprint.evidence, members[0])
        if members[0].symptoms:
            blocks.append(self._symptoms("Symptoms seen:", members[0].symptoms))
        if fingerprint is not None:
            blocks += self._history(fingerprint.key)
        return blocks

    def _values(self, members: list[Verdict]) -> list[Span]:
        fields = {verdict.root_cause.fields for verdict in members if verdict.root_cause}
        if len(fields) != 1:
            return []  # the numbers differ per test: the summaries above carry them
        spans: list[Span] = []
        for name, value in next(iter(fields))[:12]:
            spans += [
                plain(" " if not spans else " · "),
                code(f"{name} = {self.clean.inline(str(value), 100)}"),
            ]
        return spans

    def _test_list(self, members: list[Verdict]) -> list[Block]:
        items = []
        for verdict in members:
            retried = f", retried {verdict.test.retries}×" if verdict.test.retries else ""
            item = [
                code(self.clean.inline(verdict.test.name, 300)),
                plain(f" ({verdict.test.status.value}{retried})"),
            ]
            job = self.report.job_of(verdict)
            if job is not None:
                item += [plain(" — job "), link(self.clean.inline(job.name, 200), job.url)]
            items.append(tuple(item))
        return [Paragraph((strong("Tests"),)), BulletList(tuple(items))]

    def _evidence(self, label: str, evidence: Evidence, verdict: Verdict) -> list[Block]:
        place = f"{evidence.attachment} line {evidence.line}"
        if evidence.location and evidence.location not in ("result", "file"):
            place += f", {evidence.location}"
        lines = [line for line in evidence.excerpt if abs(line.number - evidence.line) <= _EXCERPT_CONTEXT]
        width = len(str(max((line.number for line in lines), default=evidence.line)))
        excerpt = (
            "\n".join(
                f"{'>' if line.number == evidence.line else ' '} {line.number:>{width}} | {self.clean.line(line.text)}"
                for line in lines
            )
            or f"> {evidence.line} | {self.clean.line(evidence.text)}"
        )
        return [
            Paragraph(
                (
                    strong(label),
                    plain(f" — {self.clean.inline(place, 300)}, test "),
                    code(self.clean.inline(verdict.test.name, 300)),
                )
            ),
            CodeBlock(excerpt),
        ]

    def _symptoms(self, label: str, symptoms: tuple[Finding, ...]) -> Paragraph:
        parts = [
            f"{symptom.title} ({symptom.evidence.attachment} line {symptom.evidence.line})"
            for symptom in symptoms[:_MAX_SYMPTOMS]
        ]
        if len(symptoms) > _MAX_SYMPTOMS:
            parts.append(f"{len(symptoms) - _MAX_SYMPTOMS} more")
        return Paragraph((strong(label), plain(" " + self.clean.inline("; ".join(parts), 1000))))

    def _history(self, key: str) -> list[Block]:
        stats = self.histories.get(key)
        if stats is None:
            return []
        spans: list[Span] = [strong("History:"), plain(f" first seen {self._when(stats.first_seen_at)}")]
        if stats.first_seen_run_url:
            spans += [plain(" in "), link("this run", stats.first_seen_run_url)]
        if stats.first_seen_sha:
            spans += [plain(" at "), code(self.clean.inline(stats.first_seen_sha[:12], 12))]
        spans.append(plain(f" · last seen {self._when(stats.last_seen_at)}"))
        if stats.last_seen_run_url:
            spans += [plain(" in "), link("this run", stats.last_seen_run_url)]
        spans.append(
            plain(
                f" · {stats.count_24h}× in 24 h, {stats.count_7d}× in 7 days, "
                f"{stats.count_30d}× in 30 days, {stats.total}× in all"
            )
        )
        return [Paragraph(tuple(spans))]

    def _when(self, value: datetime | str) -> str:
        if isinstance(value, datetime):
            moment = value.astimezone(UTC) if value.tzinfo else value
            return moment.strftime("%Y-%m-%d %H:%M UTC")
        return self.clean.inline(value, 40)

    def _others(self) -> list[Block]:
        if not self.linked.others:
            return []
        by_uuid = self.report.verdict_by_uuid()
        spans: list[Span] = [strong("Also linked in this run:"), plain(" ")]
        for index, uuid in enumerate(self.linked.others[:_MAX_OTHERS]):
            verdict = by_uuid[uuid]
            spans += [
                plain(", " if index else ""),
                code(self.clean.inline(verdict.test.name, 200)),
                plain(f" ({verdict.test.status.value})"),
            ]
        if len(self.linked.others) > _MAX_OTHERS:
            spans.append(plain(f" and {len(self.linked.others) - _MAX_OTHERS} more"))
        return [Paragraph(tuple(spans))]


def _tests(count: int) -> str:
    return f"{count} test{'' if count == 1 else 's'}"
