"""`ci-forensics analyze`: local allure-results folders, artifact zips and logs."""

from __future__ import annotations

import click

from forensics.cli.common import ReportSettings, translate_errors
from forensics.cli.options import report_options, store_options
from forensics.cli.quick import run_analyze
from forensics.cli.store_settings import StoreSettings


@click.command("analyze")
@click.argument("paths", nargs=-1, metavar="PATH...")
@click.option("--demo", is_flag=True, help="Analyse the bundled sample nightly artifact.")
@report_options
@store_options
@translate_errors
def analyze_command(
    paths: tuple[str, ...], demo: bool, settings: ReportSettings, store_settings: StoreSettings
) -> None:
    """Find each failed test's root cause in allure-results folders, artifact zips or logs ('-' = stdin)."""
    if not paths and not demo:
        raise click.UsageError("give an allure-results folder, an artifact .zip or a log file (or --demo)")
    run_analyze(paths, demo=demo, settings=settings, store_settings=store_settings)
