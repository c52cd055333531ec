"""`ci-forensics render`: a saved JSON report in another format, so one download serves every format."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from forensics.cli.common import (
    EXIT_FAIL_ON,
    FAIL_ON_CHOICES,
    emit,
    should_fail,
    translate_errors,
)
from forensics.cli.options import SUMMARY_MAX_BYTES_OPTION
from forensics.render import RENDERERS
from forensics.report.saved import load_report


@click.command("render")
@click.argument("report_path", metavar="REPORT.json", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--format", "output_format", type=click.Choice(sorted(RENDERERS)), default="text", show_default=True
)
@click.option(
    "--output", "-o", type=click.Path(dir_okay=False, path_type=Path), help="Write the report here."
)
@click.option(
    "--fail-on",
    "fail_on",
    multiple=True,
    type=click.Choice(FAIL_ON_CHOICES),
    help="Exit 3 when the report has unexplained failures / any failure / problems. Repeatable.",
)
@SUMMARY_MAX_BYTES_OPTION
@translate_errors
def render_command(
    report_path: Path,
    output_format: str,
    output: Path | None,
    fail_on: tuple[str, ...],
    summary_max_bytes: int,
) -> None:
    """Render a report saved by `analyze`/`fetch --format json` as text, JSON, Markdown or annotations."""
    report = load_report(report_path)
    emit(report, output_format, output, summary_max_bytes=summary_max_bytes)
    if should_fail(report, fail_on):
        sys.exit(EXIT_FAIL_ON)
