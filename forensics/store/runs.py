"""Which run a report is: its CI run attempt, or — for a local analysis — a run keyed by what it read.

A local analysis has no CI run. It is recorded under provider `local` with a run id derived from what it
read — the Allure uuids of its tests (unique per execution), and for plain logs their path, size and
modification time plus what the report found in them — so recording the same analysis twice is still one
run. Its time is its earliest test start, else the time of recording.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from datetime import UTC, datetime

from forensics.inputs.values import MAX_EPOCH_MS, MIN_EPOCH_MS, epoch_seconds_in_range
from forensics.model import Report

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
    for verdict in sorted(report.verdicts, key=lambda v: v.test.uuid):
        digest.update(verdict.test.uuid.encode() + b"\0")
        if verdict.test.origin == "log":
            digest.update(_file_identity(verdict.test.full_name).encode() + b"\0")
            evidence = verdict.root_cause.evidence if verdict.root_cause else None
            line = verdict.fingerprint.line if verdict.fingerprint else ""
            digest.update(
                f"{evidence.line if evidence else 0}\0{evidence.text if evidence else line}".encode()
            )
    return int(digest.hexdigest()[:15], 16)


def _file_identity(path: str) -> str:
    try:
        status = os.stat(path)
    except OSError:
        return path
    return f"{os.path.abspath(path)}\0{status.st_size}\0{status.st_mtime_ns}"


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
