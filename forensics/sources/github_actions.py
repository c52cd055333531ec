"""GitHub Actions as an artifact source: a job, a run's failed jobs, or a workflow's latest failed run.

For each job it takes the job's own allure artifacts (by name, else by the ids its log says
`actions/upload-artifact` uploaded), downloads them through the cache, and falls back to the job's plain
log when there is none to use (expired, never uploaded, killed before the upload), saying so as a Problem.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from forensics.errors import ConfigError, NotFoundError, ResultsError, ServiceError
from forensics.model import JobContext, Problem, RunContext
from forensics.services.github import GitHubArtifact, GitHubClient, GitHubJob, GitHubRun, parse_repository
from forensics.services.http import Progress
from forensics.sources.base import DownloadProgress, FetchedFile, FetchResult
from forensics.sources.cache import CachedFile, DownloadCache
from forensics.sources.naming import (
    ALLURE_PREFIX,
    is_job_allure_artifact,
    job_suffix,
    matches_glob,
    names_a_job,
    owner_job,
    pick_by_log,
    stage_of,
    uploaded_artifact_ids,
)

FAILED_CONCLUSIONS = frozenset({"failure", "timed_out"})
_NOT_UPLOADED_HINT = (
    "a job killed or timed out before its upload step uploads nothing; upload the allure-results folder "
    "with actions/upload-artifact under `if: always()`"
)


@dataclass(frozen=True, slots=True)
class GitHubActionsTarget:
    """What to fetch: one job, a run's failed jobs, or the latest failed run of a workflow (on a branch)."""

    repository: str
    job_id: int | None = None
    run_id: int | None = None
    workflow: str | None = None
    branch: str | None = None

    def __post_init__(self) -> None:
        parse_repository(self.repository)
        chosen = [self.job_id is not None, self.run_id is not None, self.workflow is not None]
        if sum(chosen) != 1:
            raise ConfigError(
                "say what to fetch: one of a job, a run, or a workflow's latest failed run",
                hint="use exactly one of --job ID, --run ID, --workflow FILE --latest-failed",
            )
        if self.branch is not None and self.workflow is None:
            raise ConfigError("a branch only narrows --workflow", hint="drop --branch, or add --workflow")


class GitHubActionsSource:
    """Fetches a target's allure artifacts (or job logs) into the cache, with the run's context."""

    def __init__(
        self,
        *,
        client: GitHubClient,
        target: GitHubActionsTarget,
        cache: DownloadCache,
        artifact_glob: str | None = None,
    ) -> None:
        self.client = client
        self.target = target
        self.repository = target.repository
        self.cache = cache
        self.artifact_glob = artifact_glob

    def fetch(self, *, progress: DownloadProgress | None = None) -> FetchResult:
        """Every selected job's artifacts (or log); one broken download becomes a Problem, never the end."""
        run, jobs = self._resolve()
        artifacts = list(self.client.list_run_artifacts(self.repository, run.id))
        job_ids = [job.id for job in jobs]
        files: list[FetchedFile] = []
        problems: list[Problem] = []
        for job in jobs:
            chosen = [item for item in artifacts if self._belongs(item, run, job, job_ids)]
            job_files, job_problems = self._fetch_job(run, job, chosen, artifacts, progress)
            files.extend(job_files)
            problems.extend(job_problems)
        if self.artifact_glob is not None:
            self._fetch_unclaimed(run, artifacts, job_ids, files, problems, progress)
        return FetchResult(
            files=tuple(files), context=_context(self.repository, run, jobs), problems=tuple(problems)
        )

    def _fetch_unclaimed(
        self,
        run: GitHubRun,
        artifacts: list[GitHubArtifact],
        job_ids: list[int],
        files: list[FetchedFile],
        problems: list[Problem],
        progress: DownloadProgress | None,
    ) -> None:
        """`--artifact` matches whose names name no job (nor the only one selected): analysed, with no job."""
        assert self.artifact_glob is not None
        for item in artifacts:
            claimed = owner_job(item.name, run_id=run.id, job_ids=job_ids) is not None
            if (
                claimed
                or names_a_job(item.name, run_id=run.id)
                or not matches_glob(item.name, self.artifact_glob)
            ):
                continue
            try:
                files.append(self._artifact_file(item, None, progress))
            except ServiceError as err:
                problems.append(Problem(object=f"artifact '{item.name}'", message=err.message, hint=err.hint))

    # --- which run, which jobs, which artifacts -------------------------------------------------------

    def _resolve(self) -> tuple[GitHubRun, list[GitHubJob]]:
        target, client = self.target, self.client
        if target.job_id is not None:
            # The job may be from an earlier attempt than the run's latest: report the job's own attempt,
            # as the history store keeps each attempt apart
            job = client.get_job(self.repository, target.job_id)
            return client.get_run_attempt(self.repository, job.run_id, job.run_attempt), [job]
        if target.run_id is not None:  # the run's latest attempt, and (filter=latest) its jobs
            run = client.get_run(self.repository, target.run_id)
        else:
            assert target.workflow is not None
            run = self._latest_failed_run(target.workflow, target.branch)
        jobs = [
            job
            for job in client.list_run_jobs(self.repository, run.id)
            if job.conclusion in FAILED_CONCLUSIONS
        ]
        if not jobs:
            state = run.conclusion or run.status or "unknown"
            raise ResultsError(
                f"run {run.id} of {self.repository} has no failed job (the run is {state})",
                hint="pass --job ID to analyse one job anyway, or wait until the run has finished",
            )
        return run, jobs

    def _latest_failed_run(self, workflow: str, branch: str | None) -> GitHubRun:
        runs = self.client.list_workflow_runs(
            self.repository, workflow, branch=branch, status="failure", per_page=1
        )
        latest = next(iter(runs), None)
        if latest is None:
            on_branch = f" on branch '{branch}'" if branch else ""
            raise NotFoundError(
                f"workflow '{workflow}' of {self.repository} has no failed run{on_branch}",
                hint="check the workflow file name (as in .github/workflows/) and the branch",
            )
        return latest

    def _belongs(
        self, artifact: GitHubArtifact, run: GitHubRun, job: GitHubJob, job_ids: Sequence[int]
    ) -> bool:
        if self.artifact_glob is None:
            return is_job_allure_artifact(artifact.name, run_id=run.id, job_id=job.id)
        return matches_glob(artifact.name, self.artifact_glob) and (
            owner_job(artifact.name, run_id=run.id, job_ids=job_ids) == job.id
        )

    # --- one job -----------------------------------------------------------------------------------

    def _fetch_job(
        self,
        run: GitHubRun,
        job: GitHubJob,
        chosen: list[GitHubArtifact],
        artifacts: list[GitHubArtifact],
        progress: DownloadProgress | None,
    ) -> tuple[list[FetchedFile], list[Problem]]:
        log: CachedFile | None = None
        log_error: ServiceError | None = None
        if not chosen and self.artifact_glob is None:  # names say nothing: the upload lines of its log may
            log, log_error = self._job_log(job, progress)
            if log is not None:
                chosen = pick_by_log(artifacts, uploaded_artifact_ids(log.path))
        files: list[FetchedFile] = []
        failures: list[tuple[GitHubArtifact, ServiceError]] = []
        for artifact in sorted(chosen, key=lambda item: item.name):
            try:
                files.append(self._artifact_file(artifact, job, progress))
            except ServiceError as err:
                failures.append((artifact, err))
        if files:
            return files, [_artifact_problem(job, artifact, err) for artifact, err in failures]
        if log is None and log_error is None:
            log, log_error = self._job_log(job, progress)
        problem = self._fallback_problem(run, job, failures, log_error, log_read=log is not None)
        if log is None:
            return [], [problem]
        log_file = FetchedFile(
            path=log.path,
            kind="log",
            label=f"job {job.id} log",
            save_as=f"job-{job.id}.log",
            job_id=job.id,
            item_name=f"job log: {job.name or job.id}",
            downloaded=log.downloaded,
        )
        return [log_file], [problem]

    def _artifact_file(
        self, artifact: GitHubArtifact, job: GitHubJob | None, progress: DownloadProgress | None
    ) -> FetchedFile:
        path = self.cache.path(
            service="github", host=self.client.host, kind="artifacts", key=str(artifact.id), suffix=".zip"
        )
        cached = self.cache.obtain(
            path,
            lambda target: self.client.download_artifact(
                self.repository, artifact, target, progress=_labelled(progress, artifact.name)
            ),
            size=artifact.zip_size,
            sha256=artifact.sha256,
        )
        return FetchedFile(
            path=cached.path,
            kind="zip",
            label=artifact.name,
            save_as=f"{artifact.name}.zip",
            job_id=job.id if job is not None else None,
            stage=stage_of(artifact.name, run_id=artifact.run_id, job_id=job.id if job else None),
            artifact=artifact.name,
            downloaded=cached.downloaded,
        )

    def _job_log(
        self, job: GitHubJob, progress: DownloadProgress | None
    ) -> tuple[CachedFile | None, ServiceError | None]:
        # A running job's log still grows: cache it only once the job has completed
        suffix = ".log" if job.completed else ".in-progress.log"
        path = self.cache.path(
            service="github", host=self.client.host, kind="logs", key=str(job.id), suffix=suffix
        )
        try:
            cached = self.cache.obtain(
                path,
                lambda target: self.client.download_job_log(
                    self.repository, job.id, target, progress=_labelled(progress, f"log of job {job.id}")
                ),
                reuse=job.completed,
            )
        except ServiceError as err:
            return None, err
        return cached, None

    def _fallback_problem(
        self,
        run: GitHubRun,
        job: GitHubJob,
        failures: list[tuple[GitHubArtifact, ServiceError]],
        log_error: ServiceError | None,
        *,
        log_read: bool,
    ) -> Problem:
        subject = f"job {job.id} '{job.name}'"
        if failures:
            names = ", ".join(f"'{artifact.name}'" for artifact, _ in failures)
            subject += f": artifact {names}"
            reason = failures[0][1].message + (
                f" (and {len(failures) - 1} more)" if len(failures) > 1 else ""
            )
            hint = failures[0][1].hint
        elif self.artifact_glob is not None:
            reason = f"no artifact of run {run.id} matches --artifact '{self.artifact_glob}'"
            hint = "check the pattern against the run's artifact names"
        else:
            expected = f"{ALLURE_PREFIX}…{job_suffix(run.id, job.id)}"
            searched = " and none in its log's upload lines" if log_read else ""
            reason = f"uploaded no allure artifact (none named {expected}{searched})"
            hint = _NOT_UPLOADED_HINT
        if log_error is None:
            return Problem(object=subject, message=f"{reason}; the job's log stands in for it", hint=hint)
        return Problem(
            object=subject,
            message=f"{reason}; its log could not be read either: {log_error.message}",
            hint=log_error.hint or hint,
            severity="error",
        )


def _artifact_problem(job: GitHubJob, artifact: GitHubArtifact, err: ServiceError) -> Problem:
    return Problem(
        object=f"job {job.id} '{job.name}': artifact '{artifact.name}'",
        message=err.message,
        hint=err.hint,
        severity="error",
    )


def _labelled(progress: DownloadProgress | None, label: str) -> Progress | None:
    if progress is None:
        return None
    return lambda done, total: progress(label, done, total)


def _context(repository: str, run: GitHubRun, jobs: list[GitHubJob]) -> RunContext:
    return RunContext(
        provider="github",
        repository=repository,
        run_id=run.id,
        workflow=run.name,
        workflow_path=run.path,
        run_attempt=run.run_attempt,
        run_url=run.html_url,
        head_sha=run.head_sha,
        branch=run.head_branch,
        event=run.event,
        created_at=run.created_at,
        jobs=tuple(
            JobContext(
                job_id=job.id,
                name=job.name,
                url=job.html_url,
                conclusion=job.conclusion,
                runner_name=job.runner_name,
                runner_labels=job.labels,
                failed_steps=job.failed_steps,
                started_at=job.started_at,
                completed_at=job.completed_at,
            )
            for job in jobs
        ),
    )
