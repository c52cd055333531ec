"""Annotate the tickets a report links to with each failure's root cause: one comment per ticket, edited in place.

`annotate_report(report, sinks={"linear": LinearCommentSink(client)}, dry_run=True)` is the one call.
"""

from forensics.annotate.run import (
    Action,
    AnnotateOptions,
    AnnotateResult,
    SinkUnavailable,
    TicketOutcome,
    annotate_report,
)
from forensics.annotate.sections import CauseStatistics, History

__all__ = [
    "Action",
    "AnnotateOptions",
    "AnnotateResult",
    "CauseStatistics",
    "History",
    "SinkUnavailable",
    "TicketOutcome",
    "annotate_report",
]
