"""Jira Cloud REST v3 issue comments: list (paginated with startAt/maxResults), add, update.

Bodies are Atlassian Document Format (ADF) documents. Comments come back as plain text (every text node
of their ADF joined), which is all a caller needs to find its own comment by a marker.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import quote

from forensics.errors import RateLimitedError, ServiceError
from forensics.services.http import HttpClient, Notify, RetryPolicy

_PAGE_SIZE = 100
_MAX_PAGES = 100


@dataclass(frozen=True, slots=True)
class JiraComment:
    """A comment on a Jira issue, its ADF body flattened to text."""

    id: str
    text: str
    url: str
    created: str


@dataclass(slots=True, kw_only=True)
class JiraClient:
    """A Jira Cloud site with Basic auth (account email and API token); `close()` releases connections."""

    base_url: str
    email: str
    api_token: str = field(repr=False)
    timeout: float = 30.0
    notify: Notify | None = None
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    _http: HttpClient = field(init=False, repr=False)
    _writer: HttpClient = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.base_url = self.base_url.rstrip("/")
        credentials = base64.b64encode(f"{self.email}:{self.api_token}".encode()).decode("ascii")
        self._http = HttpClient(
            base_url=self.base_url,
            service="Jira",
            headers={"Accept": "application/json"},
            auth_header=f"Basic {credentials}",
            timeout=self.timeout,
            retry=self.retry,
            notify=self.notify,
        )
        # Adding a comment is not idempotent: after a dropped answer or a 5xx the comment may exist, so a
        # create is sent once and the caller looks for it before trying again. The same session is shared.
        self._writer = replace(self._http, retry=replace(self.retry, attempts=1))

    def close(self) -> None:
        """Release pooled connections."""
        self._http.close()

    def comment_url(self, key: str, comment_id: str) -> str:
        """The browser link of one comment."""
        return f"{self.base_url}/browse/{quote(key)}?focusedCommentId={quote(comment_id)}"

    def list_comments(self, key: str) -> Iterator[JiraComment]:
        """Every comment of the issue, oldest first."""
        start = 0
        for _ in range(_MAX_PAGES):
            document = self._http.get_json(
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
        """Add a comment whose body is the ADF `document`; sent once unless Jira refused it outright."""
        path, what = self._comments_path(key), f"a new comment on issue {key}"
        try:
            response = self._writer.request("POST", path, what=what, json={"body": document})
        except RateLimitedError:
            # A 429 is a refusal, nothing was written: the retrying client may wait it out and resend.
            response = self._http.request("POST", path, what=what, json={"body": document})
        return self._comment(key, _json(response.json, what=f"the new comment on issue {key}"))

    def update_comment(self, key: str, comment_id: str, document: Mapping[str, Any]) -> JiraComment:
        """Replace a comment's body with the ADF `document`."""
        response = self._http.request(
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
        )


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


def _json(read: Any, *, what: str) -> Any:
    try:
        return read()
    except ValueError as err:
        raise ServiceError(f"Jira sent something that is not JSON for {what}") from err
