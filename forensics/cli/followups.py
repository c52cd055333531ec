"""What happens after a report is built: write it, record it, annotate the tickets, pick the exit code.

The report is written first, so a store or tracker that fails never costs it; recording comes before
annotating, so ticket comments count this run. Exit code: 1 when recording failed, else 4 when a ticket
could not be annotated, else 3 when a --fail-on condition holds (a nightly with failures always meets
`--fail-on failures`, so it must not hide the other two).
"""

from __future__ import annotations

import json
import sys
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING

import click

from forensics.cli.common import ReportSettings, nothing_read, show_error, write_text
from forensics.cli.store_settings import StoreSettings
from forensics.errors import StoreError
from forensics.model import Report
from forensics.report.redact import Redactor
from forensics.usecases.exit_code import ExitCode, exit_code

if TYPE_CHECKING:  # the ticket code (HTTP clients and all) is imported only when tickets are annotated
    from forensics.annotate import History
    from forensics.cli.annotate import AnnotateSettings
    from forensics.services.http import HostCircuits


def finish_report(
    report: Report,
    *,
    settings: ReportSettings,
    store: StoreSettings,
    redactor: Redactor,
    annotation: AnnotateSettings | None = None,
    annotate_output: Path | None = None,
    circuits: HostCircuits | None = None,
) -> None:
    """Emit, then record (--record), then annotate (--annotate); exit with the code the module doc gives.

    `circuits`: the run's record of failing hosts, so a host given up while fetching is not asked again.
    """
    settings.emit(report)
    code = settings.exit_code(report)  # says on stderr when nothing could be read
    recorded, store_failed, tickets_failed = True, False, False
    try:
        if not nothing_read(report):  # a run that read no test would only add an empty run to the history
            store.record_report(report, redactor=redactor)
    except StoreError as err:  # the report is out; say why the store refused and still annotate
        show_error(err)
        recorded, store_failed = False, True
    if annotation is not None:  # the report is on stdout; the ticket outcomes go to stderr
        from forensics.render.annotation import render_result, result_to_dict

        history: AbstractContextManager[History | None] = (
            store.history_for(report) if recorded else nullcontext(None)
        )
        try:
            with history as cause_history:
                result = annotation.run(report, dry_run=False, history=cause_history, circuits=circuits)
        except StoreError as err:  # a store too old to read: the tickets still get the root causes
            show_error(err)
            store_failed = True
            result = annotation.run(report, dry_run=False, history=None, circuits=circuits)
        click.echo(render_result(result), err=True, nl=False)
        if annotate_output is not None:  # for machines (the Action): which tickets failed, whatever the code
            write_text(
                annotate_output, json.dumps(result_to_dict(result), indent=2, ensure_ascii=False) + "\n"
            )
        tickets_failed = bool(result.failed)
    code = exit_code(
        nothing_read=code is ExitCode.NOTHING_READ,
        fail_on_met=code is ExitCode.CHECK_FAILED,
        store_failed=store_failed,
        tickets_failed=tickets_failed,
    )
    if code:
        sys.exit(code)
