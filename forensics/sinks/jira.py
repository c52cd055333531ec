"""Jira issues as a ticket sink: ADF bodies; the marker sits in the comment's last paragraph as plain text.

Adding a comment is not idempotent: creates go through a twin of the client that sends once and waits
out only rate limits (`sinks.once`). The tool's comment is one whose own last paragraph carries the
marker; a person's quote of it sits in a `blockquote` node and is never taken for the tool's.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

from forensics.services.jira import JiraClient
from forensics.sinks.base import CommentBody, ExistingComment, Marker, Target
from forensics.sinks.once import SendOnce


@dataclass(slots=True)
class JiraCommentSink:
    """Comments on the issues of one Jira Cloud site."""

    client: JiraClient
    _once: SendOnce = field(init=False, repr=False)
    _writer: JiraClient = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._once = SendOnce(self.client.http)
        self._writer = copy.copy(self.client)  # the same site and account, over the send-once HTTP client
        self._writer.http = self._once.http

    def find_comment(self, target: Target, marker: Marker) -> ExistingComment | None:
        """The oldest comment on the issue whose last paragraph carries the marker's key."""
        for comment in self.client.list_comments(target.key):
            if marker.digest_in(comment.last_paragraph) is not None:
                return ExistingComment(id=comment.id, url=comment.url, text=comment.text)
        return None

    def create(self, target: Target, body: CommentBody) -> ExistingComment:
        """Post the ADF document once (again only after a rate-limit refusal)."""
        comment = self._once.send(lambda: self._writer.add_comment(target.key, body.document()))
        return ExistingComment(id=comment.id, url=comment.url, text=comment.text)

    def update(self, target: Target, comment: ExistingComment, body: CommentBody) -> ExistingComment:
        """Replace the comment's ADF document."""
        updated = self.client.update_comment(target.key, comment.id, body.document())
        return ExistingComment(id=updated.id, url=updated.url, text=updated.text)
