"""`ci-forensics history` and `reanalyze`, and the `--record`/`--store` options `analyze` (and `fetch`) share."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar

import click
import platformdirs
from rich.console import Console

from forensics.annotate import History
from forensics.cli.common import option_group, translate_errors
from forensics.errors import StoreNotFoundError
from forensics.model import Report
from forensics.render.history import render_history_json, render_history_text
from forensics.render.reanalysis import render_reanalysis_json, render_reanalysis_text
from forensics.report.redact import Redactor
from forensics.report.session import AnalyzeOptions
from forensics.rules.loader import load_rules
from forensics.store import OpenMode, Store, open_store
from forensics.store.history import cause_stats, history
from forensics.store.queries import Filters
from forensics.store.reanalyze import reanalyze
from forensics.store.record import record_report

STORE_VARIABLE = "CI_FORENSICS_STORE"
_F = TypeVar("_F", bound=Callable[..., Any])


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


def _filter_options(command: _F) -> _F:
    for option in reversed(
        (
            click.option("--repo", "repository", metavar="OWNER/NAME", help="Only runs of this repository."),
            click.option("--workflow", metavar="NAME", help="Only runs of this workflow (its name)."),
            click.option("--branch", metavar="NAME", help="Only runs on this branch."),
        )
    ):
        command = option(command)
    return command


_FORMAT_OPTION = click.option(
    "--format", "output_format", type=click.Choice(["text", "json"]), default="text", show_default=True
)


@click.command("history")
@STORE_OPTION
@_FORMAT_OPTION
@_filter_options
@click.option(
    "--days", type=click.IntRange(1, 3660), default=30, show_default=True, help="The window, in days."
)
@click.option("--cause", metavar="KEY", help="Only this root cause (rule id) or fingerprint.")
@click.option(
    "--quiet-days",
    type=click.IntRange(1, 3660),
    default=7,
    show_default=True,
    help="A cause absent this many days before coming back is 'returning'.",
)
@translate_errors
def history_command(
    store_location: str | None,
    output_format: str,
    repository: str | None,
    workflow: str | None,
    branch: str | None,
    days: int,
    cause: str | None,
    quiet_days: int,
) -> None:
    """Per root cause: first and last seen, counts, tests, where it hits; what is new; flaky tests."""
    with open_store(store_location, default_dir=default_store_dir(), mode="read") as store:
        found = history(
            store,
            now=datetime.now(UTC),
            days=days,
            filters=Filters(repository=repository, workflow=workflow, branch=branch),
            cause=cause,
            quiet_days=quiet_days,
        )
    if output_format == "json":
        click.echo(render_history_json(found), nl=False)
    else:
        Console(highlight=False).print(render_history_text(found))


@click.command("reanalyze")
@STORE_OPTION
@_FORMAT_OPTION
@_filter_options
@click.option(
    "--rules",
    "rule_paths",
    multiple=True,
    type=click.Path(path_type=Path),
    help="Extra rule file or folder; a rule with a shipped id replaces it. Repeatable.",
)
@click.option("--days", type=click.IntRange(1, 3660), help="Only runs of the last N days (default: all).")
@click.option("--apply", is_flag=True, help="Write the new verdicts (explained and changed) into the store.")
@translate_errors
def reanalyze_command(
    store_location: str | None,
    output_format: str,
    repository: str | None,
    workflow: str | None,
    branch: str | None,
    rule_paths: tuple[Path, ...],
    days: int | None,
    apply: bool,
) -> None:
    """Run today's rules over the stored failures (their artifacts when still cached) and show what moved."""
    rules = load_rules(rule_paths)
    options = AnalyzeOptions(redactor=Redactor.from_environment(os.environ))
    since = datetime.now(UTC) - timedelta(days=days) if days else None
    # only --apply writes: it may upgrade an older store; neither creates one
    with open_store(
        store_location, default_dir=default_store_dir(), mode="write" if apply else "read"
    ) as store:
        found = reanalyze(
            store,
            rules=rules,
            filters=Filters(repository=repository, workflow=workflow, branch=branch),
            since=since,
            apply=apply,
            options=options,
        )
    if output_format == "json":
        click.echo(render_reanalysis_json(found), nl=False)
    else:
        Console(highlight=False).print(render_reanalysis_text(found))
