"""The click declarations of the options `analyze` and `fetch` share (report and store options) and their parsers.

Kept apart from `forensics/cli/common.py` and `forensics/cli/store_settings.py`, which hold what the options become
and are click-free: a plain `analyze` runs without importing click (`forensics/cli/start.py` parses its common
forms from the table `forensics/cli/quick.py` keeps beside these declarations; tests/test_quick_start.py holds
the two equal, option by option).
"""

from __future__ import annotations

from pathlib import Path

import click

from forensics.cli.common import FAIL_ON_CHOICES, ReportSettings, option_group, size_in_bytes
from forensics.cli.quick import DEFAULTS
from forensics.cli.store_settings import STORE_VARIABLE, StoreSettings
from forensics.inputs.allure import DEFAULT_LOG_ATTACHMENTS
from forensics.render import RENDERERS
from forensics.report.session import default_jobs


def parse_size(_ctx: click.Context, _param: click.Parameter, value: str) -> int:
    """`512MiB`, `2G`, `100k` → bytes."""
    size = size_in_bytes(value)
    if size is None:
        raise click.BadParameter(f"{value!r} is not a size like 512MiB or 2G")
    return size


SUMMARY_MAX_BYTES_OPTION = click.option(
    "--summary-max-bytes",
    "summary_max_bytes",
    default=DEFAULTS["summary_max_bytes"],
    show_default=True,
    callback=parse_size,
    help="Cap the Markdown report (--format markdown, --summary-output) at this size; the least important "
    "details go first. GitHub refuses a step summary over 1 MiB.",
)

_REPORT_OPTIONS = (
    click.option(
        "--rules",
        "rule_paths",
        multiple=True,
        type=click.Path(path_type=Path),
        help="Extra rule file or folder; a rule with a shipped id replaces it. Repeatable.",
    ),
    click.option(
        "--log-attachment",
        "log_attachments",
        multiple=True,
        metavar="GLOB",
        help="Which attachments are logs, in order of preference "
        f"(default: {', '.join(DEFAULT_LOG_ATTACHMENTS)}). Repeatable.",
    ),
    click.option(
        "--format",
        "output_format",
        type=click.Choice(sorted(RENDERERS)),
        default=DEFAULTS["output_format"],
        show_default=True,
    ),
    click.option(
        "--output", "-o", type=click.Path(dir_okay=False, path_type=Path), help="Write the report here."
    ),
    click.option(
        "--fail-on",
        "fail_on",
        multiple=True,
        type=click.Choice(FAIL_ON_CHOICES),
        help="Exit 3 when the report has unexplained failures / any failure / problems. Repeatable.",
    ),
    click.option(
        "--jobs",
        "-j",
        type=click.IntRange(1, 64),
        default=default_jobs(),
        show_default=True,
        help="Worker processes for scanning logs (used when there is enough to scan).",
    ),
    click.option(
        "--max-log-size",
        default=DEFAULTS["max_log_size"],
        show_default=True,
        callback=parse_size,
        help="Analyse (and with --record, keep evidence from) at most this much of each log.",
    ),
    click.option(
        "--max-result-size",
        default=DEFAULTS["max_result_size"],
        show_default=True,
        callback=parse_size,
        help="Skip (with a problem) any Allure result or container file larger than this.",
    ),
    click.option(
        "--summary-output",
        type=click.Path(dir_okay=False, path_type=Path),
        help="Also write the Markdown step summary here, after recording; with a history store it starts "
        "with what changed since the last run (the Action appends it to $GITHUB_STEP_SUMMARY).",
    ),
    SUMMARY_MAX_BYTES_OPTION,
)


report_options = option_group(_REPORT_OPTIONS, into="settings", build=ReportSettings)
"""Add the shared report options; the command receives them as one `settings: ReportSettings`."""


def _store_settings(record: bool, store_location: str | None, returning_after: int) -> StoreSettings:
    """The store options' values as one `StoreSettings`."""
    return StoreSettings(record=record, location=store_location, returning_after=returning_after)


RETURNING_AFTER_OPTION = click.option(
    "--returning-after",
    "returning_after",
    type=click.IntRange(min=1),
    default=DEFAULTS["returning_after"],
    show_default=True,
    metavar="RUNS",
    help="With a store: a cause back after this many runs of its series without it is 'returning' "
    "(else it just recurs), in the step summary, ticket comments and dashboard.",
)

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
        RETURNING_AFTER_OPTION,
    ),
    into="store_settings",
    build=_store_settings,
)
"""Add --record, --store and --returning-after; the command receives them as one `store_settings: StoreSettings`."""
