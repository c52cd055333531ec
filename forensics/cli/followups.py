"""`analyze` and `fetch` after the report is built: run the follow-up use case, print what it says, exit.

The order (write → record → step summary → annotate) and the exit code live in `usecases/follow_up.py`; here only the
options become arguments and the `FollowUp` becomes lines on stderr (stdout holds the report).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from forensics.cli.common import ReportSettings, show_error, write_text
from forensics.cli.store_settings import StoreSettings
from forensics.model import Report
from forensics.report.redact import Redactor
from forensics.usecases.follow_up import FollowUp, Recorded, follow_up

if TYPE_CHECKING:  # the ticket code (HTTP clients and all) is imported only when tickets are annotated
    from forensics.annotate import History
    from forensics.annotate.run import AnnotateResult
    from forensics.cli.annotate import AnnotateSettings
    from forensics.services.http import HostCircuits
    from forensics.store.since_last_run import SinceLastRun


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
    """Emit, then record (--record), then annotate (--annotate); exit with the code the follow-up picks.

    `circuits`: the run's record of failing hosts, so a host given up while fetching is not asked again.
    """

    def annotate(report: Report, history: History | None, since: SinceLastRun | None) -> AnnotateResult:
        assert annotation is not None
        return annotation.run(report, dry_run=False, history=history, since=since, circuits=circuits)

    done = follow_up(
        report,
        write=settings.emit,
        check=settings.exit_code,  # says on stderr when nothing could be read, or which --fail-on holds
        store=store.open if store.in_use else None,
        record=store.record,
        redactor=redactor,
        summarize=settings.write_summary if settings.summary_output is not None else None,
        annotate=annotate if annotation is not None else None,
        returning_after=store.returning_after,
    )
    show_follow_up(done, annotate_output=annotate_output)
    if done.code:
        sys.exit(done.code)


def show_follow_up(done: FollowUp, *, annotate_output: Path | None = None) -> None:
    """The recording, the store's problems and the ticket outcomes on stderr; the outcomes as JSON for machines."""
    if done.recorded is not None:
        _show_recorded(done.recorded)
    for problem in done.store_problems:
        show_error(problem)
    if done.annotated is not None:
        import click  # a plain `analyze` runs without click (forensics/cli/start.py)

        from forensics.render.annotation import render_result, result_to_dict

        click.echo(render_result(done.annotated), err=True, nl=False)
        if annotate_output is not None:  # for machines (the Action): which tickets failed, whatever the code
            text = json.dumps(result_to_dict(done.annotated), indent=2, ensure_ascii=False) + "\n"
            write_text(annotate_output, text)


def _show_recorded(recorded: Recorded) -> None:
    from rich.console import Console  # only after --record: a plain analyze never loads the terminal library

    console = Console(stderr=True, highlight=False)
    result, where = recorded.result, recorded.location
    if result.tests:
        failing = f" ({result.failing} failing)" if result.failing else ""
        console.out(f"Recorded {result.run} into {where}: {result.tests} tests{failing}", highlight=False)
    else:
        console.out(f"{result.run} was already recorded in {where}; nothing changed", highlight=False)
