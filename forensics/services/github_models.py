"""GitHub's payloads as frozen dataclasses, and the one place that knows their JSON shapes.

`GitHubClient` parses every response here; nothing past this module sees GitHub's JSON.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from forensics.errors import ServiceError


@dataclass(frozen=True, slots=True)
class IssueComment:
    """A comment on an issue or pull request."""

    id: int
    body: str
    url: str  # the comment's web address (html_url)
    author: str  # the login of who wrote it


@dataclass(frozen=True, slots=True)
class GitHubStep:
    """One step of a job, as the job's `steps[]` lists it."""

    number: int
    name: str
    status: str
    conclusion: str


@dataclass(frozen=True, slots=True)
class GitHubJob:
    """A workflow job: where it ran and how it ended."""

    id: int
    run_id: int
    name: str
    status: str  # "queued", "in_progress", "completed", …
    conclusion: str  # "failure", "success", "cancelled", "timed_out", … ("" while running)
    html_url: str = ""
    head_sha: str = ""
    head_branch: str = ""
    run_attempt: int = 1
    workflow_name: str = ""
    runner_name: str = ""
    labels: tuple[str, ...] = ()
    steps: tuple[GitHubStep, ...] = ()
    started_at: str = ""
    completed_at: str = ""

    @property
    def completed(self) -> bool:
        """Its log will not change any more."""
        return self.status == "completed"

    @property
    def failed_steps(self) -> tuple[str, ...]:
        """Names of the steps that failed or timed out."""
        return tuple(step.name for step in self.steps if step.conclusion in ("failure", "timed_out"))


@dataclass(frozen=True, slots=True)
class GitHubRun:
    """A workflow run."""

    id: int
    name: str  # the workflow's name, e.g. "Nightly CI Pipeline"
    path: str = ""  # ".github/workflows/nightly-ci.yml" (GitHub appends "@ref"; dropped here)
    head_sha: str = ""
    head_branch: str = ""
    event: str = ""
    status: str = ""
    conclusion: str = ""
    html_url: str = ""
    run_attempt: int = 1
    created_at: str = ""


@dataclass(frozen=True, slots=True)
class GitHubArtifact:
    """An artifact of a run (the zip `actions/upload-artifact` stored)."""

    id: int
    name: str
    size: int
    run_id: int
    expired: bool = False
    digest: str = ""  # "sha256:…" when GitHub gives one (upload-artifact v4 and later)
    created_at: str = ""
    expires_at: str = ""

    @property
    def sha256(self) -> str | None:
        """The digest GitHub lists (`sha256:…`), None when it lists none."""
        return self.digest if self.digest.startswith("sha256:") else None

    @property
    def zip_size(self) -> int | None:
        """The zip's size in bytes, when the listed size is that.

        upload-artifact v4 stores the zip as uploaded and lists its digest; older artifacts were zipped on
        download and list the files' total, so without a digest the size says nothing about the zip.
        """
        return self.size if self.sha256 else None

    @property
    def retention_days(self) -> int | None:
        """How many days GitHub keeps it (from its creation and expiry times), when both are known."""
        created, expires = _timestamp(self.created_at), _timestamp(self.expires_at)
        if created is None or expires is None:
            return None
        return max(0, round((expires - created).total_seconds() / 86400))


def _timestamp(value: str) -> datetime | None:
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")) if value else None
    except ValueError:
        return None


def _object(item: Any, what: str) -> Mapping[str, Any]:
    if not isinstance(item, Mapping) or not isinstance(item.get("id"), int):
        raise ServiceError(
            f"GitHub sent an unexpected document for {what}",
            hint="check that GITHUB_API_URL points at the GitHub REST API",
        )
    return item


def _text(item: Mapping[str, Any], key: str) -> str:
    value = item.get(key)
    return value if isinstance(value, str) else ""


def _number(item: Mapping[str, Any], key: str, default: int = 0) -> int:
    value = item.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def parse_job(item: Any, what: str) -> GitHubJob:
    """A job from `GET …/actions/jobs/{id}` or a run's job list."""
    job = _object(item, what)
    steps = job.get("steps") if isinstance(job.get("steps"), list) else []
    labels = job.get("labels") if isinstance(job.get("labels"), list) else []
    return GitHubJob(
        id=job["id"],
        run_id=_number(job, "run_id"),
        name=_text(job, "name"),
        status=_text(job, "status"),
        conclusion=_text(job, "conclusion"),
        html_url=_text(job, "html_url"),
        head_sha=_text(job, "head_sha"),
        head_branch=_text(job, "head_branch"),
        run_attempt=_number(job, "run_attempt", 1),
        workflow_name=_text(job, "workflow_name"),
        runner_name=_text(job, "runner_name"),
        labels=tuple(label for label in labels or () if isinstance(label, str)),
        steps=tuple(
            GitHubStep(
                number=_number(step, "number"),
                name=_text(step, "name"),
                status=_text(step, "status"),
                conclusion=_text(step, "conclusion"),
            )
            for step in steps or ()
            if isinstance(step, Mapping)
        ),
        started_at=_text(job, "started_at"),
        completed_at=_text(job, "completed_at"),
    )


def parse_run(item: Any, what: str) -> GitHubRun:
    """A workflow run from `GET …/actions/runs/{id}` or a run list."""
    run = _object(item, what)
    return GitHubRun(
        id=run["id"],
        name=_text(run, "name"),
        path=_text(run, "path").split("@", 1)[0],
        head_sha=_text(run, "head_sha"),
        head_branch=_text(run, "head_branch"),
        event=_text(run, "event"),
        status=_text(run, "status"),
        conclusion=_text(run, "conclusion"),
        html_url=_text(run, "html_url"),
        run_attempt=_number(run, "run_attempt", 1),
        created_at=_text(run, "created_at"),
    )


def parse_artifact(item: Any, run_id: int, what: str) -> GitHubArtifact:
    """An artifact from a run's artifact list (`workflow_run.id` names its run)."""
    artifact = _object(item, what)
    workflow_run = artifact.get("workflow_run")
    owner_run = _number(workflow_run, "id", run_id) if isinstance(workflow_run, Mapping) else run_id
    return GitHubArtifact(
        id=artifact["id"],
        name=_text(artifact, "name"),
        size=_number(artifact, "size_in_bytes"),
        run_id=owner_run,
        expired=artifact.get("expired") is True,
        digest=_text(artifact, "digest"),
        created_at=_text(artifact, "created_at"),
        expires_at=_text(artifact, "expires_at"),
    )


def parse_comment(item: Any, what: str) -> IssueComment:
    """An issue or pull-request comment."""
    comment = _object(item, what)
    user = comment.get("user")
    return IssueComment(
        id=comment["id"],
        body=_text(comment, "body"),
        url=_text(comment, "html_url"),
        author=_text(user, "login") if isinstance(user, Mapping) else "",
    )
