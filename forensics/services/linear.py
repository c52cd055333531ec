"""Linear's GraphQL API, the three operations annotate needs: an issue's comments, commentCreate, commentUpdate.

Linear answers most failures inside the body (`errors[]`), with HTTP 200 or 400, and rate limits with
HTTP 400 and `extensions.code: RATELIMITED`; both become the usual ServiceError subclasses here.
Every query string is a module constant so a test can validate each one against Linear's public schema.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import requests

from forensics.errors import (
    AuthenticationError,
    NotFoundError,
    RateLimitedError,
    ServiceError,
)
from forensics.services.http import (
    HostCircuits,
    HttpClient,
    Notify,
    RetryPolicy,
    standard_rate_limit_wait,
    url_path,
)

DEFAULT_LINEAR_URL = "https://api.linear.app/graphql"
_MAX_PAGES = 100  # 10,000 comments on one issue is far beyond anything a person reads
_KEY_HINT = "check LINEAR_API_KEY: the key is missing, expired or revoked"

ISSUE_COMMENTS_QUERY = """
query IssueComments($id: String!, $after: String) {
  issue(id: $id) {
    id
    identifier
    url
    comments(first: 100, after: $after) {
      nodes { id body url createdAt }
      pageInfo { hasNextPage endCursor }
    }
  }
}
"""

COMMENT_CREATE_MUTATION = """
mutation CommentCreate($input: CommentCreateInput!) {
  commentCreate(input: $input) {
    success
    comment { id body url createdAt }
  }
}
"""

COMMENT_UPDATE_MUTATION = """
mutation CommentUpdate($id: String!, $input: CommentUpdateInput!) {
  commentUpdate(id: $id, input: $input) {
    success
    comment { id body url createdAt }
  }
}
"""

QUERIES = (ISSUE_COMMENTS_QUERY, COMMENT_CREATE_MUTATION, COMMENT_UPDATE_MUTATION)
"""Every document this client sends (a test validates each against schema.graphql)."""


@dataclass(frozen=True, slots=True)
class LinearComment:
    """A comment on a Linear issue."""

    id: str
    body: str
    url: str
    created_at: str


@dataclass(frozen=True, slots=True)
class LinearIssue:
    """A Linear issue with every one of its comments, oldest first."""

    id: str  # the UUID commentCreate needs
    identifier: str  # "OPS-4445"
    url: str
    comments: tuple[LinearComment, ...]


def authorization_for(api_key: str) -> str:
    """Personal API keys go in Authorization as they are; OAuth access tokens need `Bearer`."""
    return f"Bearer {api_key}" if api_key.startswith("lin_oauth_") else api_key


def linear_rate_limit_wait(
    response: requests.Response, *, now: Callable[[], float] = time.time
) -> float | None:
    """Seconds to wait when Linear says RATELIMITED (HTTP 400 or 429); its reset headers are epoch milliseconds."""
    if response.status_code not in (400, 429):
        return None
    if not _graphql_codes(response) & {"RATELIMITED", "ratelimited"}:
        return standard_rate_limit_wait(response, now=now) if response.status_code == 429 else None
    headers = response.headers
    resets = [
        headers.get(f"x-ratelimit-{kind}-reset", "")
        for kind in ("requests", "complexity")
        if headers.get(f"x-ratelimit-{kind}-remaining") == "0"
    ] or [headers.get("x-ratelimit-requests-reset", "")]
    waits = [max(0.0, int(reset) / 1000 - now()) for reset in resets if reset.isdigit()]
    if waits:
        return max(waits)
    retry_after = headers.get("retry-after", "")
    return float(retry_after) if retry_after.isdigit() else 60.0


@dataclass(slots=True, kw_only=True)
class LinearClient:
    """Linear's GraphQL endpoint with one API key; `close()` releases the connection pool."""

    api_key: str = field(repr=False)
    base_url: str = DEFAULT_LINEAR_URL
    timeout: float = 30.0
    notify: Notify | None = None
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    circuits: HostCircuits = field(default_factory=HostCircuits, repr=False)  # one per run, shared
    _http: HttpClient = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._http = HttpClient(
            base_url=self.base_url,
            service="Linear",
            headers={"Content-Type": "application/json", "Accept": "application/json"},
            auth_header=authorization_for(self.api_key),
            timeout=self.timeout,
            retry=self.retry,
            rate_limit_wait=linear_rate_limit_wait,
            notify=self.notify,
            explain=_explain,
            circuits=self.circuits,
        )

    def close(self) -> None:
        """Release pooled connections."""
        self._http.close()

    def issue_with_comments(self, identifier: str) -> LinearIssue:
        """The issue (`OPS-4445` or its UUID) and all its comments, following `pageInfo` cursors."""
        comments: list[LinearComment] = []
        after: str | None = None
        issue: Mapping[str, Any] = {}
        for _ in range(_MAX_PAGES):
            data = self._execute(
                ISSUE_COMMENTS_QUERY, {"id": identifier, "after": after}, what=f"issue {identifier}"
            )
            issue = data.get("issue") or {}
            if not issue:
                raise NotFoundError(
                    f"Linear has no issue {identifier}",
                    hint="check the identifier and that the API key's user can see its team",
                )
            page = issue.get("comments") or {}
            comments.extend(_comment(node) for node in page.get("nodes") or ())
            info = page.get("pageInfo") or {}
            after = info.get("endCursor")
            if not info.get("hasNextPage") or not after:
                break
        return LinearIssue(
            id=str(issue.get("id", "")),
            identifier=str(issue.get("identifier", identifier)),
            url=str(issue.get("url", "")),
            comments=tuple(sorted(comments, key=lambda comment: comment.created_at)),
        )

    def create_comment(self, issue_id: str, body: str, *, comment_id: str) -> LinearComment:
        """Add a comment; `comment_id` (a UUID chosen by us) makes a retried create unable to post twice."""
        data = self._execute(
            COMMENT_CREATE_MUTATION,
            {"input": {"issueId": issue_id, "body": body, "id": comment_id}},
            what=f"a new comment on issue {issue_id}",
        )
        return _payload_comment(data.get("commentCreate"), what=f"the new comment on issue {issue_id}")

    def update_comment(self, comment_id: str, body: str) -> LinearComment:
        """Replace a comment's body."""
        data = self._execute(
            COMMENT_UPDATE_MUTATION, {"id": comment_id, "input": {"body": body}}, what=f"comment {comment_id}"
        )
        return _payload_comment(data.get("commentUpdate"), what=f"comment {comment_id}")

    def _execute(self, query: str, variables: Mapping[str, Any], *, what: str) -> Mapping[str, Any]:
        response = self._http.request(
            "POST", self.base_url, what=what, json={"query": query, "variables": variables}, ok=(200,)
        )
        try:
            document = response.json()
        except ValueError as err:
            raise ServiceError(
                f"Linear sent something that is not JSON for {what}",
                hint="check that the Linear URL points at the GraphQL endpoint",
            ) from err
        if not isinstance(document, dict):
            raise ServiceError(f"Linear sent an unexpected answer for {what}")
        errors = document.get("errors")
        if errors:
            raise graphql_error(errors, what=what, status=response.status_code)
        data = document.get("data")
        if not isinstance(data, dict):
            raise ServiceError(f"Linear sent no data for {what}")
        return data


def graphql_error(errors: Any, *, what: str, status: int | None) -> ServiceError:
    """The ServiceError subclass for Linear's first GraphQL error (its `code`/`type` decide)."""
    first: dict[str, Any] = (
        errors[0] if isinstance(errors, list) and errors and isinstance(errors[0], dict) else {}
    )
    raw_extensions = first.get("extensions")
    extensions: dict[str, Any] = raw_extensions if isinstance(raw_extensions, dict) else {}
    message = str(extensions.get("userPresentableMessage") or first.get("message") or "unknown error")[:300]
    kind = f"{extensions.get('code', '')} {extensions.get('type', '')}".lower()
    if "ratelimited" in kind:
        return RateLimitedError(
            f"Linear rate limit reached for {what}: {message}",
            hint="retry later; Linear's limits are per API key",
            status=status,
        )
    if "authentication" in kind:
        return AuthenticationError(
            f"Linear refused the API key for {what}: {message}",
            hint=_KEY_HINT,
            status=status,
        )
    if "forbidden" in kind or "feature not accessible" in kind:
        return AuthenticationError(
            f"Linear forbids {what}: {message}",
            hint="the user of LINEAR_API_KEY lacks access to this team or issue",
            status=status,
        )
    if str(first.get("message", "")).startswith("Entity not found"):
        return NotFoundError(
            f"Linear has no {what}: {message}",
            hint="check the identifier and that the API key's user can see its team",
            status=status,
        )
    return ServiceError(f"Linear refused {what}: {message}", status=status)


def _explain(response: requests.Response, what: str) -> ServiceError | None:
    """Linear's refusals carry GraphQL `errors[]` even with HTTP 400; read them rather than the status.

    Without them, a 401/403 is the key and a 404 is the endpoint (every request goes to one URL).
    """
    status = response.status_code
    errors = _errors_of(response)
    if errors:
        return graphql_error(errors, what=what, status=status)
    if status in (401, 403):
        return AuthenticationError(
            f"Linear refused the API key for {what} (HTTP {status})", hint=_KEY_HINT, status=status
        )
    if status == 404:
        return NotFoundError(
            f"Linear has no GraphQL endpoint at {url_path(response.url)} (asked for {what})",
            hint=f"check LINEAR_API_URL: it should be {DEFAULT_LINEAR_URL}, or unset",
            status=status,
        )
    return None


def _errors_of(response: requests.Response) -> list[Any]:
    try:
        document = response.json()
    except ValueError:
        return []
    errors = document.get("errors") if isinstance(document, dict) else None
    return errors if isinstance(errors, list) else []


def _graphql_codes(response: requests.Response) -> set[str]:
    codes: set[str] = set()
    for error in _errors_of(response):
        extensions = error.get("extensions") if isinstance(error, dict) else None
        if isinstance(extensions, dict):
            codes.update(str(extensions.get(name, "")) for name in ("code", "type"))
    return codes


def _comment(node: Mapping[str, Any]) -> LinearComment:
    return LinearComment(
        id=str(node.get("id", "")),
        body=str(node.get("body") or ""),
        url=str(node.get("url") or ""),
        created_at=str(node.get("createdAt") or ""),
    )


def _payload_comment(payload: Any, *, what: str) -> LinearComment:
    if (
        not isinstance(payload, dict)
        or not payload.get("success")
        or not isinstance(payload.get("comment"), dict)
    ):
        raise ServiceError(
            f"Linear did not save {what}", hint="retry; if it persists check Linear's status page"
        )
    return _comment(payload["comment"])
