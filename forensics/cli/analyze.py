"""`ci-forensics analyze`: local allure-results folders, artifact zips and logs."""

from __future__ import annotations

import click

from forensics.cli.common import ReportSettings, report_options, translate_errors
from forensics.cli.followups import finish_report
from forensics.cli.store_settings import StoreSettings, store_options
from forensics.report.build import analyze
from forensics.samples import SAMPLE


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
    inputs = [*paths, *([str(SAMPLE)] if demo else [])]
    if not inputs:
        raise click.UsageError("give an allure-results folder, an artifact .zip or a log file (or --demo)")
    options = settings.analyze_options(read_evidence=store_settings.record)
    report = analyze(inputs, rules=settings.rules(), options=options)
    finish_report(report, settings=settings, store=store_settings, redactor=options.redactor)
