"""The sample nightly as annotate's tests see it: the real `analyze()` over the bundled artifact (OPS-4445 and
ai-dynamo/dynamo#8443 in its links and skip reasons), given a CI run, or a crafted log around one cause line."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from forensics.model import JobContext, Report, RunContext
from forensics.report.build import analyze
from forensics.report.grouping import group_verdicts
from forensics.report.session import AnalyzeOptions
from forensics.rules.model import RuleSet

SAMPLE = Path(__file__).resolve().parents[2] / "forensics" / "samples" / "nightly-allure-results.zip"
REPOSITORY = "ai-dynamo/dynamo"
RUN_ID = 24685348314
JOB_ID = 72349014718
HEAD_SHA = "0c4d0f3e5a1b2c3d4e5f60718293a4b5c6d7e8f9"
CAUSE_LINE = (
    "[BASH] (EngineCore_DP0 pid=6940) ValueError: Free memory on device cuda:0 (19.5/22.03 GiB) on startup is "
    "less than desired GPU memory utilization (0.9, 19.83 GiB). Decrease GPU memory utilization or reduce GPU "
    "memory used by other processes."
)


def sample_report(rules: RuleSet) -> Report:
    """The bundled sample nightly artifact, analysed by the real engine (no CI context)."""
    return analyze([str(SAMPLE)], rules=rules, options=AnalyzeOptions(jobs=1))


def with_run(report: Report, *, run_id: int = RUN_ID, head_sha: str = HEAD_SHA) -> Report:
    """The report as `fetch` would have made it: every input from one job of a nightly run."""
    job = JobContext(
        job_id=JOB_ID,
        name="vllm / Test cuda13.0 (amd64)",
        url=f"https://github.com/{REPOSITORY}/actions/runs/{run_id}/job/{JOB_ID}",
        conclusion="failure",
        runner_name="prod-tester-amd-gpu-v2-7x2kq",
    )
    context = RunContext(
        provider="github",
        repository=REPOSITORY,
        run_id=run_id,
        workflow="Nightly CI Pipeline",
        run_url=f"https://github.com/{REPOSITORY}/actions/runs/{run_id}",
        head_sha=head_sha,
        branch="main",
        event="schedule",
        created_at="2026-04-21T08:00:00Z",
        jobs=(job,),
    )
    return replace(
        report, inputs=tuple(replace(item, job_id=JOB_ID) for item in report.inputs), context=context
    )


def crafted_report(tmp_path: Path, rules: RuleSet, lines_before_cause: list[str]) -> Report:
    """One plain log whose root cause (vLLM's free-memory check) follows the given lines."""
    log = tmp_path / "bash.log.txt"
    log.write_text(
        "\n".join(["[BASH] starting engine", *lines_before_cause, CAUSE_LINE, "[BASH] exiting"]) + "\n"
    )
    return analyze([str(log)], rules=rules, options=AnalyzeOptions(jobs=1))


def many_failures(report: Report, count: int) -> Report:
    """The report with `count` failing copies of its first explained test (long names), for size limits."""
    template = next(verdict for verdict in report.failing if verdict.explained)
    copies = [
        replace(template, test=replace(template.test, uuid=f"copy-{index}", name=f"test_{index}_{'x' * 180}"))
        for index in range(count)
    ]
    return replace(report, verdicts=tuple(copies), groups=group_verdicts(copies))
