"""`ci-forensics dashboard`: the triage dashboard as a static site, from the history store or a saved data.json."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import click
from click.core import ParameterSource

from forensics.cli.common import translate_errors
from forensics.cli.store_settings import STORE_VARIABLE, default_store_dir, warn_skipped_rows
from forensics.dashboard import dashboard_data, read_data_file, write_dashboard
from forensics.dashboard.site import CAUSES
from forensics.report.redact import Redactor
from forensics.store import open_store

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
@click.option(
    "--data",
    "data_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Build from a saved data.json (a dashboard's, or dashboard_data() output) instead of the store.",
)
@translate_errors
def dashboard_command(out_dir: Path, location: str | None, days: int | None, data_file: Path | None) -> None:
    """Write the triage dashboard: a static site (index.html, a page per cause, data.json) that opens from a file."""
    if data_file is not None:
        # CI_FORENSICS_STORE may be set for other commands; only an explicit --store clashes with --data.
        if click.get_current_context().get_parameter_source("location") == ParameterSource.COMMANDLINE:
            raise click.UsageError("give --store or --data, not both")
        if days is not None:
            raise click.UsageError("--days applies to --store; a data.json has its window already")
        data: Mapping[str, Any] = read_data_file(data_file)
        origin = str(data_file)
    else:
        data, origin = _from_store(location, days=days or DEFAULT_DAYS)
    written = write_dashboard(data, out_dir, source=origin, redactor=Redactor.from_environment(os.environ))
    pages = [path for path in written if path.parent == out_dir / CAUSES]
    click.echo(f"Read {origin}; wrote {len(written)} files to {out_dir}:")
    for path in written:
        if path not in pages:
            click.echo(f"  {path}")
        elif path == pages[0]:
            click.echo(f"  {out_dir / CAUSES}/: {len(pages)} cause page{'' if len(pages) == 1 else 's'}")


def _from_store(location: str | None, *, days: int) -> tuple[dict[str, Any], str]:
    with open_store(location, default_dir=default_store_dir(), mode="read") as store:  # never creates one
        warn_skipped_rows(store)
        return dashboard_data(store, days=days), f"the history store {store.location} (last {days} days)"
