"""Markdown for step summaries: an overview table, a collapsible section per group, a byte cap.

Text from logs and results is escaped as prose or fenced; the `<summary>` lines are HTML-escaped.
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

from forensics.model import (
    LIKELY_CAUSE_LABEL,
    Evidence,
    Finding,
    Group,
    InputInfo,
    JobContext,
    Report,
    RunContext,
    Verdict,
    shows_same_line,
)
from forensics.render.common import (
    JobSection,
    distinct_summaries,
    evidence_place,
    headline,
    input_description,
    job_inputs,
    job_sections,
    plural,
    short_sha,
    tickets_of,
)
from forensics.render.markdown_since import render_since
from forensics.render.markdown_text import fence_for, inline_code, plain, prose
from forensics.render.summary_budget import Piece, fit_summary

if TYPE_CHECKING:
    from forensics.store.since_last_run import SinceLastRun

DEFAULT_MAX_BYTES = 900 * 1024
"""The step summary's size cap in UTF-8 bytes: GitHub refuses a step summary over 1 MiB (1,048,576 bytes)."""
_MAX_TITLE_IN_TABLE = 120
_MAX_TICKETS_IN_TABLE = 5
_MAX_PROBLEMS_LISTED = 50
_EXCERPT_LEFT_OUT = "_(log excerpt left out to keep the summary under its size cap)_"
_MAX_TESTS_LISTED = 20


def excerpt_block(evidence: Evidence) -> str:
    """The evidence lines with their numbers, fenced."""
    lines = evidence.excerpt or ()
    width = len(str(max((line.number for line in lines), default=evidence.line)))
    body = (
        "\n".join(
            f"{'>' if line.number == evidence.line else ' '} {line.number:>{width}} | {line.text}"
            for line in lines
        )
        or f"> {evidence.line} | {evidence.text}"
    )
    fence = fence_for(body)
    return f"{fence}text\n{body}\n{fence}"


def render_markdown(
    report: Report, *, max_bytes: int = DEFAULT_MAX_BYTES, since: SinceLastRun | None = None
) -> str:
    """The report as a step summary: headline, run, what changed since the last run (`since`, from the
    history store), an overview table of every group, then one collapsible section per group, explained
    causes first. Kept under `max_bytes` (UTF-8) by leaving out the least important detail first."""
    head = f"## ci-forensics: {headline(report)}\n"
    if report.context is not None:
        head += "\n" + _context_block(report, report.context)
    ranked = rank_groups(report, since)
    by_uuid = report.verdict_by_uuid()
    rows = [_overview_row(group, [by_uuid[uuid] for uuid in group.test_uuids], since) for group in ranked]
    details: list[Piece] = []
    per_job = job_sections(report)
    if per_job:  # several CI jobs: their tests apart, job by job
        rank = {group.key: index for index, group in enumerate(ranked)}
        for job_section in per_job:
            details.append(Piece(_job_heading(job_section)))
            for group, members in sorted(job_section.groups, key=lambda item: rank[item[0].key]):
                details.append(_group_details(group, list(members), rank=rank[group.key], since=since))
    else:
        details.extend(
            _group_details(group, [by_uuid[uuid] for uuid in group.test_uuids], rank=index, since=since)
            for index, group in enumerate(ranked)
        )
    return fit_summary(
        head=[head, *([render_since(since)] if since is not None else [])],
        overview=_overview_header(since) if rows else "",
        rows=rows,
        details=details,
        tail=_problems_section(report) if report.problems else "",
        max_bytes=max_bytes,
    )


def rank_groups(report: Report, since: SinceLastRun | None = None) -> list[Group]:
    """The groups by importance: explained causes before unexplained clusters; within each, what is new or
    returning since the last run first (when known), then the most tests, then the report's order."""
    order = {group.key: index for index, group in enumerate(report.groups)}

    def importance(group: Group) -> tuple[int, int, int, int]:
        changed = since is not None and since.status_of(group.key) is not None
        return (group.kind != "cause", not changed, -len(group.test_uuids), order[group.key])

    return sorted(report.groups, key=importance)


def _overview_header(since: SinceLastRun | None) -> str:
    columns = [
        "root cause",
        "category",
        "tests",
        *(["since last run"] if since is not None else []),
        "tickets",
    ]
    align = ["---", "---", "---:", *(["---"] if since is not None else []), "---"]
    return f"### Overview\n\n| {' | '.join(columns)} |\n| {' | '.join(align)} |\n"


def _overview_row(group: Group, members: list[Verdict], since: SinceLastRun | None) -> str:
    if group.kind == "cause":
        name = f"{prose(group.title)} ({table_code(group.key)})"
        category = plain(group.category.value if group.category else "")
    else:
        name = f"Unexplained: {table_code(_cut(group.title, _MAX_TITLE_IN_TABLE))}"
        category = "—"
    tickets = list(dict.fromkeys(ticket.key for verdict in members for ticket in verdict.test.tickets))
    shown = ", ".join(prose(key) for key in tickets[:_MAX_TICKETS_IN_TABLE])
    if len(tickets) > _MAX_TICKETS_IN_TABLE:
        shown += f" +{len(tickets) - _MAX_TICKETS_IN_TABLE}"
    cells = [name, category, str(len(members))]
    if since is not None:
        cells.append(since.status_of(group.key) or "")
    cells.append(shown)
    return f"| {' | '.join(cells)} |"


def table_code(text: str) -> str:
    """Inline code inside a table cell: a `|` in it would end the cell, so it is escaped (GFM drops the `\\`)."""
    return inline_code(text).replace("|", "\\|")


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _problems_section(report: Report) -> str:
    lines = ["### Problems", ""]
    for problem in report.problems[:_MAX_PROBLEMS_LISTED]:
        hint = f" — hint: {prose(problem.hint)}" if problem.hint else ""
        lines.append(
            f"- **{problem.severity}** {inline_code(problem.object)}: {prose(problem.message)}{hint}"
        )
    if len(report.problems) > _MAX_PROBLEMS_LISTED:
        lines.append(f"- … and {len(report.problems) - _MAX_PROBLEMS_LISTED} more (see the JSON report)")
    return "\n".join(lines) + "\n"


def _link(text: str, url: str) -> str:
    if not url:
        return plain(text)
    return f"[{plain(text)}]({url.replace(' ', '%20').replace(')', '%29')})"


def _context_block(report: Report, context: RunContext) -> str:
    """Where the report came from: run, repository, commit, and a line per job with its inputs."""
    provider = "GitHub Actions" if context.provider == "github" else context.provider
    run = _link(f"{context.workflow or 'run'} · run {context.run_id}", context.run_url)
    facts = [f"**{plain(provider)} run:** {run} (attempt {context.run_attempt})"]
    facts.append(f"**Repository:** {inline_code(context.repository)}")
    if context.head_sha:
        branch = f" on {inline_code(context.branch)}" if context.branch else ""
        facts.append(f"**Commit:** {inline_code(short_sha(context.head_sha))}{branch}")
    if context.event:
        facts.append(f"**Event:** {plain(context.event)}")
    lines = [" · ".join(facts), ""]
    lines.extend(_job_line(report, job) for job in context.jobs)
    return "\n".join(lines) + "\n"


def _job_line(report: Report, job: JobContext) -> str:
    parts = [
        f"- **Job** {_link(job.name or str(job.job_id), job.url)} — {plain(job.conclusion or 'running')}"
    ]
    if job.failed_steps:
        parts[0] += f", failed step: {plain(', '.join(job.failed_steps))}"
    if job.runner_name or job.runner_labels:
        labels = ", ".join(inline_code(label) for label in job.runner_labels)
        parts.append(f"runner {inline_code(job.runner_name or '?')}" + (f" ({labels})" if labels else ""))
    inputs = [_input_text(item) for item in job_inputs(report, job)]
    if inputs:
        parts.append("inputs: " + "; ".join(inputs))
    return " · ".join(parts)


def _input_text(item: InputInfo) -> str:
    if not item.artifact:
        return plain(input_description(item))
    stage = f"stage {inline_code(item.stage)}, " if item.stage else ""
    return f"{inline_code(item.artifact)} ({stage}{plural(item.tests, 'test')})"


def _job_heading(section: JobSection) -> str:
    job = section.job
    if job is None:
        title = "Not from a job of this run"
    else:
        title = f"Job {_link(job.name or str(job.job_id), job.url)}"
    count = (
        f"{plural(section.failing, 'failing test')}, {section.explained} explained"
        if section.failing
        else "no failing tests"
    )
    return f"### {title} — {count}\n"


def _group_details(group: Group, members: list[Verdict], *, rank: int, since: SinceLastRun | None) -> Piece:
    """One group as a collapsible section, with and without its log excerpts."""
    status = since.status_of(group.key) if since is not None else None
    count = plural(len(members), "test")
    if group.kind == "cause":
        category = group.category.value if group.category else ""
        label = f"<b>{_html(group.title)}</b> — {count} · {_html(category)}"
    else:
        label = f"<b>Unexplained</b> — {count}: <code>{_html(_cut(group.title, _MAX_TITLE_IN_TABLE))}</code>"
    if status is not None:
        label += f" · <b>{status}</b>"
    opening, closing = f"<details>\n<summary>{label}</summary>\n\n", "\n</details>\n"

    def body(excerpts: bool) -> str:
        if group.kind == "cause":
            return _cause_section(members, excerpts=excerpts)
        return _unexplained_section(group.title, members, excerpts=excerpts)

    return Piece(opening + body(True) + closing, lean=opening + body(False) + closing, rank=rank)


def _html(text: str) -> str:
    """Text inside the `<summary>` HTML line: one line, nothing in it is markup."""
    return html.escape(" ".join(text.split()), quote=True)


def _test_lines(members: list[Verdict]) -> list[str]:
    lines = []
    for verdict in members[:_MAX_TESTS_LISTED]:
        tickets = tickets_of(verdict)
        extra = f" — tickets: {prose(tickets)}" if tickets else ""
        retried = f", retried {verdict.test.retries}×" if verdict.test.retries else ""
        lines.append(f"- {inline_code(verdict.test.name)} ({verdict.test.status.value}{retried}){extra}")
    if len(members) > _MAX_TESTS_LISTED:
        lines.append(f"- … and {len(members) - _MAX_TESTS_LISTED} more")
    return lines


def _cause_section(members: list[Verdict], *, excerpts: bool) -> str:
    first = members[0].root_cause
    assert first is not None
    count = len(members)
    lines = [f"**Category:** {first.category.value} · **Rule:** {inline_code(first.rule_id)}", ""]
    for summary, sharing in distinct_summaries(members):
        prefix = "" if len(sharing) == count else f"({len(sharing)} of {count}) "
        lines.append(f"{prefix}{prose(summary)}")
        lines.append("")
    lines.append("**Tests**")
    lines.extend(_test_lines(members))
    lines.extend(
        ["", f"**Evidence** ({prose(evidence_place(first))}, test {inline_code(members[0].test.name)})", ""]
    )
    lines.append(excerpt_block(first.evidence) if excerpts else _EXCERPT_LEFT_OUT)
    symptoms = _symptom_line(members[0].root_cause, members[0].symptoms)
    if symptoms:
        lines.extend(["", symptoms])
    if first.advice:
        lines.extend(["", f"**Advice:** {first.advice}"])
    return "\n".join(lines) + "\n"


def _symptom_line(cause: Finding | None, symptoms: tuple[Finding, ...]) -> str:
    if not symptoms:
        return ""
    parts = [f"{prose(symptom.title)} ({prose(evidence_place(symptom))})" for symptom in symptoms]
    label = "**Symptoms it explains:**" if cause else "**Symptoms seen:**"
    return f"{label} " + "; ".join(parts)


def _unexplained_section(title: str, members: list[Verdict], *, excerpts: bool) -> str:
    first = members[0]
    fingerprint = first.fingerprint
    lines = []
    if fingerprint is not None:
        lines.append(f"**Fingerprint** {inline_code(fingerprint.key)}: {inline_code(title)}")
        lines.append("")
    lines.append("**Tests**")
    lines.extend(_test_lines(members))
    likely = first.likely_cause
    if likely is not None:
        place = f"{likely.evidence.attachment} line {likely.evidence.line}"
        lines.extend(["", f"**{LIKELY_CAUSE_LABEL}:** {likely.reason} ({place})", ""])
        lines.append(excerpt_block(likely.evidence) if excerpts else _EXCERPT_LEFT_OUT)
    if (
        fingerprint is not None
        and fingerprint.evidence is not None
        and not shows_same_line(likely, fingerprint)
    ):
        lines.extend(
            [
                "",
                f"**Last error line** ({prose(fingerprint.evidence.attachment)} line {fingerprint.evidence.line})",
                "",
            ]
        )
        lines.append(excerpt_block(fingerprint.evidence) if excerpts else _EXCERPT_LEFT_OUT)
    symptoms = _symptom_line(None, first.symptoms)
    if symptoms:
        lines.extend(["", symptoms])
    return "\n".join(lines) + "\n"
