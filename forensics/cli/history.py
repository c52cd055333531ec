"""`ci-forensics history` and `reanalyze`: what the history store knows, and today's rules over it."""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar

import click

from forensics.cli.common import print_renderable, translate_errors
from forensics.cli.progress import step_progress
from forensics.cli.store_settings import STORE_OPTION, default_store_dir, warn_skipped_rows
from forensics.errors import ConfigError
from forensics.render.history import render_history_json, render_history_text
from forensics.render.reanalysis import render_reanalysis_json, render_reanalysis_text
from forensics.report.redact import Redactor, redact_model
from forensics.report.session import AnalyzeOptions
from forensics.rules.loader import load_rules
from forensics.store import open_store
from forensics.store.answers import history
from forensics.store.queries import Filters, UnknownValue, unknown_values
from forensics.usecases.reanalyze import reanalyze

_F = TypeVar("_F", bound=Callable[..., Any])


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


_WHAT = {
    "--repo": "no run of repository '{}'",
    "--workflow": "no run of workflow '{}'",
    "--branch": "no run on branch '{}'",
    "--cause": "no failing test with the cause or fingerprint '{}'",
}


def refuse_unknown(unknown: tuple[UnknownValue, ...]) -> None:
    """A filter value the store never recorded is a ConfigError naming it and the closest known values."""
    if not unknown:
        return
    first = unknown[0]
    message = "; ".join(f"{_WHAT[item.option].format(item.value)} ({item.option})" for item in unknown)
    if first.close:
        hint = f"did you mean {' or '.join(repr(name) for name in first.close)} for {first.option}?"
    elif first.known:
        hint = f"the store knows {first.known} other values; leave out {first.option} to see them all"
    else:
        hint = "the store has none recorded yet: record runs with --record"
    raise ConfigError(f"the history store has {message}", hint=hint)
