"""The ticket-sink seam: where a comment goes, what it carries, and the three calls every tracker answers.

A sink finds the tool's own comment on a ticket by its marker, creates one, or edits one in place.
The marker (`ci-forensics:v1 key=… digest=…`) is the only record the tool keeps: it is how a later run,
a retry, or a rerun after a crash finds the comment instead of posting a second one.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal, Protocol

import regex

from forensics.model import TicketSystem

BodyFormat = Literal["markdown", "adf"]  # what a tracker takes: Markdown (GitHub, Linear) or ADF (Jira)
MARKER_PREFIX = "ci-forensics:v1"
_MARKER = regex.compile(r"ci-forensics:v1 key=(?P<key>[^\s`<>]+) digest=(?P<digest>[0-9a-f]{16})")


@dataclass(frozen=True, slots=True)
class Target:
    """One ticket to comment on: `linear` OPS-4445, `github` owner/repo#8443, or `jira` ABC-123."""

    system: TicketSystem
    key: str
    url: str = ""  # where a person opens the ticket, when known

    @property
    def label(self) -> str:
        """`OPS-4445 (linear)`."""
        return f"{self.key} ({self.system})"


@dataclass(frozen=True, slots=True)
class Marker:
    """Names the tool's comment on a ticket (`key`) and the content it last posted there (`digest`)."""

    key: str
    digest: str

    @property
    def text(self) -> str:
        """`ci-forensics:v1 key=linear:OPS-4445 digest=0123456789abcdef`."""
        return f"{MARKER_PREFIX} key={self.key} digest={self.digest}"

    def digest_in(self, text: str) -> str | None:
        """The digest of this key's marker in a comment's text; None when the comment is not ours."""
        return next((match["digest"] for match in _MARKER.finditer(text) if match["key"] == self.key), None)


@dataclass(frozen=True, slots=True)
class CommentBody:
    """What is posted, exactly: Markdown (GitHub, Linear) or an ADF document as JSON text (Jira)."""

    marker: Marker
    format: BodyFormat
    text: str

    def document(self) -> Any:
        """The ADF document to send (format "adf")."""
        return json.loads(self.text)


@dataclass(frozen=True, slots=True)
class ExistingComment:
    """A comment found on or written to a ticket; `text` is searchable for the marker."""

    id: str
    url: str
    text: str


class TicketSink(Protocol):
    """A tracker that holds ticket comments (Linear, GitHub issues and pull requests, Jira)."""

    def find_comment(self, target: Target, marker: Marker) -> ExistingComment | None:
        """The oldest of the tool's comments with this marker's key (a person's quote of one never counts).

        None when there is none; NotFoundError when the ticket is missing.
        """
        ...

    def create(self, target: Target, body: CommentBody) -> ExistingComment:
        """Post a new comment, sent once: resent only after a rate-limit refusal (see `sinks.once`)."""
        ...

    def update(self, target: Target, comment: ExistingComment, body: CommentBody) -> ExistingComment:
        """Replace the body of an existing comment."""
        ...
