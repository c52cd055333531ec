"""`ci-forensics annotate`: post each failure's root cause on the tickets the report links to.

Exit codes: 0 every ticket annotated (or nothing to do), 1 error (the report cannot be read),
2 usage, 4 at least one ticket failed (with --strict: also when a reference did not resolve).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Mapping
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
import regex

from forensics.annotate import (
    AnnotateOptions,
    AnnotateResult,
    History,
    SinkUnavailable,
    annotate_report,
)
from forensics.cli.common import option_group, translate_errors
from forensics.cli.options import RETURNING_AFTER_OPTION
from forensics.cli.store_settings import STORE_VARIABLE, StoreSettings
from forensics.model import Report
from forensics.render.annotation import render_result, result_to_dict
from forensics.report.redact import Redactor
from forensics.report.saved import load_report
from forensics.services.github import DEFAULT_API_URL
from forensics.services.http import HostCircuits
from forensics.services.jira import JiraClient
from forensics.services.linear import DEFAULT_LINEAR_URL, LinearClient
from forensics.sinks.base import TicketSink
from forensics.sinks.github import GitHubCommentSink
from forensics.sinks.jira import JiraCommentSink
from forensics.sinks.linear import LinearCommentSink

if TYPE_CHECKING:
    from forensics.store.since_last_run import SinceLastRun

__all__ = [
    "EXIT_TICKETS_FAILED",
    "AnnotateSettings",
    "annotate_command",
    "annotate_options",
    "connect_sinks",
    "render_result",  # fetch --annotate prints the outcome as annotate does
]

EXIT_TICKETS_FAILED = 4
TRACKER_TIMEOUT = 8.0
"""Seconds to wait for a tracker's answer: comment APIs answer in about a second; 8 s of silence is an outage."""
_REPOSITORY = regex.compile(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+")
_LIST_SEPARATOR = regex.compile(r"[\s,]+")


@dataclass(frozen=True, slots=True)
class AnnotateSettings:
    """The ticket options `annotate` and `fetch --annotate` share, as the user gave them."""

    tickets: tuple[str, ...]
    repository: str | None
    jira_url: str | None
    jira_projects: tuple[str, ...]
    scope: str

    def run(
        self,
        report: Report,
        *,
        dry_run: bool,
        history: History | None = None,
        since: SinceLastRun | None = None,
        circuits: HostCircuits | None = None,
    ) -> AnnotateResult:
        """Connect a sink per tracker from the environment and annotate every linked ticket.

        `circuits` is the run's record of failing hosts (fetch --annotate shares its own with the trackers).
        """
        if self.repository and not _REPOSITORY.fullmatch(self.repository):
            raise click.BadParameter(f"{self.repository!r} is not owner/name", param_hint="--repo")
        projects = {*self.jira_projects, *_LIST_SEPARATOR.split(os.environ.get("JIRA_PROJECTS", ""))} - {""}
        options = AnnotateOptions(
            repository=self.repository or "",
            jira_base_url=self.jira_url or "",
            jira_projects=frozenset(project.upper() for project in projects),
            scope=self.scope,
            redactor=Redactor.from_environment(os.environ),  # posted text leaves the machine: redact again
        )
        with ExitStack() as stack:
            sinks = (
                {}
                if dry_run
                else connect_sinks(
                    os.environ,
                    jira_url=self.jira_url or "",
                    close=stack.callback,
                    circuits=circuits or HostCircuits(),
                )
            )
            return annotate_report(
                report,
                sinks=sinks,
                extra_tickets=self.tickets,
                dry_run=dry_run,
                options=options,
                history=history,
                since=since,
            )


_ANNOTATE_OPTIONS = (
    click.option(
        "--ticket",
        "tickets",
        multiple=True,
        metavar="KEY",
        help="Also annotate this ticket with every failure in the report: OPS-123, owner/repo#12, #12 or a "
        "URL. Repeatable.",
    ),
    click.option(
        "--jira-url", metavar="URL", envvar="JIRA_BASE_URL", help="Jira Cloud site [env JIRA_BASE_URL]."
    ),
    click.option(
        "--jira-project",
        "jira_projects",
        multiple=True,
        metavar="KEY",
        help="A project whose bare keys (KEY-123) are Jira tickets, not Linear ones. Repeatable "
        "[env JIRA_PROJECTS, comma-separated].",
    ),
    click.option(
        "--scope", default="", help="Keep one comment per ticket and scope (e.g. the workflow name)."
    ),
)

annotate_options = option_group(
    _ANNOTATE_OPTIONS, into="annotation", build=AnnotateSettings, keep=("repository",)
)
"""Add the shared ticket options; the command receives them as one `annotation: AnnotateSettings`."""


@click.command("annotate")
@click.argument("report_path", metavar="REPORT.json", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--dry-run", is_flag=True, help="Print, per ticket, exactly what would be posted; send nothing."
)
@click.option(
    "--repo", "repository", metavar="OWNER/NAME", help="Repository of bare #N (default: the report's CI run)."
)
@annotate_options
@click.option(
    "--format", "output_format", type=click.Choice(["text", "json"]), default="text", show_default=True
)
@click.option("--strict", is_flag=True, help="Also exit 4 when a ticket reference does not resolve.")
@click.option(
    "--store",
    "store_location",
    envvar=STORE_VARIABLE,
    metavar="LOCATION",
    help="History store to show each cause's first/last seen and counts from (only read; without --store "
    f"or {STORE_VARIABLE} no history is shown): a SQLite file, sqlite:///path or postgresql://user@host/db "
    f"[env {STORE_VARIABLE}].",
)
@RETURNING_AFTER_OPTION
@translate_errors
def annotate_command(
    report_path: Path,
    dry_run: bool,
    repository: str | None,
    annotation: AnnotateSettings,
    output_format: str,
    strict: bool,
    store_location: str | None,
    returning_after: int,
) -> None:
    """Comment each failure's root cause on its Linear, GitHub and Jira tickets (one comment per ticket).

    \b
    Credentials: LINEAR_API_KEY (endpoint LINEAR_API_URL), GITHUB_TOKEN or GH_TOKEN (GITHUB_API_URL),
    JIRA_BASE_URL with JIRA_EMAIL and JIRA_API_TOKEN. The tool's comment is edited in place on later runs.
    With a history store (--store or CI_FORENSICS_STORE), each cause shows first/last seen and its counts,
    and, when the store holds the report's run, what changed since the run before it.
    Exit codes: 0 done, 1 error, 2 usage, 4 a ticket could not be annotated.
    """
    report = load_report(report_path)
    from forensics.usecases.follow_up import store_reads

    store = StoreSettings(record=False, location=store_location)
    with store_reads(
        report, store=store.open if store.in_use else None, record=False, returning_after=returning_after
    ) as reads:
        result = annotation.run(report, dry_run=dry_run, history=reads.history, since=reads.since)
    if output_format == "json":
        click.echo(json.dumps(result_to_dict(result), indent=2, ensure_ascii=False))
    else:
        click.echo(render_result(result), nl=False)
    if result.failed or (strict and result.problems):
        sys.exit(EXIT_TICKETS_FAILED)


def connect_sinks(
    environment: Mapping[str, str],
    *,
    jira_url: str,
    close: Callable[[Callable[[], None]], Any],
    circuits: HostCircuits,
) -> dict[str, TicketSink | SinkUnavailable]:
    """A sink per tracker from the environment; a tracker without credentials fails its tickets with a hint.

    Every client shares `circuits`: a host that keeps failing is given up once for the run, not per ticket.
    """

    def notify(message: str) -> None:
        click.echo(message, err=True)

    sinks: dict[str, TicketSink | SinkUnavailable] = {}
    linear_key = environment.get("LINEAR_API_KEY", "")
    if linear_key:
        linear = LinearClient(
            api_key=linear_key,
            base_url=environment.get("LINEAR_API_URL") or DEFAULT_LINEAR_URL,
            timeout=TRACKER_TIMEOUT,
            notify=notify,
            circuits=circuits,
        )
        close(linear.close)
        sinks["linear"] = LinearCommentSink(linear)
    else:
        sinks["linear"] = SinkUnavailable("no Linear API key", hint="set LINEAR_API_KEY to a Linear API key")
    github_token = environment.get("GITHUB_TOKEN") or environment.get("GH_TOKEN") or ""
    if github_token:
        github = GitHubCommentSink.connect(
            token=github_token,
            base_url=environment.get("GITHUB_API_URL") or DEFAULT_API_URL,
            timeout=TRACKER_TIMEOUT,
            notify=notify,
            circuits=circuits,
        )
        close(github.close)
        sinks["github"] = github
    else:
        sinks["github"] = SinkUnavailable(
            "no GitHub token",
            hint="set GITHUB_TOKEN (or GH_TOKEN) to a token with `issues: write` (`pull-requests: write`)",
        )
    jira_email, jira_token = environment.get("JIRA_EMAIL", ""), environment.get("JIRA_API_TOKEN", "")
    missing = [
        name
        for name, value in (
            ("JIRA_BASE_URL", jira_url),
            ("JIRA_EMAIL", jira_email),
            ("JIRA_API_TOKEN", jira_token),
        )
        if not value
    ]
    if missing:
        sinks["jira"] = SinkUnavailable("no Jira credentials", hint=f"set {' and '.join(missing)}")
    else:
        jira = JiraClient(
            base_url=jira_url,
            email=jira_email,
            api_token=jira_token,
            timeout=TRACKER_TIMEOUT,
            notify=notify,
            circuits=circuits,
        )
        close(jira.close)
        sinks["jira"] = JiraCommentSink(jira)
    return sinks
