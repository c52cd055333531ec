"""The terminal report: a rich renderable (not printed here), causes biggest first, then the unexplained."""

from __future__ import annotations

from rich.console import Group as RichGroup
from rich.console import RenderableType
from rich.panel import Panel
from rich.rule import Rule
from rich.text import Text

from forensics.model import (
    LIKELY_CAUSE_LABEL,
    Evidence,
    Finding,
    Group,
    Report,
    RunContext,
    Verdict,
    shows_same_line,
)
from forensics.render.common import (
    CATEGORY_STYLE,
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

_MAX_TESTS_SHOWN = 15


def render_text(report: Report) -> RenderableType:
    """The whole report for a terminal. Log text is never parsed as rich markup."""
    parts: list[RenderableType] = [Text(headline(report), style="bold")]
    if report.context is not None:
        parts.append(_context_panel(report, report.context))
    sections = job_sections(report)
    if sections:  # several CI jobs: their tests apart, job by job
        for section in sections:
            parts.append(_job_rule(section))
            parts.extend(_group_panel(group, list(members)) for group, members in section.groups)
    else:
        by_uuid = report.verdict_by_uuid()
        parts.extend(
            _group_panel(group, [by_uuid[uuid] for uuid in group.test_uuids]) for group in report.groups
        )
    if report.problems:
        problems = Text()
        for problem in report.problems:
            problems.append(
                f"{problem.severity}: ", style="bold red" if problem.severity == "error" else "bold yellow"
            )
            problems.append(f"{problem.object}: {problem.message}\n")
            if problem.hint:
                problems.append(f"  hint: {problem.hint}\n", style="dim")
        problems.rstrip()
        parts.append(
            Panel(
                problems,
                title=f"Problems ({len(report.problems)})",
                title_align="left",
                border_style="yellow",
            )
        )
    return RichGroup(*parts)


def _group_panel(group: Group, members: list[Verdict]) -> Panel:
    return _cause_panel(members) if group.kind == "cause" else _unexplained_panel(group.title, members)


def _context_panel(report: Report, context: RunContext) -> Panel:
    """Where the report came from: repository, workflow, run, commit, and each job with its inputs."""
    body = Text()
    rows = [
        ("repository", context.repository),
        ("workflow", _workflow(context)),
        ("run", f"{context.run_url or context.run_id} (attempt {context.run_attempt})"),
        ("commit", short_sha(context.head_sha) + (f" on {context.branch}" if context.branch else "")),
    ]
    for name, value in rows:
        if value.strip():
            body.append(f"{name:<11}", style="dim")
            body.append(value + "\n")
    for job in context.jobs:
        body.append(f"{'job':<11}", style="dim")
        body.append(job.name or str(job.job_id), style="bold")
        body.append(f" — {job.conclusion or 'running'}")
        if job.failed_steps:
            body.append(f", failed step: {', '.join(job.failed_steps)}")
        body.append("\n")
        lines = [job.url] if job.url else []
        if job.runner_name or job.runner_labels:
            labels = f" ({', '.join(job.runner_labels)})" if job.runner_labels else ""
            lines.append(f"runner {job.runner_name or '?'}{labels}")
        lines.extend(input_description(item) for item in job_inputs(report, job))
        for line in lines:
            body.append(" " * 11 + line + "\n")
    body.rstrip()
    provider = "GitHub Actions" if context.provider == "github" else context.provider
    return Panel(body, title=f"{provider} run {context.run_id}", title_align="left", border_style="blue")


def _workflow(context: RunContext) -> str:
    details = [part for part in (context.workflow_path, context.event) if part]
    return context.workflow + (f" ({', '.join(details)})" if details else "")


def _job_rule(section: JobSection) -> Rule:
    job = section.job
    name = (job.name or f"job {job.job_id}") if job is not None else "not from a job of this run"
    count = f"{plural(section.failing, 'failing test')}, {section.explained} explained"
    title = Text(f"{name} — {count}" if section.failing else f"{name} — no failing tests", style="bold")
    return Rule(title, align="left", style="blue")


def _tests(members: list[Verdict]) -> Text:
    text = Text()
    for verdict in members[:_MAX_TESTS_SHOWN]:
        text.append("  • ")
        text.append(verdict.test.name, style="bold")
        text.append(f" ({verdict.test.status.value}")
        if verdict.test.retries:
            text.append(f", retried {verdict.test.retries}×")
        text.append(")")
        tickets = tickets_of(verdict)
        if tickets:
            text.append(f"  tickets: {tickets}", style="cyan")
        text.append("\n")
    if len(members) > _MAX_TESTS_SHOWN:
        text.append(f"  … and {len(members) - _MAX_TESTS_SHOWN} more\n")
    return text


def _excerpt(evidence: Evidence) -> Text:
    lines = evidence.excerpt
    width = len(str(max((line.number for line in lines), default=evidence.line)))
    text = Text()
    for line in lines or ():
        marker = ">" if line.number == evidence.line else " "
        style = "bold" if line.number == evidence.line else "dim"
        text.append(f"  {marker} {line.number:>{width}} │ ", style="dim")
        text.append(line.text + "\n", style=style)
    if not lines:
        text.append(f"  > {evidence.line} │ {evidence.text}\n", style="bold")
    return text


def _symptoms(symptoms: tuple[Finding, ...], *, explained: bool) -> Text:
    text = Text()
    if symptoms:
        text.append("Symptoms it explains:\n" if explained else "Symptoms seen:\n", style="bold")
        for symptom in symptoms:
            text.append(f"  • {symptom.title} ({evidence_place(symptom)})\n")
    return text


def _cause_panel(members: list[Verdict]) -> Panel:
    first = members[0].root_cause
    assert first is not None
    body = Text()
    body.append(f"{first.category.value}", style=CATEGORY_STYLE.get(first.category.value, ""))
    body.append(f" · rule {first.rule_id}\n\n", style="dim")
    for summary, sharing in distinct_summaries(members):
        if len(sharing) != len(members):
            body.append(f"({len(sharing)} of {len(members)}) ", style="dim")
        body.append(summary + "\n")
    body.append("\nTests:\n", style="bold")
    body.append_text(_tests(members))
    body.append(f"\nEvidence ({evidence_place(first)}):\n", style="bold")
    body.append_text(_excerpt(first.evidence))
    symptoms = _symptoms(members[0].symptoms, explained=True)
    if symptoms:
        body.append("\n")
        body.append_text(symptoms)
    if first.advice:
        body.append("\nAdvice: ", style="bold green")
        body.append(first.advice + "\n")
    body.rstrip()
    count = len(members)
    return Panel(
        body,
        title=f"{first.title} — {plural(count, 'test')}",
        title_align="left",
        border_style="red",
    )


def _unexplained_panel(title: str, members: list[Verdict]) -> Panel:
    first = members[0]
    body = Text()
    if first.fingerprint is not None:
        body.append(f"fingerprint {first.fingerprint.key}: ", style="dim")
        body.append(title + "\n\n")
    body.append("Tests:\n", style="bold")
    body.append_text(_tests(members))
    fingerprint = first.fingerprint
    likely = first.likely_cause
    if likely is not None:
        body.append(
            f"\n{LIKELY_CAUSE_LABEL}: {likely.reason} ({likely.evidence.attachment} line {likely.evidence.line}):\n",
            style="bold",
        )
        body.append_text(_excerpt(likely.evidence))
    if (
        fingerprint is not None
        and fingerprint.evidence is not None
        and not shows_same_line(likely, fingerprint)
    ):
        body.append(
            f"\nLast error line ({fingerprint.evidence.attachment} line {fingerprint.evidence.line}):\n",
            style="bold",
        )
        body.append_text(_excerpt(fingerprint.evidence))
    symptoms = _symptoms(first.symptoms, explained=False)
    if symptoms:
        body.append("\n")
        body.append_text(symptoms)
    body.rstrip()
    count = len(members)
    return Panel(
        body,
        title=f"Unexplained — {plural(count, 'test')}",
        title_align="left",
        border_style="yellow",
    )
