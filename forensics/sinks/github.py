"""GitHub issues and pull requests as a ticket sink (pull requests take comments through the issue endpoints).

Creating a comment is not idempotent, and the shared HTTP client resends a request whose answer was lost.
So creates go through a second client that sends once; `annotate.run` looks for the comment before it
tries again. A rate-limit refusal wrote nothing, so that one case is resent through the retrying client.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from forensics.errors import RateLimitedError
from forensics.services.github import DEFAULT_API_URL, GitHubClient
from forensics.services.http import Notify, RetryPolicy
from forensics.sinks.base import CommentBody, ExistingComment, Marker, Target


@dataclass(slots=True)
class GitHubCommentSink:
    """Comments on `owner/repo#N`; `writer` (default: `client`) sends creates without resending."""

    client: GitHubClient
    writer: GitHubClient | None = None

    @classmethod
    def connect(
        cls,
        *,
        token: str | None,
        base_url: str = DEFAULT_API_URL,
        timeout: float = 30.0,
        notify: Notify | None = None,
        retry: RetryPolicy | None = None,
    ) -> GitHubCommentSink:
        """A sink with a retrying client for reads and edits and a send-once client for creates."""
        policy = retry or RetryPolicy()

        def client(attempts: int) -> GitHubClient:
            return GitHubClient(
                base_url=base_url,
                token=token,
                timeout=timeout,
                notify=notify,
                retry=replace(policy, attempts=attempts),
            )

        return cls(client=client(policy.attempts), writer=client(1))

    def close(self) -> None:
        """Release both clients' connections."""
        self.client.close()
        if self.writer is not None:
            self.writer.close()

    def find_comment(self, target: Target, marker: Marker) -> ExistingComment | None:
        """The oldest comment on the issue or pull request carrying the marker's key."""
        repository, number = split_reference(target.key)
        for comment in self.client.list_issue_comments(repository, number):
            if marker.digest_in(comment.body) is not None:
                return ExistingComment(id=str(comment.id), url=comment.url, text=comment.body)
        return None

    def create(self, target: Target, body: CommentBody) -> ExistingComment:
        """Post the Markdown body once."""
        repository, number = split_reference(target.key)
        try:
            comment = (self.writer or self.client).create_issue_comment(repository, number, body.text)
        except RateLimitedError:
            comment = self.client.create_issue_comment(repository, number, body.text)
        return ExistingComment(id=str(comment.id), url=comment.url, text=comment.body)

    def update(self, target: Target, comment: ExistingComment, body: CommentBody) -> ExistingComment:
        """Replace the comment's Markdown body."""
        repository, _ = split_reference(target.key)
        updated = self.client.update_issue_comment(repository, int(comment.id), body.text)
        return ExistingComment(id=str(updated.id), url=updated.url or comment.url, text=updated.body)


def split_reference(key: str) -> tuple[str, int]:
    """`owner/repo#12` → (`owner/repo`, 12)."""
    repository, _, number = key.rpartition("#")
    return repository, int(number)
