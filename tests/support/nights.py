"""A history store of simulated nights: two workflows, two GPU types, real Allure results, the normal record path.

Every job is a real pytest run of ``tests/scenarios/scenario_nights.py`` under allure-pytest, analysed with the
shipped rules and recorded with `record_report`, with the CI context `fetch` would give it. The plan:

- **Nightly CI Pipeline** (main) runs at 02:00 on nights 0, 1, 2, 4, 5 and 6 — nothing runs on night 3 —
  with two jobs, one on an A10G runner and one on an L40S runner.
- **Post-merge GPU** (main) runs at 14:00 on nights 1, 4 and 6, one job on the L40S runner.

What happens in the Nightly series:

- ``mm_epd_qwen3-vl-2b`` fails vLLM's startup free-memory check on every A10G job (and passes on the L40S):
  broken all along, never new.
- ``gated_llama-3.1-8b`` first runs on night 5 and fails on a gated Hugging Face repo on nights 5 and 6:
  ``hf.gated-repo`` is new on night 5 and not on night 6; before night 5 its cells are "not run".
- ``disagg_router`` is skipped on the L40S; on the A10G it fails once, on night 5, on a port already in use:
  ``network.address-in-use`` is gone on night 6.
- ``router_failover`` flips on the A10G: passes, fails with an error no rule knows (night 1 and night 4),
  and on night 5 fails, then passes on a retry in the same run: flaky.
- ``agg_qwen3-0.6b`` always passes.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

from forensics.model import JobContext, Report, RunContext
from forensics.report.build import analyze
from forensics.report.redact import Redactor, redact_report
from forensics.rules.model import RuleSet
from forensics.store.base import Store
from forensics.store.writer import record_report
from tests.support.allure_runner import SCENARIOS_DIRECTORY, run_scenarios

SCENARIO = SCENARIOS_DIRECTORY / "scenario_nights.py"
REPOSITORY = "acme/inference"
NIGHTLY = "Nightly CI Pipeline"
POST_MERGE = "Post-merge GPU"
START = datetime(2026, 2, 1, tzinfo=UTC)
NIGHTS = 7
NO_RUN_NIGHT = 3
NEW_NIGHT = 5  # hf.gated-repo appears; network.address-in-use fails once
RUNNERS = {"A10G": "gpu-a10g-01", "L40S": "gpu-l40s-01"}
MEMORY_TEST = "test_serve_deployment[mm_epd_qwen3-vl-2b]"
GATED_TEST = "test_serve_deployment[gated_llama-3.1-8b]"
PORT_TEST = "test_serve_deployment[disagg_router]"
FLAKY_TEST = "test_serve_deployment[router_failover]"
STEADY_TEST = "test_serve_deployment[agg_qwen3-0.6b]"
NEW_CAUSE = "hf.gated-repo"
GONE_CAUSE = "network.address-in-use"
MEMORY_CAUSE = "vllm.startup-free-memory"


@dataclass(frozen=True, slots=True)
class Job:
    """One job of a run: its GPU, each config's outcome, and the configs a CI retry ran again (passing)."""

    gpu: str
    tests: Mapping[str, str]
    passed_on_retry: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class PlannedRun:
    """A run of one workflow on one night."""

    workflow: str
    night: int
    hour: int
    jobs: tuple[Job, ...]
    run_id: int = field(default=0)

    @property
    def at(self) -> datetime:
        """When it started."""
        return START + timedelta(days=self.night, hours=self.hour)


def _nightly_jobs(night: int) -> tuple[Job, ...]:
    a10g = {"agg_qwen3-0.6b": "pass", "mm_epd_qwen3-vl-2b": "memory", "disagg_router": "pass"}
    l40s = {"agg_qwen3-0.6b": "pass", "mm_epd_qwen3-vl-2b": "pass", "disagg_router": "skip"}
    a10g["router_failover"] = "keyerror" if night in (1, 4, 5) else "pass"
    l40s["router_failover"] = "pass"
    if night >= NEW_NIGHT:
        a10g["gated_llama-3.1-8b"] = l40s["gated_llama-3.1-8b"] = "gated"
    if night == NEW_NIGHT:
        a10g["disagg_router"] = "port"
    retried = ("router_failover",) if night == NEW_NIGHT else ()
    return (Job("A10G", a10g, passed_on_retry=retried), Job("L40S", l40s))


def plan() -> tuple[PlannedRun, ...]:
    """Every run, oldest first."""
    runs = [
        PlannedRun(NIGHTLY, night, 2, _nightly_jobs(night), run_id=7_000_000 + night)
        for night in range(NIGHTS)
        if night != NO_RUN_NIGHT
    ]
    post_merge = {"agg_qwen3-0.6b": "pass", "disagg_router": "skip", "mm_epd_qwen3-vl-2b": "pass"}
    runs += [
        PlannedRun(POST_MERGE, night, 14, (Job("L40S", post_merge),), run_id=8_000_000 + night)
        for night in (1, 4, 6)
    ]
    return tuple(sorted(runs, key=lambda run: run.at))


def after_night(night: int) -> datetime:
    """A moment after every run of `night` (the morning a triage engineer opens the dashboard: 20:00)."""
    return START + timedelta(days=night, hours=20)


class NightBuilder:
    """Runs each distinct job once (a cache keyed by its plan) and records the plan's runs into a store."""

    def __init__(self, workdir: Path, rules: RuleSet) -> None:
        self.workdir = workdir
        self.rules = rules
        self._reports: dict[str, Report] = {}

    def report(self, job: Job) -> Report:
        """The analysed report of one job's Allure results."""
        key = hashlib.sha256(
            json.dumps([job.gpu, dict(job.tests), job.passed_on_retry]).encode()
        ).hexdigest()[:16]
        if key not in self._reports:
            target = self.workdir / key
            with _environment("SCENARIO_NIGHT", json.dumps({"gpu": job.gpu, "tests": dict(job.tests)})):
                run_scenarios([SCENARIO], target)
            if job.passed_on_retry:  # a CI retry into the same results folder: those configs pass now
                again = dict.fromkeys(job.passed_on_retry, "pass")
                with _environment("SCENARIO_NIGHT", json.dumps({"gpu": job.gpu, "tests": again})):
                    run_scenarios([SCENARIO], target)
            self._reports[key] = analyze([str(target)], rules=self.rules)
        return self._reports[key]

    def record(self, store: Store, *, until: datetime | None = None) -> int:
        """Record every planned run that started before `until` (all when None); returns the jobs recorded."""
        recorded = 0
        for run in plan():
            if until is not None and run.at > until:
                continue
            for index, job in enumerate(run.jobs):
                report = self.report(job)
                record_report(store, with_context(report, run, job, job_id=run.run_id * 10 + index))
                recorded += 1
        return recorded


def with_context(report: Report, run: PlannedRun, job: Job, *, job_id: int) -> Report:
    """The report as `fetch` would have made it for this job of this run."""
    url = f"https://github.com/{REPOSITORY}/actions/runs/{run.run_id}"
    context = RunContext(
        provider="github",
        repository=REPOSITORY,
        run_id=run.run_id,
        workflow=run.workflow,
        workflow_path=".github/workflows/" + run.workflow.lower().replace(" ", "-") + ".yml",
        run_url=url,
        head_sha=hashlib.sha1(f"{run.workflow}{run.night}".encode(), usedforsecurity=False).hexdigest(),
        branch="main",
        event="schedule",
        created_at=run.at.isoformat().replace("+00:00", "Z"),
        jobs=(
            JobContext(
                job_id=job_id,
                name=f"vllm ({job.gpu})",
                url=f"{url}/job/{job_id}",
                conclusion="failure" if report.failing else "success",
                runner_name=RUNNERS[job.gpu],
                runner_labels=("self-hosted", "linux", "gpu"),
            ),
        ),
    )
    inputs = tuple(replace(item, job_id=job_id) for item in report.inputs)
    # as `fetch` makes it: the report with its CI context passes the redactor (a copy is never marked redacted)
    return redact_report(replace(report, context=context, inputs=inputs), Redactor())


@contextmanager
def _environment(name: str, value: str) -> Iterator[None]:
    before = os.environ.get(name)
    os.environ[name] = value
    try:
        yield
    finally:
        if before is None:
            del os.environ[name]
        else:
            os.environ[name] = before


def build_store(location: Path, rules: RuleSet, *, until: datetime | None = None) -> Path:
    """A SQLite store at `location` with every planned run up to `until` (a convenience for scripts)."""
    from forensics.store import open_store

    with (
        tempfile.TemporaryDirectory() as workdir,
        open_store(str(location), default_dir=location.parent) as store,
    ):
        NightBuilder(Path(workdir), rules).record(store, until=until)
    return location
