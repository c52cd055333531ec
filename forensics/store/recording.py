"""A report turned into what the store keeps: one run, its jobs with what they ran on, every test outcome.

Each row has a natural key, so recording the same run again adds nothing: a run is (provider, repository,
run id, attempt), a job is its CI job id within the run (0 for inputs no CI job is known for), a test is its
Allure `historyId` within the job (else its full name, else its name).
A local analysis has no CI run: `runs.run_record` derives one for it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import UTC, datetime

from forensics.model import (
    LIKELY_CAUSE_LABEL,
    Evidence,
    GroupKind,
    InputInfo,
    JobContext,
    Report,
    Status,
    Value,
    Verdict,
)
from forensics.store.environment import GPU_DIMENSIONS, GPU_MODEL, Fact, label_gpu_model, runner_facts
from forensics.store.runs import RunRecord, run_record

MAX_MESSAGE_CHARS = 8000


@dataclass(frozen=True, slots=True)
class EvidenceLog:
    """A failing test's evidence window (cut by `analyze`), and where its whole log was."""

    test_uuid: str  # the execution's Allure uuid: tells whether the artifact at input_path is still this run
    input_path: str
    input_identity: str  # what input_path held (report/identity.py): `reanalyze` rereads it only while equal
    input_label: str
    source: str
    attachment: str
    location: str
    first_line: int  # number of the text's first line in the original log (0 when there is no text)
    text: str
    message: str  # the test's status message and trace


@dataclass(frozen=True, slots=True)
class JobRecord:
    """A job that produced tests, and what it ran on."""

    job_id: int
    name: str
    url: str
    conclusion: str
    runner_name: str
    runner_labels: tuple[str, ...]
    started_at: str
    completed_at: str
    facts: tuple[Fact, ...]


@dataclass(frozen=True, slots=True)
class FindingRecord:
    """A failing test's root cause, or its fingerprint when no rule explained it."""

    kind: GroupKind
    key: str  # rule id or fingerprint key
    title: str
    category: str
    summary: str
    advice: str
    fields: tuple[tuple[str, Value], ...]
    tickets: tuple[tuple[str, str], ...]  # (key, url)
    symptoms: tuple[str, ...]
    evidence: Evidence | None
    masked: str


@dataclass(frozen=True, slots=True)
class TestRecord:
    """One test outcome."""

    __test__ = False  # not a pytest class

    job_id: int
    test_key: str
    name: str
    full_name: str
    status: Status
    retries: int
    previous_statuses: tuple[Status, ...]
    finding: FindingRecord | None
    log: EvidenceLog | None


@dataclass(frozen=True, slots=True)
class Recording:
    """Everything one `record` call writes."""

    run: RunRecord
    jobs: tuple[JobRecord, ...]
    tests: tuple[TestRecord, ...]


def recording_of(report: Report, *, now: datetime | None = None) -> Recording:
    """The rows for a report, with the evidence windows and GPU facts it carries (nothing is read again)."""
    inputs = {item.label: item for item in report.inputs}
    job_ids = {item.label: item.job_id or 0 for item in report.inputs}
    tests: list[TestRecord] = []
    keys: set[tuple[int, str]] = set()
    for verdict in report.verdicts:
        job_id = job_ids.get(verdict.test.input_label, 0)
        key = _unique_key(stable_test_key(verdict), job_id, keys)
        tests.append(
            TestRecord(
                job_id=job_id,
                test_key=key,
                name=verdict.test.name,
                full_name=verdict.test.full_name,
                status=verdict.test.status,
                retries=verdict.test.retries,
                previous_statuses=verdict.test.previous_statuses,
                finding=finding_of(verdict) if verdict.test.status.is_failing else None,
                log=_evidence_log(verdict, inputs.get(verdict.test.input_label))
                if verdict.test.status.is_failing
                else None,
            )
        )
    jobs = _jobs(report, {test.job_id for test in tests})
    return Recording(run=run_record(report, now or datetime.now(UTC)), jobs=jobs, tests=tuple(tests))


def _evidence_log(verdict: Verdict, info: InputInfo | None) -> EvidenceLog | None:
    """The row of a failing test's window; None when the report carries none (one saved before schema 1.3)."""
    window = verdict.window
    if window is None or info is None:
        return None
    test = verdict.test
    return EvidenceLog(
        test_uuid=test.uuid,
        input_path=info.path if info.kind == "stdin" else os.path.abspath(info.path),  # any later cwd
        input_identity=info.identity,
        input_label=info.label,
        source=window.source,
        attachment=window.attachment,
        location=window.location,
        first_line=window.first_line,
        text=window.text,
        message="\n".join(part for part in (test.message, test.trace) if part)[:MAX_MESSAGE_CHARS],
    )


def _jobs(report: Report, job_ids: set[int]) -> tuple[JobRecord, ...]:
    contexts = {job.job_id: job for job in (report.context.jobs if report.context else ())}
    gpu_by_job: dict[int, dict[str, str]] = {}
    for item in report.inputs:
        for dimension, value in item.environment.facts():
            gpu_by_job.setdefault(item.job_id or 0, {}).setdefault(dimension.value, value)
    jobs = []
    for job_id in sorted(job_ids):
        context = contexts.get(job_id)
        gpu = gpu_by_job.get(job_id, {})
        label_model = label_gpu_model(context)
        if GPU_MODEL not in gpu and label_model:
            gpu[GPU_MODEL] = label_model
        facts = (*runner_facts(context), *((d, gpu[d]) for d in GPU_DIMENSIONS if d in gpu))
        jobs.append(_job_record(job_id, context, facts))
    return tuple(jobs)


def _job_record(job_id: int, context: JobContext | None, facts: tuple[Fact, ...]) -> JobRecord:
    return JobRecord(
        job_id=job_id,
        name=context.name if context else "",
        url=context.url if context else "",
        conclusion=context.conclusion if context else "",
        runner_name=context.runner_name if context else "",
        runner_labels=context.runner_labels if context else (),
        started_at=context.started_at if context else "",
        completed_at=context.completed_at if context else "",
        facts=facts,
    )


def finding_of(verdict: Verdict) -> FindingRecord | None:
    """A failing test's root cause, or its fingerprint; None when it has neither."""
    test_tickets = tuple((ticket.key, ticket.url) for ticket in verdict.test.tickets)
    symptoms = tuple(symptom.rule_id for symptom in verdict.symptoms)
    cause = verdict.root_cause
    if cause is not None:
        rule_tickets = tuple((key, "") for key in cause.tickets)
        return FindingRecord(
            kind="cause",
            key=cause.rule_id,
            title=cause.title,
            category=cause.category.value,
            summary=cause.summary,
            advice=cause.advice,
            fields=cause.fields,
            tickets=tuple(dict.fromkeys((*test_tickets, *rule_tickets))),
            symptoms=symptoms,
            evidence=cause.evidence,
            masked="",
        )
    fingerprint = verdict.fingerprint
    if fingerprint is None:
        return None
    # The dashboard and `reanalyze` read the stored evidence: the likely cause, where one was found, is the
    # line a person looks at first (and where a later rule is most likely to find its proof).
    likely = verdict.likely_cause
    return FindingRecord(
        kind="unexplained",
        key=fingerprint.key,
        title=fingerprint.masked,
        category="",
        summary=(
            f"Unexplained — {LIKELY_CAUSE_LABEL.lower()}, {likely.reason}: {likely.evidence.text}"
            if likely is not None
            else fingerprint.line
        ),
        advice="",
        fields=(),
        tickets=test_tickets,
        symptoms=symptoms,
        evidence=likely.evidence if likely is not None else fingerprint.evidence,
        masked=fingerprint.masked,
    )


def stable_test_key(verdict: Verdict) -> str:
    """A test's identity across runs: Allure's historyId, else its full name and name."""
    test = verdict.test
    return test.history_id or (f"{test.full_name}::{test.name}" if test.full_name else test.name)


def _unique_key(key: str, job_id: int, seen: set[tuple[int, str]]) -> str:
    """The same test twice in one job (two stages' artifacts): the second gets `#2`, deterministically."""
    candidate, number = key, 1
    while (job_id, candidate) in seen:
        number += 1
        candidate = f"{key}#{number}"
    seen.add((job_id, candidate))
    return candidate
