"""The store's one writer: a finished Report becomes rows (one run, its jobs with what they ran on, every
test outcome, the evidence the report carries) in one transaction; no input is read again.

Each row has a natural key, so recording the same run again adds nothing: a run is (provider, repository,
run id, attempt), a job is its CI job id within the run (0 for inputs no CI job is known for), a test is its
Allure `historyId` within the job (else its full name, else its name). A local analysis has no CI run:
`runs.run_record` derives one for it. Rows are inserted with `ON CONFLICT DO NOTHING` — recording the same
run twice (or two jobs of one run at once) changes nothing that is already there. A job already recorded
keeps its facts, a test already recorded keeps its root cause and evidence; `reanalyze --apply` is the one
way stored verdicts change.

Which run a report is: its CI run attempt, or — for a local analysis, which has no CI run — provider
`local` with a run id derived from what it read (the Allure uuids of its tests, and for plain logs their
input's content identity, else their path, plus what the report found in them), so recording the same
analysis twice is still one run. Its time is its earliest test start, else the time of recording.

The writer stores text as the report carries it: only a report that `redact_report` made (`report.redacted`)
is recorded, so redacting is its caller's job (`analyze` does it, and the follow-up again with the run's
secrets); a report that never passed a redactor is refused.
"""

from __future__ import annotations

import hashlib
import json
import os.path
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

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
from forensics.store.base import Store
from forensics.store.environment import GPU_DIMENSIONS, GPU_MODEL, Fact, label_gpu_model, runner_facts
from forensics.values import MAX_EPOCH_MS, MIN_EPOCH_MS, epoch_seconds_in_range
from forensics.version import __version__

LOCAL_PROVIDER = "local"


@dataclass(frozen=True, slots=True)
class RunRecord:
    """The run attempt a report covers."""

    provider: str
    repository: str
    run_id: int
    run_attempt: int
    workflow: str
    workflow_path: str
    branch: str
    event: str
    head_sha: str
    run_url: str
    at: int  # seconds since the epoch, UTC
    rules_loaded: int


def run_record(report: Report, now: datetime) -> RunRecord:
    """The run a report covers: its CI context, or a local run keyed by what it read."""
    context = report.context
    if context is not None:
        return RunRecord(
            provider=context.provider,
            repository=context.repository,
            run_id=context.run_id,
            run_attempt=context.run_attempt,
            workflow=context.workflow,
            workflow_path=context.workflow_path,
            branch=context.branch,
            event=context.event,
            head_sha=context.head_sha,
            run_url=context.run_url,
            at=_epoch(context.created_at) or _earliest_start(report) or int(now.timestamp()),
            rules_loaded=report.rules_loaded,
        )
    return RunRecord(
        provider=LOCAL_PROVIDER,
        repository="",
        run_id=local_run_id(report),
        run_attempt=1,
        workflow="",
        workflow_path="",
        branch="",
        event="",
        head_sha="",
        run_url="",
        at=_earliest_start(report) or int(now.timestamp()),
        rules_loaded=report.rules_loaded,
    )


def local_run_id(report: Report) -> int:
    """A stable 60-bit id for a local analysis, from the executions it read (see the module docstring)."""
    digest = hashlib.sha256()
    identities = {item.label: item.identity for item in report.inputs}
    for verdict in sorted(report.verdicts, key=lambda v: v.test.uuid):
        digest.update(verdict.test.uuid.encode() + b"\0")
        if verdict.test.origin == "log":
            identity = identities.get(verdict.test.input_label) or verdict.test.full_name  # "": stdin
            digest.update(identity.encode() + b"\0")
            evidence = verdict.root_cause.evidence if verdict.root_cause else None
            line = verdict.fingerprint.line if verdict.fingerprint else ""
            digest.update(
                f"{evidence.line if evidence else 0}\0{evidence.text if evidence else line}".encode()
            )
    return int(digest.hexdigest()[:15], 16)


def _earliest_start(report: Report) -> int | None:
    """The earliest test start a date can hold (a library caller's Report may carry any number)."""
    starts = [
        v.test.start
        for v in report.verdicts
        if isinstance(v.test.start, int) and MIN_EPOCH_MS < v.test.start <= MAX_EPOCH_MS
    ]
    return min(starts) // 1000 if starts else None


def _epoch(iso: str) -> int | None:
    if not iso:
        return None
    try:
        moment = datetime.fromisoformat(iso)
        seconds = int((moment if moment.tzinfo else moment.replace(tzinfo=UTC)).timestamp())
    except (ValueError, OverflowError):
        return None
    return seconds if epoch_seconds_in_range(seconds) else None


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


@dataclass(frozen=True, slots=True)
class RecordResult:
    """What one recording added (all zeros when the run was already there)."""

    run: str  # "github owner/name run 123 attempt 1" or "local run 8c1e…"
    new_run: bool
    jobs: int
    tests: int
    failing: int


def record_report(store: Store, report: Report, *, now: datetime | None = None) -> RecordResult:
    """Record a redacted report with the evidence windows and GPU facts it carries; no input is read again.

    Rows outlive the run and are read by every dashboard: a report that never passed `redact_report` is a
    caller's bug, refused with ValueError before anything is written.
    """
    if not report.redacted:
        raise ValueError("record_report takes a redacted report: pass it through redact_report first")
    return record(store, recording_of(report, now=now), now=now)


def record(store: Store, recording: Recording, *, now: datetime | None = None) -> RecordResult:
    """Write the recording's new rows in one transaction."""
    run = recording.run
    recorded_at = int((now or datetime.now(UTC)).timestamp())
    with store.transaction():
        store.execute(
            "INSERT INTO runs (provider, repository, run_id, run_attempt, workflow, workflow_path, branch, event,"
            " head_sha, run_url, at, recorded_at, tool_version, rules_loaded)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT (provider, repository, run_id, run_attempt) DO NOTHING",
            _run_row(run, recorded_at),
        )
        run_pk = store.scalar(
            "SELECT id FROM runs WHERE provider = ? AND repository = ? AND run_id = ? AND run_attempt = ?",
            (run.provider, run.repository, run.run_id, run.run_attempt),
        )
        known_jobs = {job_id for (job_id,) in store.query("SELECT job_id FROM jobs WHERE run = ?", (run_pk,))}
        new_run = not known_jobs and not store.query("SELECT 1 FROM tests WHERE run = ? LIMIT 1", (run_pk,))
        new_jobs = [job for job in recording.jobs if job.job_id not in known_jobs]
        store.execute_many(
            "INSERT INTO jobs (run, job_id, name, url, conclusion, runner_name, runner_labels, started_at,"
            " completed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (run, job_id) DO NOTHING",
            [_job_row(run_pk, job) for job in new_jobs],
        )
        job_pks = {
            int(job_id): pk
            for job_id, pk in store.query("SELECT job_id, id FROM jobs WHERE run = ?", (run_pk,))
        }
        store.execute_many(
            "INSERT INTO job_facts (job, dimension, value) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
            [(job_pks[job.job_id], dimension, value) for job in new_jobs for dimension, value in job.facts],
        )
        known_tests = {
            (job, key) for job, key in store.query("SELECT job, test_key FROM tests WHERE run = ?", (run_pk,))
        }
        new_tests = [t for t in recording.tests if (job_pks[t.job_id], t.test_key) not in known_tests]
        store.execute_many(
            "INSERT INTO tests (run, job, test_key, name, full_name, status, failing, retries, previous_statuses,"
            " cause_kind, cause_key) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (job, test_key) DO NOTHING",
            [_test_row(run_pk, job_pks[test.job_id], test) for test in new_tests],
        )
        failing = [test for test in new_tests if test.finding is not None]
        if failing:
            test_pks = {
                (job, key): pk
                for pk, job, key in store.query(
                    "SELECT id, job, test_key FROM tests WHERE run = ? AND failing = 1", (run_pk,)
                )
            }
            pks = [test_pks[(job_pks[test.job_id], test.test_key)] for test in failing]
            store.execute_many(
                "INSERT INTO findings (test, kind, key, title, category, summary, advice, fields, tickets, symptoms,"
                " attachment, line, text, location, excerpt, masked)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (test) DO NOTHING",
                [
                    finding_row(pk, test.finding)
                    for pk, test in zip(pks, failing, strict=True)
                    if test.finding
                ],
            )
            store.execute_many(
                "INSERT INTO evidence_logs (test, test_uuid, input_path, input_identity, input_label, source,"
                " attachment, location, first_line, text, message) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
                " ON CONFLICT (test) DO NOTHING",
                [_log_row(pk, test.log) for pk, test in zip(pks, failing, strict=True) if test.log],
            )
    return RecordResult(
        run=describe_run(run),
        new_run=new_run,
        jobs=len(new_jobs),
        tests=len(new_tests),
        failing=len(failing),
    )


def rewrite_finding(store: Store, test_pk: int, finding: FindingRecord) -> None:
    """Replace one stored failing test's cause and finding (`reanalyze --apply`); its other rows stay."""
    row = finding_row(test_pk, finding)
    with store.transaction():
        store.execute(
            "UPDATE tests SET cause_kind = ?, cause_key = ? WHERE id = ?",
            (finding.kind, finding.key, test_pk),
        )
        store.execute(
            "UPDATE findings SET kind = ?, key = ?, title = ?, category = ?, summary = ?, advice = ?, fields = ?,"
            " tickets = ?, symptoms = ?, attachment = ?, line = ?, text = ?, location = ?, excerpt = ?, masked = ?"
            " WHERE test = ?",
            (*row[1:], test_pk),
        )


def describe_run(run: RunRecord) -> str:
    """`github owner/name run 123 attempt 2`, or `local run 8c1e4d…` for a local analysis."""
    if run.provider == LOCAL_PROVIDER:
        return f"local run {run.run_id:015x}"
    attempt = f" attempt {run.run_attempt}" if run.run_attempt != 1 else ""
    return f"{run.provider} {run.repository} run {run.run_id}{attempt}"


def _run_row(run: RunRecord, recorded_at: int) -> Sequence[Any]:
    return (
        run.provider,
        run.repository,
        run.run_id,
        run.run_attempt,
        run.workflow,
        run.workflow_path,
        run.branch,
        run.event,
        run.head_sha,
        run.run_url,
        run.at,
        recorded_at,
        __version__,
        run.rules_loaded,
    )


def _job_row(run_pk: int, job: JobRecord) -> Sequence[Any]:
    return (
        run_pk,
        job.job_id,
        job.name,
        job.url,
        job.conclusion,
        job.runner_name,
        json.dumps(list(job.runner_labels)),
        job.started_at,
        job.completed_at,
    )


def _test_row(run_pk: int, job_pk: int, test: TestRecord) -> Sequence[Any]:
    finding = test.finding
    return (
        run_pk,
        job_pk,
        test.test_key,
        test.name,
        test.full_name,
        test.status.value,
        1 if test.status.is_failing else 0,
        test.retries,
        json.dumps([status.value for status in test.previous_statuses]),
        finding.kind if finding else None,
        finding.key if finding else None,
    )


def finding_row(test_pk: int, finding: FindingRecord) -> Sequence[Any]:
    """The `findings` row of a failing test (also what `reanalyze --apply` writes)."""
    evidence = finding.evidence or Evidence(attachment="", line=0, text="")
    return (
        test_pk,
        finding.kind,
        finding.key,
        finding.title,
        finding.category,
        finding.summary,
        finding.advice,
        json.dumps(dict(finding.fields), ensure_ascii=False),
        json.dumps([{"key": key, "url": url} for key, url in finding.tickets], ensure_ascii=False),
        json.dumps(list(finding.symptoms)),
        evidence.attachment,
        evidence.line,
        evidence.text,
        evidence.location,
        json.dumps(
            [{"line": line.number, "text": line.text} for line in evidence.excerpt], ensure_ascii=False
        ),
        finding.masked,
    )


def _log_row(test_pk: int, log: EvidenceLog) -> Sequence[Any]:
    return (
        test_pk,
        log.test_uuid,
        log.input_path,
        log.input_identity,
        log.input_label,
        log.source,
        log.attachment,
        log.location,
        log.first_line,
        log.text,
        log.message,
    )
