"""Markdown for job summaries and ticket comments: safe fences, bounded size."""

from __future__ import annotations

import regex

from forensics.model import Evidence, Finding, Report, Verdict
from forensics.render.common import distinct_summaries, evidence_place, headline, plural, tickets_of

DEFAULT_MAX_CHARS = 60_000  # GitHub caps comments and step summaries near 65,536 characters
_BACKTICKS = regex.compile(r"`+")
_MAX_TESTS_LISTED = 20


def fence_for(text: str) -> str:
    """A backtick fence longer than any backtick run inside the text, so a log cannot close it early."""
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    return "`" * max(3, longest + 1)


def inline_code(text: str) -> str:
    """Inline code that survives backticks in the text."""
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
    sections: list[str] = []
    for group in report.groups:
        members = [by_uuid[uuid] for uuid in group.test_uuids]
        sections.append(
            _cause_section(members) if group.kind == "cause" else _unexplained_section(group.title, members)
        )
    if report.problems:
        lines = ["### Problems", ""]
        for problem in report.problems:
            hint = f" — hint: {problem.hint}" if problem.hint else ""
            lines.append(f"- **{problem.severity}** {inline_code(problem.object)}: {problem.message}{hint}")
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
    return "\n".join(out)


def _test_lines(members: list[Verdict]) -> list[str]:
    lines = []
    for verdict in members[:_MAX_TESTS_LISTED]:
        tickets = tickets_of(verdict)
        extra = f" — tickets: {tickets}" if tickets else ""
        retried = f", retried {verdict.test.retries}×" if verdict.test.retries else ""
        lines.append(f"- {inline_code(verdict.test.name)} ({verdict.test.status.value}{retried}){extra}")
    if len(members) > _MAX_TESTS_LISTED:
        lines.append(f"- … and {len(members) - _MAX_TESTS_LISTED} more")
    return lines


def _cause_section(members: list[Verdict]) -> str:
    first = members[0].root_cause
    assert first is not None
    count = len(members)
    lines = [
        f"### {first.title} — {plural(count, 'test')}",
        "",
        f"**Category:** {first.category.value} · **Rule:** {inline_code(first.rule_id)}",
        "",
    ]
    for summary, sharing in distinct_summaries(members):
        prefix = "" if len(sharing) == count else f"({len(sharing)} of {count}) "
        lines.append(f"{prefix}{summary}")
        lines.append("")
    lines.append("**Tests**")
    lines.extend(_test_lines(members))
    lines.extend(
        ["", f"**Evidence** ({evidence_place(first)}, test {inline_code(members[0].test.name)})", ""]
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
    parts = [f"{symptom.title} ({evidence_place(symptom)})" for symptom in symptoms]
    label = "**Symptoms it explains:**" if cause else "**Symptoms seen:**"
    return f"{label} " + "; ".join(parts)


def _unexplained_section(title: str, members: list[Verdict]) -> str:
    count = len(members)
    first = members[0]
    fingerprint = first.fingerprint
    lines = [f"### Unexplained — {plural(count, 'test')}", ""]
    if fingerprint is not None:
        lines.append(f"**Fingerprint** {inline_code(fingerprint.key)}: {inline_code(title)}")
        lines.append("")
    lines.append("**Tests**")
    lines.extend(_test_lines(members))
    if fingerprint is not None and fingerprint.evidence is not None:
        lines.extend(
            [
                "",
                f"**Last error line** ({fingerprint.evidence.attachment} line {fingerprint.evidence.line})",
                "",
            ]
        )
        lines.append(excerpt_block(fingerprint.evidence))
    symptoms = _symptom_line(None, first.symptoms)
    if symptoms:
        lines.extend(["", symptoms])
    return "\n".join(lines) + "\n"
