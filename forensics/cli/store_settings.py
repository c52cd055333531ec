"""The history store's options, shared by analyze, fetch, annotate, history, reanalyze and dashboard.

Kept apart from the commands so that `analyze` (which only records) does not import the query and
rendering code of `history`; the store itself is imported when a command uses it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import click
import platformdirs
from rich.console import Console

from forensics.cli.common import option_group
from forensics.errors import StoreNotFoundError
from forensics.model import Report
from forensics.report.redact import Redactor

if TYPE_CHECKING:
    from forensics.annotate import History
    from forensics.store import OpenMode, Store

STORE_VARIABLE = "CI_FORENSICS_STORE"


def default_store_dir() -> Path:
    """Where the history store lives when neither --store nor CI_FORENSICS_STORE says."""
    return Path(platformdirs.user_data_dir("ci-forensics"))


@dataclass(frozen=True, slots=True)
class StoreSettings:
    """Whether to record the report, and into which store."""

    record: bool
    location: str | None = field(repr=False)  # a postgresql:// URL may carry a password

    def open(self, mode: OpenMode = "create") -> Store:
        """The store, opened as `mode` allows: "create" (the default, for recording) creates and migrates it."""
        from forensics.store import open_store

        return open_store(self.location, default_dir=default_store_dir(), mode=mode)

    @contextmanager
    def history_for(self, report: Report) -> Iterator[History | None]:
        """First/last seen and 24 h / 7 d / 30 d counts for ticket comments, when a store is in use.

        A store is in use with --record, --store or CI_FORENSICS_STORE. With --record the recording has
        created it; without, it is only read: a store that is not there means no history (it is never
        created, nor migrated, just to read it).
        """
        if not (self.record or self.location):
            yield None
            return
        from forensics.store.history import cause_stats

        repository = report.context.repository if report.context else None
        now = datetime.now(UTC)
        try:
            store = self.open("create" if self.record else "read")
        except StoreNotFoundError:
            yield None
            return
        with store:
            yield lambda key: cause_stats(store, key=key, repository=repository, now=now)

    def record_report(self, report: Report, *, redactor: Redactor) -> None:
        """With --record: save the report into the store and say so on stderr (stdout holds the report)."""
        if not self.record:
            return
        from forensics.store.record import record_report

        with self.open() as store:
            result = record_report(store, report, redactor=redactor)
            where = store.location
        console = Console(stderr=True, highlight=False)
        if result.tests:
            failing = f" ({result.failing} failing)" if result.failing else ""
            console.out(f"Recorded {result.run} into {where}: {result.tests} tests{failing}", highlight=False)
        else:
            console.out(f"{result.run} was already recorded in {where}; nothing changed", highlight=False)


STORE_OPTION = click.option(
    "--store",
    "store_location",
    envvar=STORE_VARIABLE,
    metavar="LOCATION",
    help="History store: a SQLite file, sqlite:///path or postgresql://user@host/db "
    f"[env {STORE_VARIABLE}; default: history.sqlite3 in the user data folder].",
)


store_options = option_group(
    (
        click.option("--record", is_flag=True, help="Save the report into the history store (see --store)."),
        STORE_OPTION,
    ),
    into="store_settings",
    build=lambda record, store_location: StoreSettings(record=record, location=store_location),
)
"""Add --record and --store; the command receives them as one `store_settings: StoreSettings`."""


def warn_skipped_rows(store: Store) -> None:
    """`Warning: …` on stderr for rows of an older store that every answer leaves out (a time no date holds)."""
    from forensics.store.queries import skipped_rows

    console = Console(stderr=True, highlight=False)
    for problem in skipped_rows(store):
        console.out(f"Warning: {problem.object}: {problem.message}", highlight=False)
        console.out(f"Hint: {problem.hint}", highlight=False)
