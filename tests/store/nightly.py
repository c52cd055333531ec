"""Give a real analysed report the CI context of one nightly run (as `fetch` would), to vary runs in tests."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime, timedelta

from forensics.model import JobContext, Report, RunContext
from forensics.report.redact import Redactor, redact_report

REPOSITORY = "acme/inference"
WORKFLOW = "Nightly CI Pipeline"
START = datetime(2026, 2, 1, 8, 0, tzinfo=UTC)
RUNNERS = {
    "A10G": ("gpu-a10g-01", ("self-hosted", "linux", "gpu")),
    "L40S": ("gpu-l40s-01", ("self-hosted", "linux", "gpu")),
}


def run_url(run_id: int) -> str:
    """The run's page on GitHub."""
    return f"https://github.com/{REPOSITORY}/actions/runs/{run_id}"


def nightly(
    report: Report,
    *,
    day: int,
    run_id: int | None = None,
    gpu: str = "A10G",
    sha: str | None = None,
    branch: str = "main",
    workflow: str = WORKFLOW,
    repository: str = REPOSITORY,
    attempt: int = 1,
    job_id: int | None = None,
    hour: int = 0,
) -> Report:
    """The report as the nightly of `day` days after START, with one job on the `gpu` runner."""
    run_id = run_id if run_id is not None else 9_000_000 + day
    job_id = job_id if job_id is not None else run_id * 10 + 1
    runner, labels = RUNNERS[gpu]
    at = START + timedelta(days=day, hours=hour)
    context = RunContext(
        provider="github",
        repository=repository,
        run_id=run_id,
        workflow=workflow,
        workflow_path=".github/workflows/nightly-ci.yml",
        run_attempt=attempt,
        run_url=run_url(run_id),
        head_sha=sha or f"{run_id:040x}",
        branch=branch,
        event="schedule",
        created_at=at.isoformat().replace("+00:00", "Z"),
        jobs=(
            JobContext(
                job_id=job_id,
                name="vllm (Test cuda13.0, amd64)",
                url=f"{run_url(run_id)}/job/{job_id}",
                conclusion="failure" if report.failing else "success",
                runner_name=runner,
                runner_labels=labels,
            ),
        ),
    )
    inputs = tuple(dataclasses.replace(item, job_id=job_id) for item in report.inputs)
    # as `fetch` makes it: the report with its CI context passes the redactor (a copy is never marked redacted)
    return redact_report(dataclasses.replace(report, context=context, inputs=inputs), Redactor())
