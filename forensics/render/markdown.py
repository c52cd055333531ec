"""Markdown for job summaries and ticket comments: safe fences, bounded size."""

from __future__ import annotations

import regex

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
from forensics.render.escape import defuse_workflow_commands

DEFAULT_MAX_CHARS = 60_000  # GitHub caps comments and step summaries near 65,536 characters
_BACKTICKS = regex.compile(r"`+")
_MARKDOWN_SPECIAL = regex.compile(r"([\\`*_\[\]<>|#])")
# In prose from logs and results: what could start markup (HTML, links, images, emphasis, tables, headings)
# (an underscore only where it could open or close emphasis: `HF_HUB_OFFLINE` stays as written)
_PROSE_SPECIAL = regex.compile(r"([\\`*\[\]<>|#]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9]))")
_LINE_BREAKS = regex.compile(r"\s*[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]\s*")
_MAX_TESTS_LISTED = 20


def fence_for(text: str) -> str:
    """A backtick fence longer than any backtick run inside the text, so a log cannot close it early."""
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    return "`" * max(3, longest + 1)


def inline_code(text: str) -> str:
    """Inline code that survives backticks and line breaks in the text (a blank line would end it)."""
    text = _LINE_BREAKS.sub(" ", text)
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    ticks = "`" * (longest + 1)
    padding = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{padding}{text}{padding}{ticks}"


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


def render_markdown(report: Report, *, max_chars: int = DEFAULT_MAX_CHARS) -> str:
    """The whole report as Markdown, cut at whole sections to stay under `max_chars`."""
    by_uuid = report.verdict_by_uuid()
    head = f"## ci-forensics: {headline(report)}\n"
    if report.context is not None:
        head += "\n" + _context_block(report, report.context)
    sections: list[str] = []
    per_job = job_sections(report)
    if per_job:  # several CI jobs: their tests apart, job by job
        for job_section in per_job:
            sections.append(_job_heading(job_section))
            sections.extend(
                _group_section(group, list(members), level=4) for group, members in job_section.groups
            )
    else:
        sections.extend(
            _group_section(group, [by_uuid[uuid] for uuid in group.test_uuids], level=3)
            for group in report.groups
        )
    if report.problems:
        lines = ["### Problems", ""]
        for problem in report.problems:
            hint = f" — hint: {prose(problem.hint)}" if problem.hint else ""
            lines.append(
                f"- **{problem.severity}** {inline_code(problem.object)}: {prose(problem.message)}{hint}"
            )
        sections.append("\n".join(lines) + "\n")
    out = [head]
    used = len(head)
    for index, section in enumerate(sections):
        if used + len(section) + 200 > max_chars:
            out.append(
                f"\n_… {len(sections) - index} more section(s) left out to stay under {max_chars} characters; "
                "see the JSON report._\n"
            )
            break
        out.append(section)
        used += len(section)
    return defuse_workflow_commands("\n".join(out))


def prose(text: str) -> str:
    """Text from a log or a result (a summary's values, a message, a step name) inside a Markdown sentence:
    one line, and nothing in it starts markup."""
    return _PROSE_SPECIAL.sub(r"\\\1", " ".join(text.split()))


def plain(text: str) -> str:
    """Text from elsewhere (a job or workflow name) shown as itself, not as Markdown."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", " ".join(text.split()))


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


def _group_section(group: Group, members: list[Verdict], *, level: int) -> str:
    if group.kind == "cause":
        return _cause_section(members, level=level)
    return _unexplained_section(group.title, members, level=level)


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


def _cause_section(members: list[Verdict], *, level: int) -> str:
    first = members[0].root_cause
    assert first is not None
    count = len(members)
    lines = [
        f"{'#' * level} {first.title} — {plural(count, 'test')}",
        "",
        f"**Category:** {first.category.value} · **Rule:** {inline_code(first.rule_id)}",
        "",
    ]
    for summary, sharing in distinct_summaries(members):
        prefix = "" if len(sharing) == count else f"({len(sharing)} of {count}) "
        lines.append(f"{prefix}{prose(summary)}")
        lines.append("")
    lines.append("**Tests**")
    lines.extend(_test_lines(members))
    lines.extend(
        ["", f"**Evidence** ({prose(evidence_place(first))}, test {inline_code(members[0].test.name)})", ""]
    )
    lines.append(excerpt_block(first.evidence))
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


def _unexplained_section(title: str, members: list[Verdict], *, level: int) -> str:
    count = len(members)
    first = members[0]
    fingerprint = first.fingerprint
    lines = [f"{'#' * level} Unexplained — {plural(count, 'test')}", ""]
    if fingerprint is not None:
        lines.append(f"**Fingerprint** {inline_code(fingerprint.key)}: {inline_code(title)}")
        lines.append("")
    lines.append("**Tests**")
    lines.extend(_test_lines(members))
    likely = first.likely_cause
    if likely is not None:
        place = f"{likely.evidence.attachment} line {likely.evidence.line}"
        lines.extend(["", f"**{LIKELY_CAUSE_LABEL}:** {likely.reason} ({place})", ""])
        lines.append(excerpt_block(likely.evidence))
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
        lines.append(excerpt_block(fingerprint.evidence))
    symptoms = _symptom_line(None, first.symptoms)
    if symptoms:
        lines.extend(["", symptoms])
    return "\n".join(lines) + "\n"
