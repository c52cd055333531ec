"""Linear issues as a ticket sink: the tool's comment is found by its marker among the issue's comments.

The marker is the comment's own last line (the footer); a person's quote-reply copies it as a `> ` line,
which never counts. Creates carry an id derived from the marker, so a resent create is refused by Linear
instead of posting twice.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field

from forensics.services.linear import LinearClient
from forensics.sinks.base import CommentBody, ExistingComment, Marker, Target

# Fixed namespace for the comment ids we choose: the same marker and content always give the same id.
_COMMENT_NAMESPACE = uuid.UUID("5d0c7a52-3f7e-4d8e-9a43-6c1f2b0e9d11")


def comment_id_for(marker: Marker) -> str:
    """The id a comment with this marker and content gets: a retried commentCreate cannot post it twice."""
    return str(uuid.uuid5(_COMMENT_NAMESPACE, marker.text))


@dataclass(slots=True)
class LinearCommentSink:
    """Comments on Linear issues, looked up by identifier (`OPS-4445`)."""

    client: LinearClient
    _issue_ids: dict[str, str] = field(default_factory=dict, repr=False)

    def find_comment(self, target: Target, marker: Marker) -> ExistingComment | None:
        """The oldest comment on the issue whose own last line carries the marker's key."""
        issue = self.client.issue_with_comments(target.key)
        self._issue_ids[target.key] = issue.id
        for comment in issue.comments:
            if marker.digest_in(footer_line(comment.body)) is not None:
                return ExistingComment(id=comment.id, url=comment.url, text=comment.body)
        return None

    def create(self, target: Target, body: CommentBody) -> ExistingComment:
        """Post the Markdown body with an id derived from the marker (idempotent across retries)."""
        issue_id = self._issue_ids.get(target.key) or self.client.issue_with_comments(target.key).id
        comment = self.client.create_comment(issue_id, body.text, comment_id=comment_id_for(body.marker))
        return ExistingComment(id=comment.id, url=comment.url, text=comment.body)

    def update(self, target: Target, comment: ExistingComment, body: CommentBody) -> ExistingComment:
        """Replace the comment's Markdown body."""
        updated = self.client.update_comment(comment.id, body.text)
        return ExistingComment(id=updated.id, url=updated.url or comment.url, text=updated.body)


def footer_line(body: str) -> str:
    """A Markdown body's last non-blank line, or "" when that line is quoted (`> …`)."""
    last = next((line for line in reversed(body.splitlines()) if line.strip()), "")
    return "" if last.lstrip().startswith(">") else last
