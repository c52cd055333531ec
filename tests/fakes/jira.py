"""A fake Jira Cloud REST v3 (issue comments) on 127.0.0.1: Basic auth, startAt/maxResults pages, ADF bodies.

Bodies must be well-formed ADF (the node and mark types the composer uses, no empty text nodes) and
under Jira's 32,767-character limit, or the fake answers 400 as Jira does. Missing issues answer 404 with
Jira's `errorMessages`; faults (429 with Retry-After, 500, an answer lost after the write — a dropped
connection or a proxy's 502) are scriptable.
"""

from __future__ import annotations

import base64
import itertools
import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from tests.fakes.server import FakeServer, Reply, Request, answer_created

EMAIL = "ci-bot@example.com"
API_TOKEN = "ATATT3xFfGF0FakeJiraTokenForTests0123456789"
MAX_BODY = 32_767
_BLOCKS = {"paragraph", "heading", "bulletList", "orderedList", "listItem", "codeBlock", "rule", "blockquote"}
_INLINE = {"text", "hardBreak", "mention", "emoji", "inlineCard"}
_MARKS = {"strong", "em", "code", "link", "strike", "underline", "textColor", "subsup"}


def adf_problems(node: Any, path: str = "body") -> list[str]:
    """What makes a document invalid ADF, as far as the composer's subset goes ([] when it is valid)."""
    if not isinstance(node, dict) or "type" not in node:
        return [f"{path}: not a node"]
    kind = node["type"]
    if path == "body":
        if kind != "doc" or node.get("version") != 1 or not isinstance(node.get("content"), list):
            return ["body: not an ADF doc of version 1"]
    elif kind not in _BLOCKS | _INLINE:
        return [f"{path}: unknown node type {kind!r}"]
    problems: list[str] = []
    if kind == "text":
        if not node.get("text"):
            problems.append(f"{path}: empty text node")
        marks = [mark.get("type") for mark in node.get("marks", [])]
        problems += [f"{path}: unknown mark {mark!r}" for mark in marks if mark not in _MARKS]
        if "code" in marks and set(marks) - {"code", "link"}:
            problems.append(f"{path}: code mark combined with {marks}")
    if kind == "heading" and node.get("attrs", {}).get("level") not in range(1, 7):
        problems.append(f"{path}: heading without a level 1-6")
    for index, child in enumerate(node.get("content", [])):
        problems += adf_problems(child, f"{path}.{kind}[{index}]")
    return problems


@dataclass
class FakeJira:
    """Issues by key, each with comments (ADF bodies), served like a Jira Cloud site."""

    server: FakeServer
    email: str = EMAIL
    api_token: str = API_TOKEN
    page_cap: int = 100
    issues: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    forbidden: set[str] = field(default_factory=set)  # issue keys this account may read but not comment on
    drop_create_answers: int = 0  # the next N creates write, then the connection drops before the answer
    outage_after_lost_answer: int = 0  # then this many requests answer 503 (the run gives up: a crash)
    create_faults: list[Reply] = field(default_factory=list)  # answers for the next creates, in order
    answers_after_write: list[Reply] = field(
        default_factory=list
    )  # the next creates write, then answer these
    _ids: Iterator[int] = field(default_factory=lambda: itertools.count(10_001))

    def __post_init__(self) -> None:
        base = r"/rest/api/3/issue/([A-Z][A-Z0-9_]*-\d+)/comment"
        self.server.route("GET", base, self._authorised(self._list))
        self.server.route("POST", base, self._authorised(self._add))
        self.server.route("PUT", rf"{base}/(\d+)", self._authorised(self._update))

    @property
    def url(self) -> str:
        return self.server.url

    def add_issue(self, key: str, comments: tuple[str, ...] = ()) -> None:
        self.issues[key] = []
        for text in comments:
            self._store(key, _paragraph_document(text))

    def comments_of(self, key: str) -> list[dict[str, Any]]:
        return list(self.issues[key])

    def add_comment(
        self, key: str, document: dict[str, Any], *, author: str = "Ada Lovelace"
    ) -> dict[str, Any]:
        """A comment written by a person, its body an ADF document (not checked: people use the editor)."""
        return self._store(key, document, author=author)

    def delete_comment(self, key: str, comment_id: str) -> None:
        self.issues[key] = [comment for comment in self.issues[key] if comment["id"] != comment_id]

    def writes(self) -> list[Request]:
        return [request for request in self.server.requests if request.method in ("POST", "PUT")]

    def fail_next(self, status: int = 500, times: int = 1, headers: dict[str, str] | None = None) -> None:
        body = {"errorMessages": ["Internal server error"], "errors": {}}
        self.server.fail_next(
            "/rest/api/3/issue/", Reply.json(body, status=status, headers=headers), times=times
        )

    def rate_limit_next(self, *, retry_after: int = 0, times: int = 1) -> None:
        self.server.fail_next(
            "/rest/api/3/issue/",
            Reply(status=429, body="Rate limit exceeded.", headers={"Retry-After": str(retry_after)}),
            times=times,
        )

    # --- handlers ---------------------------------------------------------------------------------

    def _authorised(self, handler: Any) -> Any:
        expected = "Basic " + base64.b64encode(f"{self.email}:{self.api_token}".encode()).decode()

        def check(request: Request) -> Reply:
            if request.headers.get("authorization") != expected:
                return Reply.json(
                    {
                        "errorMessages": [
                            "You are not authenticated. Authentication required to perform this operation."
                        ]
                    },
                    status=401,
                )
            assert request.match is not None
            if request.match[1] not in self.issues:
                return Reply.json(
                    {
                        "errorMessages": ["Issue does not exist or you do not have permission to see it."],
                        "errors": {},
                    },
                    status=404,
                )
            return handler(request)  # type: ignore[no-any-return]

        return check

    def _list(self, request: Request) -> Reply:
        assert request.match is not None
        comments = self.issues[request.match[1]]
        start = int(request.param("startAt", "0"))
        size = min(int(request.param("maxResults", "50")), self.page_cap)
        page = comments[start : start + size]
        return Reply.json({"startAt": start, "maxResults": size, "total": len(comments), "comments": page})

    def _add(self, request: Request) -> Reply:
        assert request.match is not None
        key = request.match[1]
        if self.create_faults:
            return self.create_faults.pop(0)
        if key in self.forbidden:
            return Reply.json(
                {"errorMessages": ["You do not have the permission to comment on this issue."], "errors": {}},
                status=403,
            )
        refused = self._refuse(request)
        if refused is not None:
            return refused
        comment = self._store(key, request.json()["body"])
        return answer_created(self, comment, outage_prefix="/rest/api/3/issue/")

    def _update(self, request: Request) -> Reply:
        assert request.match is not None
        key, comment_id = request.match[1], request.match[2]
        refused = self._refuse(request)
        if refused is not None:
            return refused
        for comment in self.issues[key]:
            if comment["id"] == comment_id:
                comment["body"] = request.json()["body"]
                comment["updated"] = "2026-04-22T08:00:00.000+0000"
                return Reply.json(comment)
        return Reply.json({"errorMessages": ["Can not find a comment for the id."], "errors": {}}, status=404)

    def _refuse(self, request: Request) -> Reply | None:
        body = request.json().get("body")
        problems = adf_problems(body)
        if problems:
            return Reply.json(
                {"errorMessages": [], "errors": {"comment": "; ".join(problems[:3])}}, status=400
            )
        if len(json.dumps(body)) > MAX_BODY:
            return Reply.json(
                {
                    "errorMessages": [],
                    "errors": {
                        "comment": "The entered text is too long. It exceeds the allowed limit of 32,767 characters."
                    },
                },
                status=400,
            )
        return None

    def _store(self, key: str, document: Any, *, author: str = "ci-forensics bot") -> dict[str, Any]:
        comment_id = str(next(self._ids))
        comment = {
            "self": f"{self.server.url}/rest/api/3/issue/{key}/comment/{comment_id}",
            "id": comment_id,
            "author": {
                "accountId": "5b10a2844c20165700ede21g",
                "displayName": author,
                "active": True,
            },
            "body": document,
            "created": f"2026-04-21T08:00:{int(comment_id) % 60:02d}.000+0000",
            "updated": f"2026-04-21T08:00:{int(comment_id) % 60:02d}.000+0000",
            "jsdPublic": True,
        }
        self.issues[key].append(comment)
        return comment


def _paragraph_document(text: str) -> dict[str, Any]:
    return {
        "type": "doc",
        "version": 1,
        "content": [{"type": "paragraph", "content": [{"type": "text", "text": text}]}],
    }


@contextmanager
def running_jira(**options: Any) -> Iterator[FakeJira]:
    """A FakeJira on a started server, stopped afterwards."""
    server = FakeServer().start()
    try:
        yield FakeJira(server=server, **options)
    finally:
        server.stop()
