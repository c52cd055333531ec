"""The GitHub REST client: Actions jobs, runs, artifacts and logs, and issue/PR comments.

Responses are parsed at once into frozen dataclasses (`github_models`) and go no further. Every call names its object in errors
(`cannot download artifact 'allure-results-…' (run 123): …`) with a GitHub-specific hint; the token lives
only in the session's Authorization header and never in a message, a log or a repr.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import TracebackType
from typing import Any
from urllib.parse import quote, urlsplit

import regex
import requests

from forensics.errors import (
    AuthenticationError,
    ConfigError,
    GoneError,
    NotFoundError,
    ServiceError,
)
from forensics.services.github_models import (
    GitHubArtifact,
    GitHubJob,
    GitHubRun,
    GitHubStep,
    IssueComment,
    parse_artifact,
    parse_comment,
    parse_job,
    parse_run,
)
from forensics.services.http import (
    Download,
    HostCircuits,
    HttpClient,
    Notify,
    Progress,
    RetryPolicy,
    response_detail,
    url_path,
)

__all__ = [
    "DEFAULT_API_URL",
    "GitHubArtifact",
    "GitHubClient",
    "GitHubJob",
    "GitHubRun",
    "GitHubStep",
    "IssueComment",
    "parse_repository",
]

DEFAULT_API_URL = "https://api.github.com"
API_VERSION = "2022-11-28"
_REPOSITORY = regex.compile(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+")
_REPOSITORY_IN_PATH = regex.compile(r"/repos/([^/]+/[^/]+)/")
_TOKEN_HINT = "set GITHUB_TOKEN (or GH_TOKEN) to a valid token: it is missing, expired or revoked"
_ANONYMOUS_DOWNLOAD_HINT = (
    "GitHub serves artifacts and job logs only with a token, even for public repositories: "
    "set GITHUB_TOKEN (or GH_TOKEN) to a token with `actions: read`"
)


class GitHubClient:
    """GitHub's REST API (github.com or GitHub Enterprise Server) through the shared `HttpClient`."""

    def __init__(
        self,
        *,
        base_url: str = DEFAULT_API_URL,
        token: str | None = None,
        timeout: float = 30.0,
        notify: Notify | None = None,
        retry: RetryPolicy | None = None,
        sleep: Callable[[float], None] = time.sleep,
        circuits: HostCircuits | None = None,
    ) -> None:
        self.anonymous = not token
        self.http = HttpClient(
            base_url=base_url,
            service="GitHub",
            headers={"Accept": "application/vnd.github+json", "X-GitHub-Api-Version": API_VERSION},
            auth_header=f"Bearer {token}" if token else None,
            timeout=timeout,
            retry=retry or RetryPolicy(),
            notify=notify,
            explain=self._explain,
            sleep=sleep,
            circuits=circuits or HostCircuits(),
        )

    def __repr__(self) -> str:
        return f"GitHubClient(base_url={self.http.base_url!r}, anonymous={self.anonymous})"

    def __enter__(self) -> GitHubClient:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        """Release pooled connections."""
        self.http.close()

    @property
    def host(self) -> str:
        """The API host (and port), e.g. `api.github.com`: caches keep GitHub instances apart by it."""
        return urlsplit(self.http.base_url).netloc

    # --- Actions ---------------------------------------------------------------------------------

    def get_job(self, repository: str, job_id: int) -> GitHubJob:
        """One job of a workflow run."""
        path = f"{_repo(repository)}/actions/jobs/{int(job_id)}"
        return parse_job(self.http.get_json(path, what=f"job {job_id} of {repository}"), f"job {job_id}")

    def get_run(self, repository: str, run_id: int) -> GitHubRun:
        """One workflow run."""
        path = f"{_repo(repository)}/actions/runs/{int(run_id)}"
        return parse_run(self.http.get_json(path, what=f"run {run_id} of {repository}"), f"run {run_id}")

    def get_run_attempt(self, repository: str, run_id: int, attempt: int) -> GitHubRun:
        """One attempt of a workflow run, as it was then (`get_run` gives only the latest attempt)."""
        path = f"{_repo(repository)}/actions/runs/{int(run_id)}/attempts/{int(attempt)}"
        what = f"attempt {attempt} of run {run_id} of {repository}"
        return parse_run(self.http.get_json(path, what=what), what)

    def list_run_jobs(self, repository: str, run_id: int, *, latest_only: bool = True) -> Iterator[GitHubJob]:
        """Every job of a run (of its latest attempt unless `latest_only` is False), across pages."""
        path = f"{_repo(repository)}/actions/runs/{int(run_id)}/jobs"
        what = f"jobs of run {run_id} of {repository}"
        params = {"filter": "latest" if latest_only else "all"}
        for item in self.http.paginate(path, what=what, items_key="jobs", params=params):
            yield parse_job(item, what)

    def list_run_artifacts(self, repository: str, run_id: int) -> Iterator[GitHubArtifact]:
        """Every artifact of a run, across pages (a nightly run has hundreds)."""
        path = f"{_repo(repository)}/actions/runs/{int(run_id)}/artifacts"
        what = f"artifacts of run {run_id} of {repository}"
        for item in self.http.paginate(path, what=what, items_key="artifacts"):
            yield parse_artifact(item, run_id, what)

    def list_workflow_runs(
        self,
        repository: str,
        workflow: str,
        *,
        branch: str | None = None,
        status: str | None = None,
        per_page: int = 100,
    ) -> Iterator[GitHubRun]:
        """Runs of one workflow (file name like `nightly-ci.yml`, or its id), newest first, across pages."""
        path = f"{_repo(repository)}/actions/workflows/{quote(workflow, safe='')}/runs"
        what = f"runs of workflow '{workflow}' of {repository}"
        params: dict[str, Any] = {"per_page": max(1, min(100, per_page))}
        if branch:
            params["branch"] = branch
        if status:
            params["status"] = status
        for item in self.http.paginate(path, what=what, items_key="workflow_runs", params=params):
            yield parse_run(item, what)

    def download_artifact(
        self,
        repository: str,
        artifact: GitHubArtifact,
        destination: Path,
        *,
        progress: Progress | None = None,
    ) -> Download:
        """The artifact's zip at `destination`, checked against the size and digest GitHub lists."""
        what = f"artifact '{artifact.name}' (run {artifact.run_id})"
        if artifact.expired:
            raise _expired(artifact, what)
        path = f"{_repo(repository)}/actions/artifacts/{artifact.id}/zip"
        try:
            return self.http.download(
                path,
                destination,
                what=what,
                expected_size=artifact.zip_size,
                expected_sha256=artifact.sha256,
                progress=progress,
            )
        except GoneError as err:
            raise _expired(artifact, what) from err

    def download_job_log(
        self, repository: str, job_id: int, destination: Path, *, progress: Progress | None = None
    ) -> Download:
        """The job's plain-text log at `destination` (each line prefixed with a timestamp)."""
        path = f"{_repo(repository)}/actions/jobs/{int(job_id)}/logs"
        return self.http.download(path, destination, what=f"log of job {job_id}", progress=progress)

    # --- Issue and pull-request comments (pull requests use the issue endpoints) --------------------

    def list_issue_comments(self, repository: str, number: int) -> Iterator[IssueComment]:
        """Every comment of an issue or pull request, oldest first, across pages."""
        path = f"{_repo(repository)}/issues/{int(number)}/comments"
        what = f"comments of {repository}#{number}"
        for item in self.http.paginate(path, what=what, items_key=None):
            yield parse_comment(item, what)

    def create_issue_comment(self, repository: str, number: int, body: str) -> IssueComment:
        """Add a comment to an issue or pull request."""
        path = f"{_repo(repository)}/issues/{int(number)}/comments"
        what = f"a comment on {repository}#{number}"
        response = self.http.request("POST", path, what=what, json={"body": body}, ok=(201, 200))
        return parse_comment(_json(response, what), what)

    def update_issue_comment(self, repository: str, comment_id: int, body: str) -> IssueComment:
        """Replace the body of an existing comment."""
        path = f"{_repo(repository)}/issues/comments/{int(comment_id)}"
        what = f"comment {comment_id} of {repository}"
        response = self.http.request("PATCH", path, what=what, json={"body": body}, ok=(200,))
        return parse_comment(_json(response, what), what)

    # --- GitHub's wording for refusals --------------------------------------------------------------

    def _explain(self, response: requests.Response, what: str) -> ServiceError | None:
        status = response.status_code
        detail = response_detail(response)
        path = url_path(response.url)
        verb = _verb(response.request.method or "GET", path)
        repository = _repository_of(path)
        scope_refused = "actions scope" in detail.lower()
        if status == 401 or (status == 403 and scope_refused):
            anonymous_download = scope_refused or (self.anonymous and verb == "download")
            return AuthenticationError(
                f"cannot {verb} {what}: GitHub refused the request ({detail})",
                hint=_ANONYMOUS_DOWNLOAD_HINT if anonymous_download else _TOKEN_HINT,
                status=status,
            )
        if status == 403:
            needs = "`actions: read`" if "/actions/" in path else "`issues: write` (`pull-requests: write`)"
            return AuthenticationError(
                f"cannot {verb} {what}: GitHub forbids it ({detail})",
                hint=f"the token needs {needs} on {repository or 'the repository'}"
                + (" (set GITHUB_TOKEN or GH_TOKEN)" if self.anonymous else ""),
                status=status,
            )
        if status == 404:
            return NotFoundError(
                f"cannot {verb} {what}: GitHub has no such object in {repository or 'this repository'} ({path})",
                hint="check the repository (--repo) and the id; a private repository also answers 404 "
                "to a token that cannot see it",
                status=status,
            )
        if status == 410:
            return GoneError(
                f"cannot {verb} {what}: it expired ({detail})",
                hint="artifacts and logs are kept retention-days days (actions/upload-artifact); re-run the job",
                status=status,
            )
        return None


def parse_repository(repository: str) -> str:
    """`owner/name` as given, or ConfigError when it is not of that shape."""
    cleaned = repository.strip()
    if not _REPOSITORY.fullmatch(cleaned):
        raise ConfigError(
            f"'{repository}' is not a GitHub repository",
            hint="give it as owner/name, e.g. ai-dynamo/dynamo",
        )
    return cleaned


def _repo(repository: str) -> str:
    return f"repos/{parse_repository(repository)}"


def _verb(method: str, path: str) -> str:
    if method == "GET":
        return "download" if path.endswith(("/zip", "/logs")) else "get"
    return {"POST": "post", "PATCH": "update", "DELETE": "delete"}.get(method, method.lower())


def _repository_of(path: str) -> str:
    match = _REPOSITORY_IN_PATH.search(path)
    return match[1] if match else ""


def _expired(artifact: GitHubArtifact, what: str) -> GoneError:
    when = f" on {artifact.expires_at[:10]}" if artifact.expires_at else ""
    days = artifact.retention_days
    kept = f"kept {days} days" if days is not None else "kept retention-days days"
    return GoneError(
        f"cannot download {what}: it expired{when}",
        hint=f"artifacts of this run were {kept} (retention-days in actions/upload-artifact); "
        "re-run the job, or raise retention-days",
        status=410,
    )


def _json(response: requests.Response, what: str) -> Any:
    try:
        return response.json()
    except ValueError as err:
        raise ServiceError(
            f"GitHub sent something that is not JSON for {what}",
            hint="check that GITHUB_API_URL points at the API",
        ) from err
