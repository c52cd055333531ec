"""Annotate a report's tickets: resolve, compose, and upsert one comment per ticket, each ticket on its own.

The marker on the ticket is the only record: a run finds the tool's comment by it and edits it (or leaves
it alone when the content is the same), or creates one. A create that fails in a way that may have
written anyway (a dropped answer, a 5xx) is followed by another look before a second try, so neither a
retry nor a rerun after a crash leaves two comments. A failing ticket is an outcome, never an exception.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING

from forensics.annotate.compose import ComposeOptions, compose_comment
from forensics.annotate.sections import History
from forensics.annotate.targets import TargetOptions, resolve_targets
from forensics.errors import AuthenticationError, NotFoundError, RateLimitedError, ServiceError
from forensics.model import Problem, Report
from forensics.report.redact import Redactor, redact_model, redact_report
from forensics.sinks.base import CommentBody, ExistingComment, Target, TicketSink

if TYPE_CHECKING:  # the answer's shape only: annotate never imports the store
    from forensics.store.since_last_run import SinceLastRun


class Action(StrEnum):
    """What happened to one ticket."""

    CREATED = "created"
    UPDATED = "updated"
    UNCHANGED = "unchanged"  # the tool's comment already says exactly this
    FAILED = "failed"
    PLANNED = "planned"  # --dry-run: nothing was sent


@dataclass(frozen=True, slots=True)
class SinkUnavailable:
    """A tracker that cannot be used this run (no credentials): its tickets fail with this reason."""

    reason: str
    hint: str = ""


@dataclass(frozen=True, slots=True)
class TicketOutcome:
    """One ticket: what was done, the comment's link, or why it failed; `body` is what was (to be) posted."""

    target: Target
    action: Action
    tests: int
    body: CommentBody
    comment_url: str = ""
    message: str = ""
    hint: str = ""


@dataclass(frozen=True, slots=True)
class AnnotateOptions:
    """Target resolution (see `annotate.targets`), the marker scope and the redactor for posted text."""

    repository: str = ""
    jira_base_url: str = ""
    jira_projects: frozenset[str] = frozenset()
    scope: str = ""
    redactor: Redactor = field(default_factory=Redactor)


@dataclass(frozen=True, slots=True)
class AnnotateResult:
    """Every ticket's outcome, references that did not resolve, and tickets with no failing test."""

    outcomes: tuple[TicketOutcome, ...]
    problems: tuple[Problem, ...]
    quiet: tuple[Target, ...]
    dry_run: bool

    @property
    def failed(self) -> tuple[TicketOutcome, ...]:
        """Tickets that could not be annotated."""
        return tuple(outcome for outcome in self.outcomes if outcome.action is Action.FAILED)


def annotate_report(
    report: Report,
    *,
    sinks: Mapping[str, TicketSink | SinkUnavailable],
    extra_tickets: Sequence[str] = (),
    dry_run: bool = False,
    history: History | None = None,
    options: AnnotateOptions = AnnotateOptions(),
    since: SinceLastRun | None = None,
) -> AnnotateResult:
    """Post (or with `dry_run`, only compose) one comment per ticket linked to a failing test.

    `history` (each cause's first/last seen and counts) and `since` (what changed since the last run) come
    from the history store when one is in use; without them the comments have no such parts."""
    report = redact_report(report, options.redactor)  # posted text leaves the machine: this run's secrets too
    resolution = resolve_targets(
        report,
        extra_tickets=extra_tickets,
        options=TargetOptions(
            repository=options.repository,
            jira_base_url=options.jira_base_url,
            jira_projects=options.jira_projects,
        ),
    )
    compose_options = ComposeOptions(
        scope=options.scope, history=history, redactor=options.redactor, since=since
    )
    outcomes = []
    for linked in resolution.targets:
        target = linked.target
        body = compose_comment(report, linked, options=compose_options)
        tests = len(linked.failing)
        if dry_run:
            outcomes.append(TicketOutcome(target, Action.PLANNED, tests, body))
            continue
        sink = sinks.get(target.system)
        if sink is None or isinstance(sink, SinkUnavailable):
            reason = sink or SinkUnavailable(f"no {target.system} sink is configured")
            outcomes.append(
                TicketOutcome(target, Action.FAILED, tests, body, message=reason.reason, hint=reason.hint)
            )
            continue
        try:
            action, comment = upsert(sink, target, body)
        except ServiceError as err:  # a tracker's answer may quote what it was sent: printed, so redacted
            message, hint = options.redactor.text(err.message), options.redactor.text(err.hint)
            outcomes.append(TicketOutcome(target, Action.FAILED, tests, body, message=message, hint=hint))
            continue
        outcomes.append(TicketOutcome(target, action, tests, body, comment_url=comment.url))
    return AnnotateResult(
        outcomes=tuple(outcomes),
        problems=redact_model(resolution.problems, options.redactor),
        quiet=resolution.quiet,
        dry_run=dry_run,
    )


def upsert(sink: TicketSink, target: Target, body: CommentBody) -> tuple[Action, ExistingComment]:
    """Edit the tool's comment on the ticket, or create it; never two."""
    existing = sink.find_comment(target, body.marker)
    if existing is not None:
        return _refresh(sink, target, existing, body)
    try:
        return Action.CREATED, sink.create(target, body)
    except (AuthenticationError, NotFoundError, RateLimitedError):
        raise  # refused outright: nothing was written
    except ServiceError:
        landed = sink.find_comment(target, body.marker)
        if landed is None:
            return Action.CREATED, sink.create(target, body)
        action, comment = _refresh(sink, target, landed, body)
        return (Action.CREATED if action is Action.UNCHANGED else action), comment


def _refresh(
    sink: TicketSink, target: Target, existing: ExistingComment, body: CommentBody
) -> tuple[Action, ExistingComment]:
    if body.marker.digest_in(existing.text) == body.marker.digest:
        return Action.UNCHANGED, existing
    return Action.UPDATED, sink.update(target, existing, body)
