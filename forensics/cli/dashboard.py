"""`ci-forensics dashboard`: the triage dashboard as a static site, from the history store or a saved data.json."""

from __future__ import annotations

import os
from pathlib import Path

import click
from click.core import ParameterSource

from forensics.cli.common import translate_errors
from forensics.cli.options import RETURNING_AFTER_OPTION
from forensics.cli.store_settings import (
    STORE_VARIABLE,
    default_store_dir,
    filter_options,
    refuse_unknown,
    warn_skipped_rows,
)
from forensics.dashboard import Dashboard, build, read_data_file, write_dashboard
from forensics.dashboard.document import SplitBy, build_scopes
from forensics.dashboard.layout import scope_label
from forensics.dashboard.site import CAUSES, SCOPES, write_scoped_dashboards
from forensics.report.redact import Redactor
from forensics.store import open_store
from forensics.store.queries import Filters, unknown_values

DEFAULT_DAYS = 30


@click.command("dashboard")
@click.option(
    "--out",
    "out_dir",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="Folder to write the site to (created if missing; earlier cause pages that are gone are removed).",
)
@click.option(
    "--store",
    "location",
    envvar=STORE_VARIABLE,
    metavar="LOCATION",
    help="History store: a SQLite file, sqlite:///path or postgresql://… "
    f"[env {STORE_VARIABLE}; default: history.sqlite3 in the user data folder]",
)
@click.option(
    "--days",
    type=click.IntRange(1, 3660),
    help=f"How many days back the dashboard looks (default {DEFAULT_DAYS}; with --store only).",
)
@filter_options
@click.option(
    "--split-by",
    type=click.Choice(["repo", "workflow", "branch"]),
    help="Also write one page set per repository, workflow or branch under scopes/, with a switcher on "
    "every page (with --store only).",
)
@click.option(
    "--data",
    "data_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Build from a saved data.json (a dashboard's, or dashboard_data() output) instead of the store.",
)
@RETURNING_AFTER_OPTION
@translate_errors
def dashboard_command(
    out_dir: Path,
    location: str | None,
    days: int | None,
    repository: str | None,
    workflow: str | None,
    branch: str | None,
    split_by: str | None,
    data_file: Path | None,
    returning_after: int,
) -> None:
    """Write the triage dashboard: a static site (index.html, a page per cause, data.json) that opens from a file."""
    filters = Filters(repository=repository, workflow=workflow, branch=branch)
    redactor = Redactor.from_environment(os.environ)
    if data_file is not None:
        # CI_FORENSICS_STORE may be set for other commands; only an explicit --store clashes with --data.
        if click.get_current_context().get_parameter_source("location") == ParameterSource.COMMANDLINE:
            raise click.UsageError("give --store or --data, not both")
        from_command_line = click.get_current_context().get_parameter_source("returning_after")
        if (
            days is not None
            or filters != Filters()
            or split_by is not None
            or from_command_line == ParameterSource.COMMANDLINE
        ):
            raise click.UsageError(
                "--days, --repo, --workflow, --branch, --split-by and --returning-after apply to --store; "
                "a data.json has its window and scope already"
            )
        origin = str(data_file)
        written = write_dashboard(read_data_file(data_file), out_dir, source=origin, redactor=redactor)
    else:
        documents, origin = _from_store(
            location,
            days=days or DEFAULT_DAYS,
            filters=filters,
            split_by=_SPLIT_BY.get(split_by or ""),
            returning_after=returning_after,
        )
        written = write_scoped_dashboards(documents, out_dir, source=origin, redactor=redactor)
    pages = [path for path in written if path.parent == out_dir / CAUSES]
    click.echo(f"Read {origin}; wrote {len(written)} files to {out_dir}:")
    for path in written:
        if path.parent == out_dir or (path.parent == out_dir / "assets"):
            click.echo(f"  {path}")
        elif path == pages[0]:
            click.echo(f"  {out_dir / CAUSES}/: {len(pages)} cause page{'' if len(pages) == 1 else 's'}")
    scopes = {path.parent for path in written if path.name == "index.html"} - {out_dir}
    if scopes:
        click.echo(f"  {out_dir / SCOPES}/: {len(scopes)} page set{'' if len(scopes) == 1 else 's'}")


_SPLIT_BY: dict[str, SplitBy] = {"repo": "repository", "workflow": "workflow", "branch": "branch"}


def _from_store(
    location: str | None, *, days: int, filters: Filters, split_by: SplitBy | None, returning_after: int
) -> tuple[list[tuple[str, Dashboard]], str]:
    with open_store(location, default_dir=default_store_dir(), mode="read") as store:  # never creates one
        refuse_unknown(unknown_values(store, filters))
        warn_skipped_rows(store)
        if split_by is None:
            documents = [("", build(store, days=days, filters=filters, returning_after_runs=returning_after))]
        else:
            documents = list(
                build_scopes(
                    store, split_by=split_by, days=days, filters=filters, returning_after_runs=returning_after
                )
            )
        scope = scope_label(filters)
        return (
            documents,
            f"the history store {store.location} ({scope + ', ' if scope else ''}last {days} days)",
        )
