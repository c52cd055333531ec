"""A fake Linear GraphQL API on 127.0.0.1 that validates and executes every query against the real schema.

graphql-core builds Linear's public schema (tests/data/linear/schema.graphql) and runs each
request with resolvers over an in-memory store of issues and comments, so a query or mutation that
the real API would reject fails here too. Errors are shaped as Linear sends them (`errors[]` with
`extensions.code`/`type`, in HTTP 200 or 400); rate limits and 500s can be scripted, and so can a
connection that drops after the write, before the answer.
"""

from __future__ import annotations

import functools
import itertools
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from graphql import GraphQLError, GraphQLSchema, build_schema, graphql_sync, parse, validate

from tests.fakes.server import FakeServer, Reply, Request

SCHEMA_PATH = Path(__file__).resolve().parents[1] / "data" / "linear" / "schema.graphql"
API_KEY = "lin_api_FakeLinearKeyForTests0123456789abcdef"
PATH = "/graphql"


@functools.cache
def linear_schema() -> GraphQLSchema:
    """Linear's public schema, built once per test session."""
    return build_schema(SCHEMA_PATH.read_text(encoding="utf-8"))


def _error(message: str, code: str, kind: str, status: int, presentable: str = "") -> dict[str, Any]:
    return {
        "message": message,
        "extensions": {
            "code": code,
            "type": kind,
            "statusCode": status,
            "userError": status < 500,
            "userPresentableMessage": presentable or message,
        },
    }


@dataclass
class FakeLinear:
    """Issues by identifier, each with comments; `operations` lists the operation names executed."""

    server: FakeServer
    api_key: str = API_KEY
    max_page_size: int = 250
    issues: dict[str, dict[str, Any]] = field(default_factory=dict)
    operations: list[str] = field(default_factory=list)
    invalid_queries: list[str] = field(default_factory=list)
    drop_create_answers: int = 0  # the next N creates write, then the connection drops before the answer
    outage_after_lost_answer: int = 0  # then this many requests answer 503 (the run gives up: a crash)
    _clock: Iterator[int] = field(default_factory=lambda: itertools.count(1))
    _dropping: bool = False

    def __post_init__(self) -> None:
        self.server.route("POST", PATH, self._handle)

    @property
    def url(self) -> str:
        return f"{self.server.url}{PATH}"

    def add_issue(self, identifier: str, comments: tuple[str, ...] = ()) -> dict[str, Any]:
        """An issue (`OPS-4445`) with comments written by people, oldest first."""
        issue = {
            "id": str(uuid.uuid4()),
            "identifier": identifier,
            "title": f"Issue {identifier}",
            "url": f"https://linear.app/nvidia/issue/{identifier}",
            "comments": [],
        }
        self.issues[identifier] = issue
        for body in comments:
            self._add_comment(issue, str(uuid.uuid4()), body)
        return issue

    def comments_of(self, identifier: str) -> list[dict[str, Any]]:
        return list(self.issues[identifier]["comments"])

    def add_comment(self, identifier: str, body: str) -> dict[str, Any]:
        """A comment written by a person, after those already on the issue."""
        return self._add_comment(self.issues[identifier], str(uuid.uuid4()), body)

    def delete_comment(self, identifier: str, comment_id: str) -> None:
        issue = self.issues[identifier]
        issue["comments"] = [comment for comment in issue["comments"] if comment["id"] != comment_id]

    def writes(self) -> list[str]:
        return [name for name in self.operations if name in ("commentCreate", "commentUpdate")]

    def rate_limit_next(self, *, reset_in_ms: int = 0, times: int = 1, status: int = 400) -> None:
        """The next requests answer RATELIMITED as Linear does: HTTP 400, reset header in epoch ms."""
        reset = int(time.time() * 1000) + reset_in_ms
        body = {"errors": [_error("Rate limit exceeded", "RATELIMITED", "ratelimited", 429)]}
        headers = {
            "X-RateLimit-Requests-Limit": "1500",
            "X-RateLimit-Requests-Remaining": "0",
            "X-RateLimit-Requests-Reset": str(reset),
        }
        self.server.fail_next(PATH, Reply.json(body, status=status, headers=headers), times=times)

    def fail_next(self, status: int = 500, times: int = 1) -> None:
        self.server.fail_next(PATH, Reply(status=status, body="upstream error"), times=times)

    # --- the endpoint ---------------------------------------------------------------------------

    def _handle(self, request: Request) -> Reply:
        given = request.headers.get("authorization", "")
        if given != self.api_key:  # a personal key goes in as it is: "Bearer lin_api_…" is refused
            error = _error(
                "Authentication required, not authenticated",
                "AUTHENTICATION_ERROR",
                "authentication error",
                401,
                "You need to authenticate to access this operation.",
            )
            return Reply.json({"errors": [error]}, status=400)
        payload = request.json()
        query, variables = payload.get("query", ""), payload.get("variables") or {}
        problems = validate(linear_schema(), parse(query))
        if problems:
            self.invalid_queries.append(query)
            return Reply.json({"errors": [problem.formatted for problem in problems]}, status=400)
        result = graphql_sync(linear_schema(), query, root_value=self, variable_values=variables)
        document: dict[str, Any] = {"data": result.data}
        if result.errors:
            document["errors"] = [error.formatted for error in result.errors]
        reply = Reply.json(document)
        if self._dropping:  # written, and now the answer is lost: a crash between create and record
            self._dropping = False
            self._outage()
            return Reply(status=reply.status, body=reply.body, headers=reply.headers, drop_after=0)
        return reply

    def _outage(self) -> None:
        if self.outage_after_lost_answer:
            self.server.fail_next(
                PATH, Reply(status=503, body="unavailable"), times=self.outage_after_lost_answer
            )

    # --- resolvers (graphql-core calls attributes of the root value with info and the arguments) ----

    def issue(self, _info: Any, id: str) -> dict[str, Any]:
        self.operations.append("issue")
        issue = self._issue(id)
        return {**issue, "comments": functools.partial(self._comments_page, issue)}

    def commentCreate(self, _info: Any, input: dict[str, Any]) -> dict[str, Any]:
        self.operations.append("commentCreate")
        issue = next((i for i in self.issues.values() if i["id"] == input.get("issueId")), None)
        if issue is None:  # the API wants the issue's UUID here, not its identifier
            raise GraphQLError(
                **_graphql_error("Entity not found: Issue", "Could not find referenced Issue.")
            )
        comment_id = input.get("id") or str(uuid.uuid4())
        uuid.UUID(comment_id)
        if any(c["id"] == comment_id for i in self.issues.values() for c in i["comments"]):
            raise GraphQLError(
                **_graphql_error("Entity already exists: Comment", "The comment already exists.")
            )
        comment = self._add_comment(issue, comment_id, input.get("body") or "")
        if self.drop_create_answers:
            self.drop_create_answers -= 1
            self._dropping = True
        return {"success": True, "lastSyncId": float(next(self._clock)), "comment": comment}

    def commentUpdate(self, _info: Any, id: str, input: dict[str, Any]) -> dict[str, Any]:
        self.operations.append("commentUpdate")
        for issue in self.issues.values():
            for comment in issue["comments"]:
                if comment["id"] == id:
                    comment["body"] = input.get("body", comment["body"])
                    comment["updatedAt"] = _timestamp(next(self._clock))
                    return {"success": True, "lastSyncId": float(next(self._clock)), "comment": comment}
        raise GraphQLError(
            **_graphql_error("Entity not found: Comment", "Could not find referenced Comment.")
        )

    def _issue(self, id_or_identifier: str) -> dict[str, Any]:
        for issue in self.issues.values():
            if id_or_identifier in (issue["id"], issue["identifier"]):
                return issue
        raise GraphQLError(**_graphql_error("Entity not found: Issue", "Could not find referenced Issue."))

    def _comments_page(
        self, issue: dict[str, Any], _info: Any, first: int | None = None, after: str | None = None, **_: Any
    ) -> dict[str, Any]:
        comments = issue["comments"]
        start = next((index + 1 for index, c in enumerate(comments) if c["id"] == after), 0) if after else 0
        size = min(first or 50, self.max_page_size)
        page = comments[start : start + size]
        return {
            "nodes": page,
            "pageInfo": {
                "hasNextPage": start + size < len(comments),
                "hasPreviousPage": start > 0,
                "startCursor": page[0]["id"] if page else None,
                "endCursor": page[-1]["id"] if page else None,
            },
        }

    def _add_comment(self, issue: dict[str, Any], comment_id: str, body: str) -> dict[str, Any]:
        moment = _timestamp(next(self._clock))
        comment = {
            "id": comment_id,
            "body": body,
            "url": f"{issue['url']}#comment-{comment_id[:8]}",
            "createdAt": moment,
            "updatedAt": moment,
        }
        issue["comments"].append(comment)
        return comment


def _graphql_error(message: str, presentable: str) -> dict[str, Any]:
    extensions = _error(message, "INPUT_ERROR", "invalid input", 400, presentable)["extensions"]
    return {"message": message, "extensions": extensions}


def _timestamp(tick: int) -> str:
    return f"2026-04-21T08:{tick // 60 % 60:02d}:{tick % 60:02d}.000Z"


@contextmanager
def running_linear(**options: Any) -> Iterator[FakeLinear]:
    """A FakeLinear on a started server, stopped afterwards."""
    server = FakeServer().start()
    try:
        yield FakeLinear(server=server, **options)
    finally:
        server.stop()
