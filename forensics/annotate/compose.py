"""One comment per ticket, in its tracker's format (Markdown or ADF), marked, and under its size limit.

The marker carries a digest of the content, so a later run can tell "same comment" from "needs an edit"
whatever the tracker did to the formatting. The rendered body is redacted once more as a whole. A body
over the tracker's limit loses whole tests from the end, with a note saying how many.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import regex

from forensics.annotate.document import Block, Paragraph, adf_document, code, plain, to_adf, to_markdown
from forensics.annotate.sections import CauseStatistics, Cleaner, CommentSections, History, group_key
from forensics.annotate.targets import LinkedTarget
from forensics.model import Report, TicketSystem, Verdict
from forensics.report.redact import Redactor
from forensics.sinks.base import BodyFormat, CommentBody, Marker

BODY_LIMITS: dict[TicketSystem, int] = {"github": 65_536, "linear": 50_000, "jira": 32_767}
"""Characters per comment: GitHub's documented cap; Linear publishes none (50,000 keeps comments
readable); Jira's text-field limit, counted on the ADF JSON."""
BODY_FORMATS: dict[TicketSystem, BodyFormat] = {"github": "markdown", "linear": "markdown", "jira": "adf"}
SERVICE_NAMES: dict[TicketSystem, str] = {"github": "GitHub", "linear": "Linear", "jira": "Jira"}


@dataclass(frozen=True, slots=True)
class ComposeOptions:
    """What the composer needs beyond the report: a scope for the marker, history, the redactor."""

    scope: str = ""  # separate comments per scope (e.g. per workflow); "" = one comment per ticket
    history: History | None = None
    redactor: Redactor = field(default_factory=Redactor)


def marker_key(linked: LinkedTarget, scope: str = "") -> str:
    """`linear:OPS-4445`, `github:owner/repo#12@nightly`: stable across runs, unique per ticket and scope."""
    slug = regex.sub(r"[^A-Za-z0-9._-]+", "-", scope).strip("-")
    key = f"{linked.target.system}:{linked.target.key}"
    return f"{key}@{slug}" if slug else key


def compose_comment(report: Report, linked: LinkedTarget, *, options: ComposeOptions) -> CommentBody:
    """The comment for one ticket, in its tracker's format and under its size limit."""
    system = linked.target.system
    limit = BODY_LIMITS[system]
    by_uuid = report.verdict_by_uuid()
    ordered = _ordered(report, linked, by_uuid)
    cleaner = Cleaner(options.redactor)
    histories = _histories(ordered, options.history)
    key = marker_key(linked, options.scope)

    def build(shown: int) -> CommentBody:
        hidden = len(ordered) - shown
        note = (
            f"… {hidden} more test{'' if hidden == 1 else 's'} truncated to stay under {SERVICE_NAMES[system]}'s "
            f"limit of {limit:,} characters; the JSON report has them all."
            if hidden
            else ""
        )
        sections = CommentSections(report, linked, cleaner, histories)
        return _render(sections.blocks(ordered[:shown], note), system, key, options.redactor)

    body = build(len(ordered))
    if len(body.text) <= limit or len(ordered) <= 1:
        return body
    low, high = 1, len(ordered) - 1  # the most tests that fit; each one is small, so one always fits
    while low < high:
        middle = (low + high + 1) // 2
        if len(build(middle).text) <= limit:
            low = middle
        else:
            high = middle - 1
    return build(low)


def _ordered(report: Report, linked: LinkedTarget, by_uuid: dict[str, Verdict]) -> list[Verdict]:
    """The ticket's failing tests, cause groups first in report order: truncation drops from the end."""
    wanted = set(linked.failing)
    ordered = [uuid for group in report.groups for uuid in group.test_uuids if uuid in wanted]
    ordered += [uuid for uuid in linked.failing if uuid not in ordered]
    return [by_uuid[uuid] for uuid in dict.fromkeys(ordered)]


def _histories(verdicts: Sequence[Verdict], history: History | None) -> dict[str, CauseStatistics]:
    if history is None:
        return {}
    found: dict[str, CauseStatistics] = {}
    for key in dict.fromkeys(group_key(verdict) for verdict in verdicts):
        stats = history(key) if key else None
        if stats is not None:
            found[key] = stats
    return found


def _footer(marker: Marker) -> Paragraph:
    return Paragraph(
        (plain("Posted by ci-forensics and edited in place after every run · "), code(marker.text))
    )


def _digest(content: str) -> str:
    return hashlib.sha256(content.encode()).hexdigest()[:16]


def _render(blocks: list[Block], system: TicketSystem, key: str, redactor: Redactor) -> CommentBody:
    if BODY_FORMATS[system] == "markdown":
        content = to_markdown(blocks)
        marker = Marker(key, _digest(content))
        footer = to_markdown([_footer(marker)])
        # GitHub keeps HTML comments hidden; Linear's editor may drop them or show them as text, so Linear
        # relies on the visible footer alone. Either one finds the comment again.
        hidden = f"<!-- {marker.text} -->\n" if system == "github" else ""
        return CommentBody(marker, "markdown", redactor.text(f"{hidden}{content}\n{footer}"))
    nodes = to_adf(blocks)
    marker = Marker(key, _digest(json.dumps(nodes, sort_keys=True, ensure_ascii=False)))
    document = _redact_adf(adf_document([*nodes, *to_adf([_footer(marker)])]), functools.cache(redactor.text))
    # Serialised as `requests` sends it (ASCII escapes, default separators): the size checked is the size sent.
    return CommentBody(marker, "adf", json.dumps(document))


def _redact_adf(node: Any, redact: Callable[[str], str]) -> Any:
    """Every text node and link target of an ADF document through the redactor."""
    if isinstance(node, dict):
        return {
            name: redact(value)
            if name in ("text", "href") and isinstance(value, str)
            else _redact_adf(value, redact)
            for name, value in node.items()
        }
    if isinstance(node, list):
        return [_redact_adf(item, redact) for item in node]
    return node
