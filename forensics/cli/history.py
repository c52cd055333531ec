"""`ci-forensics history` and `reanalyze`: what the history store knows, and today's rules over it."""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

import click

from forensics.cli.common import print_renderable, translate_errors
from forensics.cli.options import STORE_OPTION
from forensics.cli.progress import step_progress
from forensics.cli.store_settings import (
    default_store_dir,
    filter_options,
    refuse_unknown,
    warn_skipped_rows,
)
from forensics.render.history import render_history_json, render_history_text
from forensics.render.reanalysis import render_reanalysis_json, render_reanalysis_text
from forensics.report.redact import Redactor, redact_model
from forensics.report.session import AnalyzeOptions
from forensics.rules.loader import load_rules
from forensics.store import open_store
from forensics.store.answers import history
from forensics.store.queries import Filters, unknown_values
from forensics.usecases.reanalyze import reanalyze

_FORMAT_OPTION = click.option(
    "--format", "output_format", type=click.Choice(["text", "json"]), default="text", show_default=True
)


@click.command("history")
@STORE_OPTION
@_FORMAT_OPTION
@filter_options
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
    filters = Filters(repository=repository, workflow=workflow, branch=branch)
    with open_store(store_location, default_dir=default_store_dir(), mode="read") as store:
        refuse_unknown(unknown_values(store, filters, cause=cause))
        warn_skipped_rows(store)
        found = history(
            store, now=datetime.now(UTC), days=days, filters=filters, cause=cause, quiet_days=quiet_days
        )
    found = redact_model(found, Redactor.from_environment(os.environ))  # rows an older version wrote, too
    if output_format == "json":
        click.echo(render_history_json(found), nl=False)
    else:
        print_renderable(render_history_text(found))


@click.command("reanalyze")
@STORE_OPTION
@_FORMAT_OPTION
@filter_options
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
    options = AnalyzeOptions(redactor=Redactor.from_environment(os.environ), read_evidence=False)
    since = datetime.now(UTC) - timedelta(days=days) if days else None
    # only --apply writes: it may upgrade an older store; neither creates one
    filters = Filters(repository=repository, workflow=workflow, branch=branch)
    with open_store(
        store_location, default_dir=default_store_dir(), mode="write" if apply else "read"
    ) as store:
        refuse_unknown(unknown_values(store, filters))
        warn_skipped_rows(store)
        with step_progress("reanalyze") as progress:
            found = reanalyze(
                store,
                rules=rules,
                filters=filters,
                since=since,
                apply=apply,
                options=options,
                progress=progress,
            )
    found = redact_model(found, options.redactor)
    if output_format == "json":
        click.echo(render_reanalysis_json(found), nl=False)
    else:
        print_renderable(render_reanalysis_text(found))
