"""GitHub Actions workflow commands: one annotation per root-cause group, capped as GitHub caps them.

Printed to a step's stdout, `::error title=…::…` lines become annotations on the run page. GitHub
shows at most 10 error and 10 warning annotations per step (50 per job), so the groups beyond that are
counted in one closing notice that points at the step summary. Logs are not files of the repository,
so no `file=`/`line=` properties are given.
"""

from __future__ import annotations

import regex

from forensics.engine.normalize import ANSI
from forensics.model import LIKELY_CAUSE_LABEL, Group, Problem, Report, Verdict
from forensics.render.common import distinct_summaries, evidence_place, plural

MAX_ANNOTATIONS_PER_LEVEL = 10  # GitHub shows 10 error and 10 warning annotations per step, drops the rest
_MAX_TITLE = 255  # check-run annotation titles are cut at 255 characters
# The runner cuts longer messages itself (actions/runner ExecutionContext._maxIssueMessageLength)
_MAX_MESSAGE = 4096
_MAX_LOG_TEXT = 300  # a log line quoted in an annotation
_MAX_TESTS_NAMED = 10
# Control characters other than tab, CR and LF (those three are escaped, not dropped)
_CONTROL = regex.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def escape_data(text: str) -> str:
    """An annotation message as the runner unescapes it (actions/toolkit `escapeData`).

    With CR and LF escaped the whole command stays on one line, so nothing from a log can start a
    line of its own and be read as another workflow command (`::add-mask::`, `::stop-commands::`).
    """
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A property value such as `title=` (actions/toolkit `escapeProperty`): also `:` and `,`."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def workflow_command(command: str, message: str, *, title: str = "") -> str:
    """One `::command title=…::message` line."""
    properties = f" title={escape_property(_cut(title, _MAX_TITLE))}" if title else ""
    return f"::{command}{properties}::{escape_data(_cut(message, _MAX_MESSAGE))}"


def render_github(report: Report) -> str:
    """Annotations: an error per root-cause group, a warning per unexplained group and per problem."""
    by_uuid = report.verdict_by_uuid()
    errors: list[str] = []
    warnings: list[str] = []
    for group in report.groups:
        members = [by_uuid[uuid] for uuid in group.test_uuids]
        if group.kind == "cause":
            errors.append(_cause_annotation(report, members))
        else:
            warnings.append(_unexplained_annotation(report, group, members))
    warnings.extend(_problem_annotation(problem) for problem in report.problems)
    lines = errors[:MAX_ANNOTATIONS_PER_LEVEL] + warnings[:MAX_ANNOTATIONS_PER_LEVEL]
    left_out = _left_out(report, len(errors), len(warnings))
    if left_out:
        lines.append(
            workflow_command(
                "notice",
                f"{left_out} left out here (GitHub shows at most {MAX_ANNOTATIONS_PER_LEVEL} error and "
                f"{MAX_ANNOTATIONS_PER_LEVEL} warning annotations per step): see the step summary "
                "or the JSON report.",
                title="ci-forensics: more in the step summary",
            )
        )
    return "".join(f"{line}\n" for line in lines)


def _cause_annotation(report: Report, members: list[Verdict]) -> str:
    first = members[0].root_cause
    assert first is not None
    count = len(members)
    lines = [
        f"{'' if len(sharing) == count else f'({len(sharing)} of {count}) '}{summary}"
        for summary, sharing in distinct_summaries(members)
    ]
    lines.extend(_who(report, members))
    lines.append(f"Evidence ({evidence_place(first)}): {_log_text(first.evidence.text)}")
    if first.advice:
        lines.append(f"Advice: {first.advice}")
    lines.append(f"Rule: {first.rule_id} ({first.category.value})")
    return workflow_command("error", "\n".join(lines), title=f"{first.title} ({plural(count, 'test')})")


def _unexplained_annotation(report: Report, group: Group, members: list[Verdict]) -> str:
    lines = [_log_text(group.title), *_who(report, members)]
    fingerprint = members[0].fingerprint
    likely = members[0].likely_cause
    key = f" (fingerprint {fingerprint.key})" if fingerprint is not None else ""
    if likely is not None:
        place = f"{likely.evidence.attachment} line {likely.evidence.line}"
        lines.append(
            f"No rule explains it; {LIKELY_CAUSE_LABEL.lower()}: {likely.reason} at {place}: "
            f"{_log_text(likely.evidence.text)}{key}."
        )
    elif fingerprint is not None:
        place = ""
        if fingerprint.evidence is not None:
            place = f" at {fingerprint.evidence.attachment} line {fingerprint.evidence.line}"
        lines.append(f"No rule explains it; last error line{place}{key}.")
    title = f"Unexplained failure ({plural(len(members), 'test')})"
    return workflow_command("warning", "\n".join(lines), title=title)


def _problem_annotation(problem: Problem) -> str:
    message = _log_text(problem.message) + (f"\nHint: {problem.hint}" if problem.hint else "")
    return workflow_command("warning", message, title=f"ci-forensics {problem.severity}: {problem.object}")


def _who(report: Report, members: list[Verdict]) -> list[str]:
    """`Tests: a (broken), …` and, when the report came from CI (fetch), `Jobs: vllm / Test (amd64), …`."""
    named = []
    for verdict in members[:_MAX_TESTS_NAMED]:
        retried = f", retried {verdict.test.retries}×" if verdict.test.retries else ""
        named.append(f"{verdict.test.name} ({verdict.test.status.value}{retried})")
    more = f", … and {len(members) - _MAX_TESTS_NAMED} more" if len(members) > _MAX_TESTS_NAMED else ""
    lines = [f"Tests: {', '.join(named)}{more}"]
    jobs = dict.fromkeys(job.name for job in map(report.job_of, members) if job is not None)
    if jobs:
        lines.append(f"Jobs: {', '.join(jobs)}")
    return lines


def _left_out(report: Report, errors: int, warnings: int) -> str:
    """`2 more root-cause groups, 1 more unexplained group and 3 more problems` (empty when none)."""
    unexplained = sum(1 for group in report.groups if group.kind != "cause")
    dropped_warnings = max(0, warnings - MAX_ANNOTATIONS_PER_LEVEL)
    dropped_unexplained = max(0, unexplained - MAX_ANNOTATIONS_PER_LEVEL)
    counts = [
        (max(0, errors - MAX_ANNOTATIONS_PER_LEVEL), "root-cause group"),
        (dropped_unexplained, "unexplained group"),
        (dropped_warnings - dropped_unexplained, "problem"),
    ]
    parts = [plural(count, f"more {noun}") for count, noun in counts if count]
    if len(parts) > 1:
        return f"{', '.join(parts[:-1])} and {parts[-1]}"
    return "".join(parts)


def _log_text(text: str) -> str:
    """A line from a log, without colour codes or control characters, cut to a readable length."""
    return _cut(_CONTROL.sub("", ANSI.sub("", text)), _MAX_LOG_TEXT)


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
