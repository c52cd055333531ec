"""What happens after a report is built: write it, record it, summarize it, annotate the tickets, pick the
exit code.

The report is written first, so a store or tracker that fails never costs it; recording comes before
summarizing and annotating, so the step summary and the ticket comments count this run, and what changed
since the last run (`store/since_last_run.py`) is computed once, then handed to both. A store that refuses the report, or cannot be read for the
tickets' history, is a problem kept in the `FollowUp` (the tickets still get their root causes); the exit
code is then the first that applies in `usecases/exit_code.py`. Nothing here prints: the CLI says what the
`FollowUp` holds.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

from forensics.errors import StoreError, StoreNotFoundError
from forensics.model import RETURNING_AFTER_RUNS, Report
from forensics.report.redact import Redactor, redact_report
from forensics.usecases.exit_code import ExitCode, exit_code

if (
    TYPE_CHECKING
):  # the ticket and store code (and datetime: ~5 M instructions) is imported only when a run uses it
    from datetime import datetime

    from forensics.annotate import History
    from forensics.annotate.run import AnnotateResult
    from forensics.store import OpenMode, Store
    from forensics.store.since_last_run import SinceLastRun
    from forensics.store.writer import RecordResult

OpenStore = Callable[["OpenMode"], "Store"]
"""Opens the store as the mode allows ("create" creates and migrates it, "read" never does)."""

Annotate = Callable[[Report, "History | None", "SinceLastRun | None"], "AnnotateResult"]
"""Annotates every ticket the report links, with each cause's history and what changed since the last run
when a store has them."""

Summarize = Callable[[Report, "SinceLastRun | None"], None]
"""Writes the step summary, with what changed since the last run when a store has it."""


@dataclass(frozen=True, slots=True)
class Recorded:
    """What the recording added, and where (`location` as the store names itself, no password)."""

    result: RecordResult
    location: str


@dataclass(frozen=True, slots=True)
class FollowUp:
    """Everything that happened after the report was built, in order, and the exit code it makes."""

    checked: ExitCode  # what the report alone says: 0, 3 (--fail-on met) or 5 (nothing read)
    recorded: Recorded | None  # None: not asked to record, nothing read, or the store refused
    store_problems: tuple[StoreError, ...]  # the store refused the report, or its history could not be read
    since: SinceLastRun | None  # None: no store, the run is not in it, or nothing asked for it
    annotated: AnnotateResult | None  # None: tickets were not asked for
    code: ExitCode


def follow_up(
    report: Report,
    *,
    write: Callable[[Report], None],
    check: Callable[[Report], ExitCode],
    store: OpenStore | None = None,
    record: bool = False,
    redactor: Redactor | None = None,
    summarize: Summarize | None = None,
    annotate: Annotate | None = None,
    now: datetime | None = None,
    returning_after: int = RETURNING_AFTER_RUNS,
) -> FollowUp:
    """Write the report, check it, record it (`record`), write its step summary (`summarize`), annotate its
    tickets (`annotate`); say what happened.

    `store` is None when no store is in use; with `record` it is opened to create, else only read (a store
    that is not there gives no history, and none is created).
    """
    write(report)
    checked = check(report)
    recorded: Recorded | None = None
    problems: list[StoreError] = []
    if record and store is not None and checked is not ExitCode.NOTHING_READ:
        # a run that read no test would only add an empty run to the history
        try:
            recorded = _record(report, store, redactor=redactor or Redactor(), now=now)
        except StoreError as err:
            problems.append(err)
    since: SinceLastRun | None = None
    annotated: AnnotateResult | None = None
    summarized = False
    if summarize is not None or annotate is not None:
        # the summary alone never opens a store that neither recording nor the tickets use
        usable = store if not problems and (record or annotate is not None) else None
        try:
            with store_reads(
                report, store=usable, record=record, now=now, returning_after=returning_after
            ) as reads:
                since = reads.since
                if summarize is not None:
                    summarize(report, since)
                    summarized = True
                if annotate is not None:
                    annotated = annotate(report, reads.history, since)
        except StoreError as err:  # a store too old to read: the summary and the tickets still get the causes
            problems.append(err)
            since = None
            if summarize is not None and not summarized:
                summarize(report, None)
            if annotate is not None:
                annotated = annotate(report, None, None)
    code = exit_code(
        nothing_read=checked is ExitCode.NOTHING_READ,
        fail_on_met=checked is ExitCode.CHECK_FAILED,
        store_failed=bool(problems),
        tickets_failed=annotated is not None and bool(annotated.failed),
    )
    return FollowUp(
        checked=checked,
        recorded=recorded,
        store_problems=tuple(problems),
        since=since,
        annotated=annotated,
        code=code,
    )


def _record(report: Report, store: OpenStore, *, redactor: Redactor, now: datetime | None) -> Recorded:
    from forensics.store.writer import record_report

    # rows outlive the run: this run's secrets go, whatever built the report
    redacted = redact_report(report, redactor)
    with store("create") as opened:
        result = record_report(opened, redacted, now=now)
        return Recorded(result=result, location=opened.location)


@dataclass(frozen=True, slots=True)
class StoreReads:
    """What the step summary and the ticket comments read from the store (both None without one)."""

    history: History | None
    since: SinceLastRun | None


@contextmanager
def store_reads(
    report: Report,
    *,
    store: OpenStore | None,
    record: bool,
    now: datetime | None = None,
    since: bool = True,
    returning_after: int = RETURNING_AFTER_RUNS,
) -> Iterator[StoreReads]:
    """The causes' history (first/last seen, 24 h / 7 d / 30 d counts) and what changed since the last run,
    when a store is in use; the store stays open for the history's lookups until the block ends.

    With `record` the recording has created the store; without, it is only read: a store that is not there
    means no history (it is never created, nor migrated, just to read it).
    """
    if store is None:
        yield StoreReads(None, None)
        return
    from datetime import UTC, datetime

    from forensics.store.answers import cause_stats
    from forensics.store.since_last_run import since_last_run

    repository = report.context.repository if report.context else None
    when = now or datetime.now(UTC)
    try:
        opened = store("create" if record else "read")
    except StoreNotFoundError:
        yield StoreReads(None, None)
        return
    with opened:
        yield StoreReads(
            history=lambda key: cause_stats(opened, key=key, repository=repository, now=when),
            since=since_last_run(opened, report, now=when, quiet_runs=returning_after) if since else None,
        )


@contextmanager
def ticket_history(
    report: Report, *, store: OpenStore | None, record: bool, now: datetime | None = None
) -> Iterator[History | None]:
    """First/last seen and 24 h / 7 d / 30 d counts for ticket comments, when a store is in use."""
    with store_reads(report, store=store, record=record, now=now, since=False) as reads:
        yield reads.history
