"""GitHub issues and pull requests as a ticket sink (pull requests take comments through the issue endpoints).

Creating a comment is not idempotent, and the shared HTTP client resends a request after a 5xx or a lost
answer. So creates go through a twin of the client that sends once (`sinks.once`): it waits out a rate
limit, which wrote nothing, and leaves any other failure to `annotate.run`, which looks for the comment
before it tries again.

The tool's comment is the one whose body *starts* with the hidden `<!-- ci-forensics:v1 … -->` marker:
a person's quote-reply copies the visible footer (as a `> ` line), never the hidden first line.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

import regex

from forensics.services.github import DEFAULT_API_URL, GitHubClient
from forensics.services.http import HostCircuits, Notify, RetryPolicy
from forensics.sinks.base import CommentBody, ExistingComment, Marker, Target
from forensics.sinks.once import SendOnce

_HIDDEN_MARKER = regex.compile(r"\A<!-- (?P<marker>[^\n]*?) -->")


@dataclass(slots=True)
class GitHubCommentSink:
    """Comments on `owner/repo#N`: reads and edits through `client`, creates through its send-once twin."""

    client: GitHubClient
    _once: SendOnce = field(init=False, repr=False)
    _writer: GitHubClient = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._once = SendOnce(self.client.http)
        self._writer = copy.copy(self.client)  # the same token and wording, over the send-once HTTP client
        self._writer.http = self._once.http

    @classmethod
    def connect(
        cls,
        *,
        token: str | None,
        base_url: str = DEFAULT_API_URL,
        timeout: float = 30.0,
        notify: Notify | None = None,
        retry: RetryPolicy | None = None,
        circuits: HostCircuits | None = None,
    ) -> GitHubCommentSink:
        """A sink over a new client; `close()` releases its connections."""
        client = GitHubClient(
            base_url=base_url,
            token=token,
            timeout=timeout,
            notify=notify,
            retry=retry or RetryPolicy(),
            circuits=circuits,
        )
        return cls(client)

    def close(self) -> None:
        """Release the client's connections (the twin shares them)."""
        self.client.close()

    def find_comment(self, target: Target, marker: Marker) -> ExistingComment | None:
        """The oldest comment on the issue or pull request that starts with the marker's key, hidden."""
        repository, number = split_reference(target.key)
        for comment in self.client.list_issue_comments(repository, number):
            if marker.digest_in(hidden_marker(comment.body)) is not None:
                return ExistingComment(id=str(comment.id), url=comment.url, text=comment.body)
        return None

    def create(self, target: Target, body: CommentBody) -> ExistingComment:
        """Post the Markdown body once (again only after a rate-limit refusal)."""
        repository, number = split_reference(target.key)
        comment = self._once.send(lambda: self._writer.create_issue_comment(repository, number, body.text))
        return ExistingComment(id=str(comment.id), url=comment.url, text=comment.body)

    def update(self, target: Target, comment: ExistingComment, body: CommentBody) -> ExistingComment:
        """Replace the comment's Markdown body."""
        repository, _ = split_reference(target.key)
        updated = self.client.update_issue_comment(repository, int(comment.id), body.text)
        return ExistingComment(id=str(updated.id), url=updated.url or comment.url, text=updated.body)


def hidden_marker(body: str) -> str:
    """The marker of the HTML comment a body starts with ("" when it starts with anything else)."""
    match = _HIDDEN_MARKER.match(body)
    return match["marker"] if match else ""


def split_reference(key: str) -> tuple[str, int]:
    """`owner/repo#12` → (`owner/repo`, 12)."""
    repository, _, number = key.rpartition("#")
    return repository, int(number)
