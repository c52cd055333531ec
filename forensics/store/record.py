"""Write a report into the store: one transaction, natural keys, `ON CONFLICT DO NOTHING` — so recording the
same run twice (or two jobs of one run at once) changes nothing that is already there.

Only new rows are written: a job already recorded keeps its facts, a test already recorded keeps its root
cause and evidence; `reanalyze --apply` is the one way stored verdicts change.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from forensics.model import Evidence, Report
from forensics.report.redact import Redactor, redact_report
from forensics.store.base import Store
from forensics.store.recording import (
    EvidenceLog,
    FindingRecord,
    JobRecord,
    Recording,
    TestRecord,
    recording_of,
)
from forensics.store.runs import LOCAL_PROVIDER, RunRecord
from forensics.version import __version__


@dataclass(frozen=True, slots=True)
class RecordResult:
    """What one recording added (all zeros when the run was already there)."""

    run: str  # "github owner/name run 123 attempt 1" or "local run 8c1e…"
    new_run: bool
    jobs: int
    tests: int
    failing: int


def record_report(
    store: Store,
    report: Report,
    *,
    redactor: Redactor | None = None,
    now: datetime | None = None,
) -> RecordResult:
    """Record a report with the evidence windows and GPU facts it carries; no input is read again."""
    redactor = redactor or Redactor()
    report = redact_report(report, redactor)  # rows outlive the run and are read by every dashboard
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
