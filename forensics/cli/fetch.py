"""`ci-forensics fetch`: download a GitHub Actions job's (or run's) allure artifacts, then report as `analyze`."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import click
from rich.console import Console
from rich.progress import BarColumn, DownloadColumn, Progress, TaskID, TextColumn, TransferSpeedColumn

from forensics.cli.annotate import AnnotateSettings, annotate_options
from forensics.cli.common import ReportSettings, translate_errors
from forensics.cli.followups import finish_report
from forensics.cli.options import report_options, store_options
from forensics.cli.store_settings import StoreSettings
from forensics.errors import ConfigError
from forensics.report.build import analyze
from forensics.report.redact import Redactor
from forensics.services.github import DEFAULT_API_URL, GitHubClient
from forensics.services.http import HostCircuits
from forensics.sources.base import DownloadProgress, SavedFetch, download_source
from forensics.sources.cache import DownloadCache, default_cache_directory
from forensics.sources.github_actions import GitHubActionsSource, GitHubActionsTarget
from forensics.sources.repository import resolve_repository


@click.command("fetch")
@click.option(
    "--job", "job_id", type=click.IntRange(min=1), metavar="ID", help="A job id (the number after /job/)."
)
@click.option(
    "--run", "run_id", type=click.IntRange(min=1), metavar="ID", help="A run id: all its failed jobs."
)
@click.option(
    "--workflow", metavar="FILE", help="A workflow file (nightly-ci.yml) or id, with --latest-failed."
)
@click.option("--branch", metavar="NAME", help="With --workflow: only runs on this branch.")
@click.option("--latest-failed", is_flag=True, help="With --workflow: its latest failed run.")
@click.option(
    "--repo",
    "repository",
    metavar="OWNER/NAME",
    help="Default: $GITHUB_REPOSITORY, else the git remote origin.",
)
@click.option(
    "--artifact",
    "artifact_glob",
    metavar="GLOB",
    help="Take the run's artifacts matching GLOB instead of each job's allure-results-…-RUN-JOB ones.",
)
@click.option(
    "--download-only",
    type=click.Path(file_okay=False, path_type=Path),
    metavar="DIR",
    help="Save the artifacts (and fallback job logs) into DIR and stop; `analyze DIR` reads them later.",
)
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
@click.option(
    "--annotate",
    is_flag=True,
    help="Then comment the root causes on the linked Linear, GitHub and Jira tickets (as `annotate`).",
)
@click.option(
    "--annotate-output",
    type=click.Path(dir_okay=False, path_type=Path),
    metavar="FILE",
    help="With --annotate: also write the ticket outcomes as JSON (as `annotate --format json`) to FILE.",
)
@annotate_options
@report_options
@store_options
@translate_errors
def fetch_command(
    job_id: int | None,
    run_id: int | None,
    workflow: str | None,
    branch: str | None,
    latest_failed: bool,
    repository: str | None,
    artifact_glob: str | None,
    download_only: Path | None,
    quiet: bool,
    annotate: bool,
    annotate_output: Path | None,
    annotation: AnnotateSettings,
    settings: ReportSettings,
    store_settings: StoreSettings,
) -> None:
    """Download a GitHub Actions job's allure artifacts (or its log) and find each failed test's root cause.

    Needs GITHUB_TOKEN (or GH_TOKEN) with `actions: read`; GITHUB_API_URL points at GitHub Enterprise.
    """
    if sum(given is not None for given in (job_id, run_id, workflow)) != 1:
        raise click.UsageError("give exactly one of --job ID, --run ID or --workflow FILE --latest-failed")
    if (workflow is not None) != latest_failed:
        raise click.UsageError("--workflow and --latest-failed go together")
    if branch is not None and workflow is None:
        raise click.UsageError("--branch only narrows --workflow")
    if annotate_output is not None and not annotate:
        raise click.UsageError("--annotate-output goes with --annotate")
    if download_only is not None:
        ignored = [
            flag
            for flag, given in (
                ("--annotate", annotate),
                ("--annotate-output", annotate_output is not None),
                ("--record", store_settings.record),
                ("--format", settings.output_format != "text"),
                ("--output", settings.output is not None),
                ("--summary-output", settings.summary_output is not None),
                ("--fail-on", bool(settings.fail_on)),
            )
            if given
        ]
        if ignored:
            raise click.UsageError(f"--download-only only downloads: {', '.join(ignored)} would do nothing")
    environment = os.environ
    token = environment.get("GITHUB_TOKEN") or environment.get("GH_TOKEN") or ""
    if not token:  # before any request: without a token every download is refused, after retries
        raise ConfigError(
            "fetch needs a GitHub token: GitHub serves artifacts and job logs only with one, even for "
            "public repositories",
            hint="set GITHUB_TOKEN (or GH_TOKEN) to a token with `actions: read` "
            "(in a workflow: env: GITHUB_TOKEN: ${{ github.token }})",
        )
    target = GitHubActionsTarget(
        repository=resolve_repository(repository, environment=environment, directory=Path.cwd()),
        job_id=job_id,
        run_id=run_id,
        workflow=workflow,
        branch=branch,
    )
    rules = settings.rules()  # a bad rule file fails before any download
    cache = DownloadCache(Path(environment.get("CI_FORENSICS_CACHE") or default_cache_directory()))
    stderr = Console(stderr=True, highlight=False)
    circuits = HostCircuits()  # one record of failing hosts for the downloads and the ticket comments
    client = GitHubClient(
        base_url=environment.get("GITHUB_API_URL") or DEFAULT_API_URL,
        token=token,
        notify=lambda message: stderr.out(f"notice: {message}", highlight=False),
        circuits=circuits,
    )
    source = GitHubActionsSource(client=client, target=target, cache=cache, artifact_glob=artifact_glob)
    # the progress bar's thread ends before the analysis: worker processes are forked only without threads
    with client, _progress(stderr, enabled=not quiet) as progress:
        if download_only is not None:
            _print_saved(download_source(source, download_only, progress=progress), stderr)
            return
        fetched = source.fetch(progress=progress)
    options = settings.analyze_options(read_evidence=store_settings.record)
    report = analyze((), rules=rules, options=options, fetched=fetched)
    finish_report(
        report,
        settings=settings,
        store=store_settings,
        redactor=options.redactor,
        annotation=annotation if annotate else None,
        annotate_output=annotate_output,
        circuits=circuits,
    )


def _print_saved(saved: SavedFetch, stderr: Console) -> None:
    """The saved files on stdout (one per line), problems and hints on stderr."""
    redactor = Redactor.from_environment(os.environ)
    for problem in saved.problems:
        stderr.out(f"{problem.severity}: {redactor.text(problem.object)}: {redactor.text(problem.message)}")
        if problem.hint:
            stderr.out(f"  hint: {problem.hint}", highlight=False)
    console = Console(highlight=False)
    for path in saved.paths:
        console.out(str(path), highlight=False)


@contextmanager
def _progress(console: Console, *, enabled: bool) -> Iterator[DownloadProgress | None]:
    """A download bar per file on stderr, only for a terminal."""
    if not enabled or not console.is_terminal:
        yield None
        return
    columns = (TextColumn("{task.description}"), BarColumn(), DownloadColumn(), TransferSpeedColumn())
    with Progress(*columns, console=console, transient=True) as bars:
        tasks: dict[str, TaskID] = {}

        def update(label: str, done: int, total: int | None) -> None:
            if label not in tasks:
                tasks[label] = bars.add_task(_shorten(label), total=total)
            bars.update(tasks[label], completed=done, total=total)

        yield update


def _shorten(label: str, width: int = 48) -> str:
    return label if len(label) <= width else f"…{label[-(width - 1) :]}"
