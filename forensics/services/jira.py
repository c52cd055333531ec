"""Jira Cloud REST v3 issue comments: list (paginated with startAt/maxResults), add, update.

Bodies are Atlassian Document Format (ADF) documents. Comments come back as plain text (every text node
of their ADF joined) and the text of their last top-level paragraph, which is where the tool's marker
sits (a person's quote of it sits in a `blockquote` node instead). Refusals are worded for Jira: which
issue, which permission, which setting to check.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, unquote

import regex
import requests

from forensics.errors import AuthenticationError, NotFoundError, ServiceError
from forensics.services.http import HostCircuits, HttpClient, Notify, RetryPolicy, response_detail, url_path

_PAGE_SIZE = 100
_MAX_PAGES = 100
_COMMENTS_PATH = regex.compile(r"/rest/api/3/issue/(?P<key>[^/]+)/comment(?:/(?P<comment>[^/]+))?/?$")
_CREDENTIALS_HINT = (
    "check JIRA_EMAIL and JIRA_API_TOKEN: the API token is missing, expired or revoked, "
    "or belongs to another account than the email"
)
# The project permission each request needs (Jira Cloud's names, as its permission schemes show them)
_PERMISSIONS = {"GET": "Browse projects", "POST": "Add comments", "PUT": "Edit own comments"}


@dataclass(frozen=True, slots=True)
class JiraComment:
    """A comment on a Jira issue, its ADF body flattened to text."""

    id: str
    text: str
    url: str
    created: str
    last_paragraph: str = ""  # the text of the body's last top-level block when it is a paragraph


@dataclass(slots=True, kw_only=True)
class JiraClient:
    """A Jira Cloud site with Basic auth (account email and API token); `close()` releases connections."""

    base_url: str
    email: str
    api_token: str = field(repr=False)
    timeout: float = 30.0
    notify: Notify | None = None
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    circuits: HostCircuits = field(default_factory=HostCircuits, repr=False)  # one per run, shared
    http: HttpClient = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.base_url = self.base_url.rstrip("/")
        credentials = base64.b64encode(f"{self.email}:{self.api_token}".encode()).decode("ascii")
        self.http = HttpClient(
            base_url=self.base_url,
            service="Jira",
            headers={"Accept": "application/json"},
            auth_header=f"Basic {credentials}",
            timeout=self.timeout,
            retry=self.retry,
            notify=self.notify,
            explain=explain_refusal,
            circuits=self.circuits,
        )

    def close(self) -> None:
        """Release pooled connections."""
        self.http.close()

    def comment_url(self, key: str, comment_id: str) -> str:
        """The browser link of one comment."""
        return f"{self.base_url}/browse/{quote(key)}?focusedCommentId={quote(comment_id)}"

    def list_comments(self, key: str) -> Iterator[JiraComment]:
        """Every comment of the issue, oldest first."""
        start = 0
        for _ in range(_MAX_PAGES):
            document = self.http.get_json(
                self._comments_path(key),
                what=f"the comments of issue {key}",
                params={"startAt": start, "maxResults": _PAGE_SIZE, "orderBy": "created"},
            )
            comments = document.get("comments") if isinstance(document, dict) else None
            if not isinstance(comments, list) or not comments:
                return
            for item in comments:
                yield self._comment(key, item)
            start += len(comments)
            total = document.get("total")
            if isinstance(total, int) and start >= total:
                return

    def add_comment(self, key: str, document: Mapping[str, Any]) -> JiraComment:
        """Add a comment whose body is the ADF `document`.

        Not idempotent, and `http` resends after a 5xx or a lost answer: a caller that must not post twice
        sends it through a twin of `http` that sends once (`JiraCommentSink` does, with `sinks.once`).
        """
        what = f"a new comment on issue {key}"
        response = self.http.request("POST", self._comments_path(key), what=what, json={"body": document})
        return self._comment(key, _json(response.json, what=f"the new comment on issue {key}"))

    def update_comment(self, key: str, comment_id: str, document: Mapping[str, Any]) -> JiraComment:
        """Replace a comment's body with the ADF `document`."""
        response = self.http.request(
            "PUT",
            f"{self._comments_path(key)}/{quote(comment_id)}",
            what=f"comment {comment_id} of issue {key}",
            json={"body": document},
        )
        return self._comment(key, _json(response.json, what=f"comment {comment_id} of issue {key}"))

    def _comments_path(self, key: str) -> str:
        return f"rest/api/3/issue/{quote(key, safe='')}/comment"

    def _comment(self, key: str, item: Any) -> JiraComment:
        if not isinstance(item, dict) or "id" not in item:
            raise ServiceError(f"Jira sent a comment of issue {key} without an id")
        comment_id = str(item["id"])
        return JiraComment(
            id=comment_id,
            text=adf_text(item.get("body")),
            url=self.comment_url(key, comment_id),
            created=str(item.get("created") or ""),
            last_paragraph=last_paragraph_text(item.get("body")),
        )


def explain_refusal(response: requests.Response, what: str) -> ServiceError | None:
    """Jira's wording for a refused comment request: the issue, the permission, the settings to check."""
    status = response.status_code
    if status not in (401, 403, 404):
        return None
    path = url_path(response.url)
    found = _COMMENTS_PATH.search(path)
    key = unquote(found["key"]) if found else ""
    comment = found["comment"] if found else None
    detail = _detail(response)
    if status == 401:
        return AuthenticationError(
            f"Jira refused the credentials for {what}: {detail}", hint=_CREDENTIALS_HINT, status=status
        )
    project = f"project {key.rpartition('-')[0]}" if "-" in key else "the project"
    if status == 403:
        permission = _PERMISSIONS.get(response.request.method or "GET", "Add comments")
        return AuthenticationError(
            f"Jira forbids {what}: {detail}",
            hint=f'the Jira account (JIRA_EMAIL) lacks the "{permission}" permission on {project}: '
            "ask a Jira admin to grant it, or use an account that has it",
            status=status,
        )
    if comment is not None:
        return NotFoundError(
            f"Jira has no comment {comment} on issue {key} (or this account cannot see it)",
            hint="it was deleted after this run found it: the next run posts a new one",
            status=status,
        )
    if not key:
        return NotFoundError(
            f"Jira has no {what} at {path}",
            hint="check JIRA_BASE_URL: it is the site's address, like https://acme.atlassian.net",
            status=status,
        )
    return NotFoundError(
        f"Jira has no issue {key} (or this account cannot see it)",
        hint=f'check the issue key and JIRA_BASE_URL, and that the account (JIRA_EMAIL) has "Browse '
        f'projects" on {project}',
        status=status,
    )


def last_paragraph_text(body: Any) -> str:
    """The text of an ADF body's last top-level block when it is a paragraph, else "" (a quote, a list)."""
    content = body.get("content") if isinstance(body, dict) else None
    if not isinstance(content, list) or not content:
        return ""
    last = content[-1]
    return adf_text(last) if isinstance(last, dict) and last.get("type") == "paragraph" else ""


def adf_text(node: Any) -> str:
    """Every text node of an ADF document, block by block on its own line (plain strings pass through)."""
    if isinstance(node, str):
        return node
    if not isinstance(node, dict):
        return ""
    if node.get("type") == "text":
        return str(node.get("text", ""))
    children = node.get("content")
    if not isinstance(children, list):
        return ""
    parts = [adf_text(child) for child in children]
    inline = all(isinstance(child, dict) and child.get("type") in ("text", "hardBreak") for child in children)
    return "".join(parts) if inline else "\n".join(part for part in parts if part)


def _detail(response: requests.Response) -> str:
    """Jira's own message (`errorMessages`, then field `errors`), short and on one line."""
    try:
        document = response.json()
    except ValueError:
        document = None
    if isinstance(document, dict):
        messages = [str(message) for message in document.get("errorMessages") or () if message]
        errors = document.get("errors")
        if isinstance(errors, dict):
            messages += [f"{name}: {message}" for name, message in errors.items()]
        if messages:
            return "; ".join(messages)[:200]
    return response_detail(response)


def _json(read: Any, *, what: str) -> Any:
    try:
        return read()
    except ValueError as err:
        raise ServiceError(f"Jira sent something that is not JSON for {what}") from err
