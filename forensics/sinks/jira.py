"""Jira issues as a ticket sink: ADF bodies; the marker sits in the comment's last paragraph as plain text."""

from __future__ import annotations

from dataclasses import dataclass

from forensics.services.jira import JiraClient
from forensics.sinks.base import CommentBody, ExistingComment, Marker, Target


@dataclass(slots=True)
class JiraCommentSink:
    """Comments on the issues of one Jira Cloud site."""

    client: JiraClient

    def find_comment(self, target: Target, marker: Marker) -> ExistingComment | None:
        """The oldest comment on the issue whose text carries the marker's key."""
        for comment in self.client.list_comments(target.key):
            if marker.digest_in(comment.text) is not None:
                return ExistingComment(id=comment.id, url=comment.url, text=comment.text)
        return None

    def create(self, target: Target, body: CommentBody) -> ExistingComment:
        """Post the ADF document."""
        comment = self.client.add_comment(target.key, body.document())
        return ExistingComment(id=comment.id, url=comment.url, text=comment.text)

    def update(self, target: Target, comment: ExistingComment, body: CommentBody) -> ExistingComment:
        """Replace the comment's ADF document."""
        updated = self.client.update_comment(target.key, comment.id, body.document())
        return ExistingComment(id=updated.id, url=updated.url, text=updated.text)
