"""Wording shared by every human-readable format, so text, Markdown and annotations say the same thing."""

from __future__ import annotations

from dataclasses import dataclass

from forensics.model import LEARNED_WORDS, Finding, FoundBy, Group, InputInfo, JobContext, Report, Verdict

CATEGORY_STYLE = {  # rich styles of a root cause's category, in the text report and in `history`
    "infrastructure": "magenta",
    "dependency": "yellow",
    "product": "red",
    "test": "cyan",
    "external-service": "blue",
}


def plural(count: int, noun: str) -> str:
    """`1 test`, `3 tests`."""
    return f"{count} {noun}{'' if count == 1 else 's'}"


def headline(report: Report) -> str:
    """`7 failing tests: 6 explained (86%), 1 unexplained` (or that nothing failed, or nothing was read)."""
    failing = len(report.failing)
    total = len(report.verdicts)
    if total == 0 and report.inputs:  # never a quiet "no failing tests" when nothing could be read
        return f"nothing could be read: no test in {plural(len(report.inputs), 'input')} (see the problems)"
    if failing == 0:
        return f"no failing tests ({plural(total, 'test')} read)"
    explained = report.explained_count
    share = round(100 * explained / failing)
    noun = "test" if failing == 1 else "tests"
    return (
        f"{failing} failing {noun}: {explained} explained ({share}%), {report.unexplained_count} unexplained"
    )


def explained_share(report: Report) -> float | None:
    """Explained failing tests as a fraction, None when nothing failed."""
    failing = len(report.failing)
    return round(report.explained_count / failing, 4) if failing else None


def distinct_summaries(members: list[Verdict]) -> list[tuple[str, list[Verdict]]]:
    """The root-cause summaries of a group, each with the tests that share it (numbers may differ per test)."""
    by_summary: dict[str, list[Verdict]] = {}
    for verdict in members:
        if verdict.root_cause is not None:
            by_summary.setdefault(verdict.root_cause.summary, []).append(verdict)
    return list(by_summary.items())


def evidence_place(finding: Finding) -> str:
    """`bash.log.txt line 212, fixture 'x' (teardown)`; a fatal-line rule's or the learned model's cause adds how it
    was found (`…; fatal-line family rule on the likely-cause line`), the model's also the words that decided it."""
    evidence = finding.evidence
    place = f"{evidence.attachment} line {evidence.line}"
    if evidence.location and evidence.location not in ("result", "file"):
        place += f", {evidence.location}"
    if finding.found_by is not FoundBy.SCAN:
        place += f"; {finding.found_by}"
    return place + learned_words(finding)


def learned_words(finding: Finding) -> str:
    """` (words: illegal, memory access)` for a learned family model's finding: the words that decided it."""
    words = dict(finding.fields).get(LEARNED_WORDS) if finding.found_by is FoundBy.LEARNED else None
    return f" (words: {words})" if words else ""


def tickets_of(verdict: Verdict) -> str:
    """The test's ticket keys, comma separated."""
    return ", ".join(ticket.key for ticket in verdict.test.tickets)


@dataclass(frozen=True, slots=True)
class JobSection:
    """The failing tests of one CI job, as the report's groups restricted to that job."""

    job: JobContext | None  # None: tests that came from no job of the run (e.g. an unclaimed artifact)
    groups: tuple[tuple[Group, tuple[Verdict, ...]], ...]

    @property
    def failing(self) -> int:
        """How many failing tests the job has."""
        return sum(len(members) for _, members in self.groups)

    @property
    def explained(self) -> int:
        """How many of them a cause rule explained."""
        return sum(1 for _, members in self.groups for verdict in members if verdict.explained)


def job_sections(report: Report) -> list[JobSection]:
    """Failing tests per CI job when the report covers several jobs (in the run's job order); else []."""
    if report.context is None or len(report.context.jobs) < 2:
        return []
    job_of_label = {item.label: item.job_id for item in report.inputs}
    known = {job.job_id for job in report.context.jobs}
    by_uuid = report.verdict_by_uuid()

    def section_of(verdict: Verdict) -> int | None:
        job_id = job_of_label.get(verdict.test.input_label)
        return job_id if job_id in known else None

    sections = []
    for job in (*report.context.jobs, None):
        key = job.job_id if job is not None else None
        groups = []
        for group in report.groups:
            members = tuple(
                verdict
                for verdict in (by_uuid[uuid] for uuid in group.test_uuids)
                if section_of(verdict) == key
            )
            if members:
                groups.append((group, members))
        if job is not None or groups:
            sections.append(JobSection(job=job, groups=tuple(groups)))
    return sections


def job_inputs(report: Report, job: JobContext) -> list[InputInfo]:
    """The inputs (artifacts, job log) that came from one job."""
    return [item for item in report.inputs if item.job_id == job.job_id]


def input_description(item: InputInfo) -> str:
    """`allure-results-… (stage pre_merge_gpu, 7 tests)` or `job log (no allure artifact)`."""
    if item.kind == "log" and not item.artifact:
        return "job log (no usable allure artifact)"
    details = [f"stage {item.stage}"] if item.stage else []
    details.append(plural(item.tests, "test"))
    return f"{item.artifact or item.label} ({', '.join(details)})"


def short_sha(sha: str) -> str:
    """The first 12 characters of a commit id."""
    return sha[:12]
