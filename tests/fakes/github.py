"""A fake GitHub REST API and a fake blob storage host, each a real server on 127.0.0.1.

Payloads start from GitHub's own OpenAPI examples in tests/data/github-api/ with ids and names
adjusted. Downloads answer 302 to the storage host with a signed query (`sig=`), and the storage host
refuses any request that carries an Authorization header, as Azure blob storage does.
"""

from __future__ import annotations

import copy
import hashlib
import itertools
import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from tests.fakes.server import FakeServer, Reply, Request

REFERENCE_API = Path(__file__).resolve().parents[1] / "data" / "github-api"
TOKEN = "ghp_FakeTokenForTests0123456789abcdefABCD"
SIGNATURE = "sv=2025-01-05&se=2026-12-01T00%3A00%3A00Z&sr=b&sp=r&sig=SiGnEdQuErY0123456789abcdefSECRET"
SIGNATURE_SECRET = "SiGnEdQuErY0123456789abcdefSECRET"
_SCOPE_MESSAGE = "You must have the actions scope to download artifacts."


def reference(name: str) -> Any:
    """One of GitHub's example payloads."""
    return json.loads((REFERENCE_API / name).read_text())


@dataclass
class FakeGitHub:
    """State of one repository's Actions and issues, served over `api` with downloads from `storage`."""

    api: FakeServer
    storage: FakeServer
    repository: str = "ai-dynamo/dynamo"
    token: str | None = TOKEN
    runs: dict[int, dict[str, Any]] = field(default_factory=dict)  # each run as of its latest attempt
    earlier_attempts: dict[tuple[int, int], dict[str, Any]] = field(default_factory=dict)
    workflows: dict[str, list[int]] = field(default_factory=dict)
    jobs: dict[int, dict[str, Any]] = field(default_factory=dict)
    artifacts: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    blobs: dict[str, bytes] = field(default_factory=dict)
    logs: dict[int, str] = field(default_factory=dict)
    comments: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    gone: set[int] = field(default_factory=set)  # artifact ids that answer 410
    looping: set[int] = field(default_factory=set)  # artifact ids whose storage URL redirects to itself
    storage_gate: Callable[[Request], None] | None = None  # called before the storage host answers
    _ids: itertools.count[int] = field(default_factory=lambda: itertools.count(9_000_001))

    def __post_init__(self) -> None:
        base = f"/repos/{self.repository}"
        routes = [
            ("GET", rf"{base}/actions/jobs/(\d+)", self._get_job),
            ("GET", rf"{base}/actions/runs/(\d+)", self._get_run),
            ("GET", rf"{base}/actions/runs/(\d+)/attempts/(\d+)", self._get_run_attempt),
            ("GET", rf"{base}/actions/runs/(\d+)/jobs", self._list_jobs),
            ("GET", rf"{base}/actions/runs/(\d+)/artifacts", self._list_artifacts),
            ("GET", rf"{base}/actions/workflows/([^/]+)/runs", self._list_workflow_runs),
            ("GET", rf"{base}/actions/artifacts/(\d+)/zip", self._download_artifact),
            ("GET", rf"{base}/actions/jobs/(\d+)/logs", self._download_log),
            ("GET", rf"{base}/issues/(\d+)/comments", self._list_comments),
            ("POST", rf"{base}/issues/(\d+)/comments", self._create_comment),
            ("PATCH", rf"{base}/issues/comments/(\d+)", self._update_comment),
        ]
        for method, pattern, handler in routes:
            self.api.route(method, pattern, self._authorised(handler))
        self.storage.route("GET", r"/blob/([\w.-]+)", self._serve_blob)

    # --- building the state ---------------------------------------------------------------------

    def add_run(
        self,
        run_id: int,
        *,
        name: str = "Nightly CI Pipeline",
        workflow: str = "nightly-ci.yml",
        branch: str = "main",
        conclusion: str = "failure",
        created_at: str = "2026-04-21T08:00:00Z",
        head_sha: str = "0c4d0f3e5a1b2c3d4e5f60718293a4b5c6d7e8f9",
    ) -> dict[str, Any]:
        run = reference("actions-get-workflow-run.200.json")
        run.update(
            id=run_id,
            name=name,
            path=f".github/workflows/{workflow}@{branch}",
            head_branch=branch,
            head_sha=head_sha,
            event="schedule",
            status="completed",
            conclusion=conclusion,
            url=f"{self.api.url}/repos/{self.repository}/actions/runs/{run_id}",
            html_url=f"https://github.com/{self.repository}/actions/runs/{run_id}",
            created_at=created_at,
            run_attempt=1,
        )
        self.runs[run_id] = run
        self.workflows.setdefault(workflow, []).append(run_id)
        self.artifacts.setdefault(run_id, [])
        return run

    def add_job(
        self,
        run_id: int,
        job_id: int,
        *,
        name: str = "vllm / Test cuda13.0 (amd64)",
        conclusion: str = "failure",
        failed_step: str = "Run GPU tests (parallel)",
        runner_name: str = "prod-tester-amd-gpu-v2-7x2kq",
        labels: tuple[str, ...] = ("self-hosted", "gpu", "amd64"),
        log: str | None = None,
    ) -> dict[str, Any]:
        job = reference("actions-get-job-for-workflow-run.200.json")
        run = self.runs[run_id]
        steps = copy.deepcopy(job["steps"])
        if conclusion == "failure":
            steps[6].update(name=failed_step, conclusion="failure")
        job.update(
            id=job_id,
            run_id=run_id,
            run_url=run["url"],
            url=f"{self.api.url}/repos/{self.repository}/actions/jobs/{job_id}",
            html_url=f"https://github.com/{self.repository}/actions/runs/{run_id}/job/{job_id}",
            head_sha=run["head_sha"],
            head_branch=run["head_branch"],
            workflow_name=run["name"],
            name=name,
            status="completed",
            conclusion=conclusion,
            steps=steps,
            runner_name=runner_name,
            labels=list(labels),
            run_attempt=run["run_attempt"],
        )
        self.jobs[job_id] = job
        if log is not None:
            self.logs[job_id] = log
        return job

    def rerun(self, run_id: int, **changes: Any) -> dict[str, Any]:
        """A new attempt of a run (jobs added from now on belong to it); earlier attempts stay readable."""
        run = self.runs[run_id]
        attempt = run["run_attempt"]
        self.earlier_attempts[(run_id, attempt)] = copy.deepcopy(run)
        run.update(
            run_attempt=attempt + 1, previous_attempt_url=f"{run['url']}/attempts/{attempt}", **changes
        )
        return run

    def add_artifact(
        self,
        run_id: int,
        name: str,
        data: bytes = b"",
        *,
        expired: bool = False,
        with_digest: bool = True,
        created_at: str = "2026-04-21T09:00:00Z",
        expires_at: str = "2026-04-28T09:00:00Z",
    ) -> dict[str, Any]:
        artifact = reference("actions-get-artifact.200.json")
        artifact_id = next(self._ids)
        artifact.update(
            id=artifact_id,
            name=name,
            size_in_bytes=len(data),
            url=f"{self.api.url}/repos/{self.repository}/actions/artifacts/{artifact_id}",
            archive_download_url=f"{self.api.url}/repos/{self.repository}/actions/artifacts/{artifact_id}/zip",
            expired=expired,
            created_at=created_at,
            updated_at=created_at,
            expires_at=expires_at,
            digest=f"sha256:{hashlib.sha256(data).hexdigest()}" if with_digest else None,
        )
        artifact["workflow_run"].update(id=run_id, head_sha=self.runs[run_id]["head_sha"])
        if not with_digest:
            del artifact["digest"]
        self.artifacts[run_id].append(artifact)
        self.blobs[f"artifact-{artifact_id}.zip"] = data
        return artifact

    # --- what tests look at -----------------------------------------------------------------------

    @property
    def storage_downloads(self) -> list[Request]:
        """Requests that reached the storage host (each is one download)."""
        return [request for request in self.storage.requests if request.path.startswith("/blob/")]

    def api_requests(self, fragment: str = "") -> list[Request]:
        """API requests whose path contains `fragment`."""
        return [request for request in self.api.requests if fragment in request.path]

    # --- handlers ---------------------------------------------------------------------------------

    def _authorised(self, handler: Any) -> Any:
        def check(request: Request) -> Reply:
            given = request.headers.get("authorization")
            if given is not None and (self.token is None or given != f"Bearer {self.token}"):
                return Reply.json(
                    {"message": "Bad credentials", "documentation_url": "https://docs.github.com/rest"}, 401
                )
            if given is None and request.path.endswith(("/zip", "/logs")):
                return Reply.json({"message": _SCOPE_MESSAGE}, 403)
            return handler(request)  # type: ignore[no-any-return]

        return check

    def _get_job(self, request: Request) -> Reply:
        job = self.jobs.get(int(_group(request)))
        return Reply.json(job) if job else _not_found()

    def _get_run(self, request: Request) -> Reply:
        run = self.runs.get(int(_group(request)))
        return Reply.json(run) if run else _not_found()

    def _get_run_attempt(self, request: Request) -> Reply:
        assert request.match is not None
        run_id, attempt = int(request.match[1]), int(request.match[2])
        run = self.runs.get(run_id)
        if run is not None and run["run_attempt"] == attempt:
            return Reply.json(run)
        earlier = self.earlier_attempts.get((run_id, attempt))
        return Reply.json(earlier) if earlier else _not_found()

    def _list_jobs(self, request: Request) -> Reply:
        run_id = int(_group(request))
        if run_id not in self.runs:
            return _not_found()
        latest = self.runs[run_id]["run_attempt"]
        jobs = [
            job
            for job in self.jobs.values()
            if job["run_id"] == run_id and (request.param("filter") == "all" or job["run_attempt"] == latest)
        ]
        return self._page(request, jobs, "jobs")

    def _list_artifacts(self, request: Request) -> Reply:
        run_id = int(_group(request))
        if run_id not in self.runs:
            return _not_found()
        return self._page(request, self.artifacts[run_id], "artifacts")

    def _list_workflow_runs(self, request: Request) -> Reply:
        workflow = _group(request)
        if workflow not in self.workflows:
            return _not_found()
        runs = [self.runs[run_id] for run_id in self.workflows[workflow]]
        branch, status = request.param("branch"), request.param("status")
        runs = [
            run
            for run in runs
            if (not branch or run["head_branch"] == branch) and (not status or run["conclusion"] == status)
        ]
        runs.sort(key=lambda run: run["created_at"], reverse=True)
        return self._page(request, runs, "workflow_runs")

    def _download_artifact(self, request: Request) -> Reply:
        artifact_id = int(_group(request))
        artifact = next(
            (a for items in self.artifacts.values() for a in items if a["id"] == artifact_id), None
        )
        if artifact is None:
            return _not_found()
        if artifact["expired"] or artifact_id in self.gone:
            return Reply.json({"message": "Artifact has expired"}, 410)
        return self._redirect(f"artifact-{artifact_id}.zip")

    def _download_log(self, request: Request) -> Reply:
        job_id = int(_group(request))
        if job_id not in self.logs:
            return _not_found()
        self.blobs[f"log-{job_id}.txt"] = self.logs[job_id].encode()
        return self._redirect(f"log-{job_id}.txt")

    def _redirect(self, blob: str) -> Reply:
        # GitHub answers 302 to a signed URL on another host, valid about a minute
        return Reply(status=302, headers={"Location": f"{self.storage.url}/blob/{blob}?{SIGNATURE}"})

    def _serve_blob(self, request: Request) -> Reply:
        if self.storage_gate is not None:
            self.storage_gate(request)
        if "authorization" in request.headers:  # as Azure blob storage answers a request with our token
            return Reply(
                status=403,
                body="<Error><Code>AuthenticationFailed</Code><Message>Server failed to authenticate the "
                "request. Make sure the value of Authorization header is formed correctly including the "
                "signature.</Message></Error>",
                headers={"Content-Type": "application/xml"},
            )
        if request.param("sig") != SIGNATURE_SECRET:
            return Reply(status=403, body="<Error><Code>AuthenticationFailed</Code></Error>")
        name = _group(request)
        if name in {f"artifact-{artifact_id}.zip" for artifact_id in self.looping}:
            return Reply(status=302, headers={"Location": f"/blob/{name}?{SIGNATURE}"})
        data = self.blobs.get(name)
        if data is None:
            return Reply(status=404, body="<Error><Code>BlobNotFound</Code></Error>")
        return Reply(body=data, headers={"Content-Type": "application/octet-stream"})

    def _list_comments(self, request: Request) -> Reply:
        return self._page(request, self.comments.get(int(_group(request)), []), None)

    def _create_comment(self, request: Request) -> Reply:
        number = int(_group(request))
        comment = reference("issues-create-comment.201.json")
        comment_id = next(self._ids)
        comment.update(
            id=comment_id,
            body=request.json()["body"],
            html_url=f"https://github.com/{self.repository}/issues/{number}#issuecomment-{comment_id}",
            issue_url=f"{self.api.url}/repos/{self.repository}/issues/{number}",
        )
        comment["user"]["login"] = "github-actions[bot]"
        self.comments.setdefault(number, []).append(comment)
        return Reply.json(comment, 201)

    def _update_comment(self, request: Request) -> Reply:
        comment_id = int(_group(request))
        for comment in itertools.chain.from_iterable(self.comments.values()):
            if comment["id"] == comment_id:
                comment["body"] = request.json()["body"]
                return Reply.json(comment)
        return _not_found()

    def _page(self, request: Request, items: list[dict[str, Any]], key: str | None) -> Reply:
        per_page = min(100, int(request.param("per_page", "30")))
        page = int(request.param("page", "1"))
        chunk = items[(page - 1) * per_page : page * per_page]
        last = max(1, -(-len(items) // per_page))
        links = []
        query = {name: values[0] for name, values in request.query.items() if name != "page"}
        if page < last:
            links.append(
                f'<{self.api.url}{request.path}?{urlencode({**query, "page": page + 1})}>; rel="next"'
            )
            links.append(f'<{self.api.url}{request.path}?{urlencode({**query, "page": last})}>; rel="last"')
        headers = {"Link": ", ".join(links)} if links else {}
        document: Any = chunk if key is None else {"total_count": len(items), key: chunk}
        return Reply.json(document, headers=headers)


def _group(request: Request) -> str:
    assert request.match is not None
    return request.match[1]


def _not_found() -> Reply:
    return Reply.json({"message": "Not Found", "documentation_url": "https://docs.github.com/rest"}, 404)


@contextmanager
def running_github(**options: Any) -> Iterator[FakeGitHub]:
    """A FakeGitHub with its API and storage servers started (on two ports), stopped afterwards."""
    api, storage = FakeServer().start(), FakeServer().start()
    try:
        yield FakeGitHub(api=api, storage=storage, **options)
    finally:
        try:
            api.stop()
        finally:
            storage.stop()
