"""The exit code of `analyze`, `fetch` and `render`, decided from what happened (docs/cli.md, "Exit codes").

The report is written first, then recorded, then the tickets are annotated; when several things went wrong
the code is the first of: 1 (the store refused the report or could not be read), 4 (a ticket could not be
annotated), 5 (inputs were given, but not one test could be read), 3 (a --fail-on condition holds) — a
nightly with failures always meets `--fail-on failures`, so it must not hide the others.
"""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    """The documented exit codes."""

    OK = 0
    ERROR = 1  # `Error:` and `Hint:` on stderr
    USAGE = 2  # unknown option, missing argument (click's own)
    CHECK_FAILED = 3  # --fail-on matched, `rules test` or `rules lint` found a failure
    TICKETS_FAILED = 4  # at least one ticket could not be annotated
    NOTHING_READ = 5  # inputs were given, but not one test could be read from them


def exit_code(
    *, nothing_read: bool, fail_on_met: bool, store_failed: bool = False, tickets_failed: bool = False
) -> ExitCode:
    """The first code that applies, in the order the module doc gives."""
    if store_failed:
        return ExitCode.ERROR
    if tickets_failed:
        return ExitCode.TICKETS_FAILED
    if nothing_read:
        return ExitCode.NOTHING_READ
    if fail_on_met:
        return ExitCode.CHECK_FAILED
    return ExitCode.OK
