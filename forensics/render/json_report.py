"""The JSON report: the versioned machine contract that the Action, dashboards and ticket comments read.

Bump SCHEMA_VERSION's minor number when adding fields, its major number when changing or removing one.
"""

from __future__ import annotations

from typing import Any

from forensics.model import (
    Evidence,
    EvidenceWindow,
    Finding,
    Fingerprint,
    JobContext,
    LikelyCause,
    Report,
    RunContext,
    Verdict,
)
from forensics.render.common import explained_share, headline
from forensics.render.escape import defuse_json_commands
from forensics.render.indented_json import dumps_indented
from forensics.version import __version__

# 1.1: structured CI context; job, stage and artifact per input. 1.2: likely_cause. 1.3: each input's identity
# and environment (GPU), each failing test's evidence_window. 1.4: two more likely_cause reasons (a failure logged
# below error level; the last line printed, when nothing reports a failure). 1.5: each finding's found_by (a
# fatal-line family rule's cause says it was found on the likely-cause line)
SCHEMA_VERSION = "1.5"


def render_json(report: Report) -> str:
    """The report as indented JSON text."""
    return defuse_json_commands(dumps_indented(report_to_dict(report))) + "\n"


def report_to_dict(report: Report) -> dict[str, Any]:
    """The report as plain JSON-ready data."""
    return {
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": "ci-forensics", "version": __version__},
        "headline": headline(report),
        "summary": {
            "tests": len(report.verdicts),
            "by_status": report.status_counts(),
            "failing": len(report.failing),
            "explained": report.explained_count,
            "unexplained": report.unexplained_count,
            "explained_share": explained_share(report),
            "groups": len(report.groups),
            "problems": len(report.problems),
            "rules_loaded": report.rules_loaded,
        },
        "context": _context(report.context) if report.context else None,
        "inputs": [
            {
                "path": item.path,
                "kind": item.kind,
                "label": item.label,
                "tests": item.tests,
                "job_id": item.job_id,
                "stage": item.stage or None,
                "artifact": item.artifact or None,
                "identity": item.identity or None,
                "environment": {
                    "gpu_model": item.environment.gpu_model or None,
                    "gpu_memory": item.environment.gpu_memory or None,
                },
            }
            for item in report.inputs
        ],
        "groups": [
            {
                "kind": group.kind,
                "key": group.key,
                "title": group.title,
                "category": group.category.value if group.category else None,
                "count": len(group.test_uuids),
                "tests": list(group.test_uuids),
            }
            for group in report.groups
        ],
        "tests": [_test(verdict) for verdict in report.verdicts],
        "problems": [
            {
                "severity": problem.severity,
                "object": problem.object,
                "message": problem.message,
                "hint": problem.hint or None,
                "test": problem.test or None,
            }
            for problem in report.problems
        ],
    }


def _test(verdict: Verdict) -> dict[str, Any]:
    test = verdict.test
    duration = test.stop - test.start if test.start is not None and test.stop is not None else None
    return {
        "id": test.uuid,
        "name": test.name,
        "full_name": test.full_name,
        "status": test.status.value,
        "message": test.message,
        "input": test.input_label,
        "origin": test.origin,
        "history_id": test.history_id or None,
        "retries": test.retries,
        "previous_statuses": [status.value for status in test.previous_statuses],
        "start": test.start,
        "stop": test.stop,
        "duration_ms": duration,
        "labels": [{"name": name, "value": value} for name, value in test.labels],
        "parameters": [{"name": name, "value": value} for name, value in test.parameters],
        "links": [{"type": link.type, "name": link.name, "url": link.url} for link in test.links],
        "tickets": [
            {"system": t.system, "key": t.key, "url": t.url or None, "origin": t.origin} for t in test.tickets
        ],
        "logs": [
            {"attachment": log.attachment, "location": log.location, "source": log.source}
            for log in test.logs
        ],
        "root_cause": _finding(verdict.root_cause) if verdict.root_cause else None,
        "symptoms": [_finding(symptom) for symptom in verdict.symptoms],
        "fingerprint": _fingerprint(verdict.fingerprint) if verdict.fingerprint else None,
        "likely_cause": _likely_cause(verdict.likely_cause) if verdict.likely_cause else None,
        "evidence_window": _window(verdict.window) if verdict.window else None,
    }


def _window(window: EvidenceWindow) -> dict[str, Any]:
    return {
        "source": window.source,
        "attachment": window.attachment,
        "location": window.location,
        "first_line": window.first_line,
        "text": window.text,
    }


def _finding(finding: Finding) -> dict[str, Any]:
    return {
        "rule": finding.rule_id,
        "title": finding.title,
        "category": finding.category.value,
        "kind": finding.kind.value,
        "summary": finding.summary,
        "advice": finding.advice,
        "fields": dict(finding.fields),
        "evidence": _evidence(finding.evidence),
        "tickets": list(finding.tickets),
        "found_by": finding.found_by.value,
    }


def _evidence(evidence: Evidence) -> dict[str, Any]:
    return {
        "attachment": evidence.attachment,
        "line": evidence.line,
        "text": evidence.text,
        "location": evidence.location,
        "source": evidence.source,
        "excerpt": [{"line": line.number, "text": line.text} for line in evidence.excerpt],
    }


def _fingerprint(fingerprint: Fingerprint) -> dict[str, Any]:
    return {
        "key": fingerprint.key,
        "masked": fingerprint.masked,
        "line": fingerprint.line,
        "evidence": _evidence(fingerprint.evidence) if fingerprint.evidence else None,
    }


def _likely_cause(likely: LikelyCause) -> dict[str, Any]:
    return {"reason": likely.reason.value, "evidence": _evidence(likely.evidence)}


def _context(context: RunContext) -> dict[str, Any]:
    return {
        "provider": context.provider,
        "repository": context.repository,
        "workflow": context.workflow,
        "workflow_path": context.workflow_path,
        "run_id": context.run_id,
        "run_attempt": context.run_attempt,
        "run_url": context.run_url,
        "head_sha": context.head_sha,
        "branch": context.branch,
        "event": context.event,
        "created_at": context.created_at,
        "jobs": [_job(job) for job in context.jobs],
    }


def _job(job: JobContext) -> dict[str, Any]:
    return {
        "id": job.job_id,
        "name": job.name,
        "url": job.url,
        "conclusion": job.conclusion,
        "runner_name": job.runner_name,
        "runner_labels": list(job.runner_labels),
        "failed_steps": list(job.failed_steps),
        "started_at": job.started_at,
        "completed_at": job.completed_at,
    }
