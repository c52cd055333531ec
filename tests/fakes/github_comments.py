"""A fake of GitHub's issue-comment endpoints on 127.0.0.1, for any number of repositories.

Payloads come from GitHub's own examples (tests/data/github-api/issues-*.json); lists are
paginated with `Link` headers (`per_page` capped so a few comments make several pages); unknown issues
answer 404, bodies over 65,536 characters 422, a read-only repository 403, as GitHub does. An answer can
be lost after the write (the connection drops, or a proxy answers 502), as in a crash between create and
record.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from tests.fakes.server import FakeServer, Reply, Request, answer_created

REFERENCE_API = Path(__file__).resolve().parents[1] / "data" / "github-api"
TOKEN = "ghp_FakeCommentsTokenForTests0123456789ab"
MAX_BODY = 65_536
_REPOSITORY = r"([\w.-]+/[\w.-]+)"


def reference(name: str) -> Any:
    """One of GitHub's example payloads."""
    return json.loads((REFERENCE_API / name).read_text())


@dataclass
class FakeGitHubComments:
    """Issues and pull requests by (`owner/repo` lower-cased, number), each with its comments."""

    server: FakeServer
    token: str = TOKEN
    page_cap: int = 100
    issues: dict[tuple[str, int], list[dict[str, Any]]] = field(default_factory=dict)
    read_only: set[str] = field(default_factory=set)  # repositories where the token may not write
    drop_create_answers: int = 0  # the next N creates write, then the connection drops before the answer
    outage_after_lost_answer: int = 0  # then this many requests answer 503 (the run gives up: a crash)
    create_faults: list[Reply] = field(default_factory=list)  # answers for the next creates, in order
    answers_after_write: list[Reply] = field(
        default_factory=list
    )  # the next creates write, then answer these
    _ids: Iterator[int] = field(default_factory=lambda: itertools.count(1_900_000_001))

    def __post_init__(self) -> None:
        routes = [
            ("GET", rf"/repos/{_REPOSITORY}/issues/(\d+)/comments", self._list),
            ("POST", rf"/repos/{_REPOSITORY}/issues/(\d+)/comments", self._create),
            ("PATCH", rf"/repos/{_REPOSITORY}/issues/comments/(\d+)", self._update),
        ]
        for method, pattern, handler in routes:
            self.server.route(method, pattern, self._authorised(handler))

    @property
    def url(self) -> str:
        return self.server.url

    def add_issue(self, repository: str, number: int, comments: tuple[str, ...] = ()) -> None:
        self.issues[(repository.lower(), number)] = []
        for body in comments:
            self._store(repository, number, body, login="octocat")

    def comments_of(self, repository: str, number: int) -> list[dict[str, Any]]:
        return list(self.issues[(repository.lower(), number)])

    def add_comment(
        self, repository: str, number: int, body: str, *, login: str = "octocat"
    ) -> dict[str, Any]:
        """A comment written by a person (or any account), as the API would store it."""
        return self._store(repository, number, body, login=login)

    def delete_comment(self, repository: str, number: int, comment_id: int) -> None:
        comments = self.issues[(repository.lower(), number)]
        comments[:] = [comment for comment in comments if comment["id"] != comment_id]

    def writes(self) -> list[Request]:
        return [request for request in self.server.requests if request.method in ("POST", "PATCH")]

    def fail_next(self, status: int = 500, times: int = 1, headers: dict[str, str] | None = None) -> None:
        body = {"message": "Server Error"} if status >= 500 else {"message": "API rate limit exceeded"}
        self.server.fail_next("/repos/", Reply.json(body, status=status, headers=headers), times=times)

    # --- handlers ---------------------------------------------------------------------------------

    def _authorised(self, handler: Any) -> Any:
        def check(request: Request) -> Reply:
            if request.headers.get("authorization") != f"Bearer {self.token}":
                return Reply.json({"message": "Bad credentials", "documentation_url": _DOCS}, status=401)
            return handler(request)  # type: ignore[no-any-return]

        return check

    def _list(self, request: Request) -> Reply:
        key = _key(request)
        if key not in self.issues:
            return _not_found()
        comments = self.issues[key]
        per_page = min(int(request.param("per_page", "30")), self.page_cap)
        page = int(request.param("page", "1"))
        last = max(1, -(-len(comments) // per_page))
        links = []
        query = {name: values[0] for name, values in request.query.items() if name != "page"}
        if page < last:
            links.append(f'<{self.url}{request.path}?{urlencode({**query, "page": page + 1})}>; rel="next"')
            links.append(f'<{self.url}{request.path}?{urlencode({**query, "page": last})}>; rel="last"')
        headers = {"Link": ", ".join(links)} if links else {}
        return Reply.json(comments[(page - 1) * per_page : page * per_page], headers=headers)

    def _create(self, request: Request) -> Reply:
        key = _key(request)
        if key not in self.issues:
            return _not_found()
        if self.create_faults:
            return self.create_faults.pop(0)
        if key[0] in self.read_only:
            return Reply.json(
                {"message": "Resource not accessible by integration", "documentation_url": _DOCS}, 403
            )
        body = request.json()["body"]
        if len(body) > MAX_BODY:
            return _too_long()
        comment = self._store(key[0], key[1], body, login="github-actions[bot]")
        return answer_created(self, comment, outage_prefix="/repos/")

    def _update(self, request: Request) -> Reply:
        assert request.match is not None
        repository, comment_id = request.match[1].lower(), int(request.match[2])
        body = request.json()["body"]
        if len(body) > MAX_BODY:
            return _too_long()
        for (owner_repo, _), comments in self.issues.items():
            for comment in comments:
                if owner_repo == repository and comment["id"] == comment_id:
                    comment["body"] = body
                    comment["updated_at"] = "2026-04-22T08:00:00Z"
                    return Reply.json(comment)
        return _not_found()

    def _store(self, repository: str, number: int, body: str, *, login: str) -> dict[str, Any]:
        comment = reference("issues-create-comment.201.json")
        comment_id = next(self._ids)
        comment.update(
            id=comment_id,
            node_id=f"IC_{comment_id}",
            body=body,
            url=f"{self.url}/repos/{repository}/issues/comments/{comment_id}",
            html_url=f"https://github.com/{repository}/issues/{number}#issuecomment-{comment_id}",
            issue_url=f"{self.url}/repos/{repository}/issues/{number}",
        )
        comment["user"]["login"] = login
        self.issues[(repository.lower(), number)].append(comment)
        return comment


_DOCS = "https://docs.github.com/rest"


def _key(request: Request) -> tuple[str, int]:
    assert request.match is not None
    return request.match[1].lower(), int(request.match[2])


def _not_found() -> Reply:
    return Reply.json({"message": "Not Found", "documentation_url": _DOCS}, status=404)


def _too_long() -> Reply:
    error = {
        "resource": "IssueComment",
        "code": "custom",
        "field": "body",
        "message": "body is too long (maximum is 65536 characters)",
    }
    return Reply.json(
        {"message": "Validation Failed", "errors": [error], "documentation_url": _DOCS}, status=422
    )


@contextmanager
def running_github_comments(**options: Any) -> Iterator[FakeGitHubComments]:
    """A FakeGitHubComments on a started server, stopped afterwards."""
    server = FakeServer().start()
    try:
        yield FakeGitHubComments(server=server, **options)
    finally:
        server.stop()
