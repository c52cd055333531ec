"""`analyze()`: the one library call behind `ci-forensics analyze` and `fetch`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from forensics.engine.scanner import CompiledRules
from forensics.errors import ResultsError
from forensics.inputs.archive import ZipArchive, open_regular
from forensics.inputs.discover import Input, LogInput, discover, printable_path
from forensics.model import EnvironmentFacts, InputInfo, Problem, Report, Verdict
from forensics.paths import PathArgument, path_strings
from forensics.report.evidence import observe
from forensics.report.grouping import group_verdicts
from forensics.report.identity import input_identity
from forensics.report.redact import redact_report
from forensics.report.session import AnalyzeOptions, InputSession
from forensics.rules.automata import AutomatonStore
from forensics.rules.model import RuleSet
from forensics.values import clean_text

if TYPE_CHECKING:  # the download side: a local analyze never loads it
    from forensics.sources.base import ArtifactSource, DownloadProgress, FetchedFile, FetchResult

__all__ = ["AnalyzeOptions", "analyze", "analyze_source", "open_inputs"]


def open_inputs(paths: Sequence[PathArgument], problems: list[Problem]) -> list[Input]:
    """Every input behind the paths; unreadable ones become problems, ResultsError when none is readable."""
    inputs = _discover_all(paths, problems)
    if not inputs:
        _raise_nothing_readable(problems)
    return inputs


def analyze(
    paths: PathArgument | Sequence[PathArgument],
    *,
    rules: RuleSet,
    options: AnalyzeOptions | None = None,
    fetched: FetchResult | None = None,
) -> Report:
    """Read every input, scan each failing test's logs once, and decide every test's verdict.

    `fetched` adds what an artifact source downloaded: its files (each input keeps its job, stage and
    artifact), its problems, and the run's context. One unreadable input becomes a problem and the
    others go on; ResultsError only when none is readable. `paths` are strings or `os.PathLike`s (one path
    alone is one input, not a sequence of characters).
    """
    options = options or AnalyzeOptions()
    # Hyperscan's database is read from beside the pack cache the rules came through (compiled there once per pack)
    automata = AutomatonStore(rules.automata_folder) if rules.automata_folder is not None else None
    compiled = CompiledRules(rules, use_literals=options.use_literals, automata=automata)
    problems: list[Problem] = list(fetched.problems) if fetched else []
    sourced: list[tuple[Input, FetchedFile | None]] = [
        *(_open_fetched(fetched.files, problems) if fetched else []),
        *((item, None) for item in _discover_all(paths, problems)),
    ]
    if not sourced:
        _raise_nothing_readable(problems)
    verdicts: list[Verdict] = []
    infos: list[InputInfo] = []
    seen_uuids: set[str] = set()
    for item, origin in sourced:
        environment, identity = EnvironmentFacts(), ""
        try:
            with InputSession(item, compiled, options, problems) as session:
                observed = observe(session, session.verdicts(session.tests(), redact=True))
                found, environment = observed.verdicts, observed.environment
                identity = input_identity(item.path, item.kind)  # what the input holds as it was read
        except Exception as err:  # one input's bug or odd content is a problem, never the end of the run
            problems.append(_input_failed(item.label, err))
            found = []
        found = _unique_uuids(found, seen_uuids, problems)
        verdicts.extend(found)
        infos.append(
            InputInfo(
                path=printable_path(item.path),
                kind=item.kind,
                label=item.label,
                tests=len(found),
                job_id=origin.job_id if origin else None,
                stage=origin.stage if origin else "",
                artifact=origin.artifact if origin else "",
                identity=identity,
                environment=environment,
            )
        )
    report = Report(
        inputs=tuple(infos),
        verdicts=tuple(verdicts),
        groups=group_verdicts(verdicts),
        problems=tuple(unique_problems(problems)),
        rules_loaded=len(rules),
        context=fetched.context if fetched else None,
    )
    return redact_report(report, options.redactor)


def analyze_source(
    source: ArtifactSource,
    *,
    rules: RuleSet,
    options: AnalyzeOptions | None = None,
    progress: DownloadProgress | None = None,
) -> Report:
    """Fetch what a source names (a CI job or run), then analyse it like `analyze`, with its CI context."""
    return analyze((), rules=rules, options=options, fetched=source.fetch(progress=progress))


def unique_problems(problems: list[Problem]) -> list[Problem]:
    """Each problem once, in the order first seen."""
    return list(dict.fromkeys(problems))


def _discover_all(paths: PathArgument | Sequence[PathArgument], problems: list[Problem]) -> list[Input]:
    inputs: list[Input] = []
    for path in path_strings(paths):
        try:
            inputs.extend(discover(path))
        except ResultsError as err:
            problems.append(Problem(object=path, message=err.message, hint=err.hint, severity="error"))
    return inputs


def _input_failed(label: str, err: Exception) -> Problem:
    return Problem(
        object=label,
        message=f"reading this input failed ({type(err).__name__}: {clean_text(str(err), limit=300)}); "
        "its tests are missing from the report",
        hint="please report this with the input attached: it is a bug in ci-forensics",
        severity="error",
    )


def _unique_uuids(found: list[Verdict], seen: set[str], problems: list[Problem]) -> list[Verdict]:
    """Every test keeps its own identity: a uuid met twice (two results, the same zip given twice) is renamed."""
    unique = []
    for verdict in found:
        uuid = verdict.test.uuid
        if uuid in seen:
            number = 2
            while f"{uuid}#{number}" in seen:
                number += 1
            renamed = f"{uuid}#{number}"
            problems.append(
                Problem(
                    object=f"{verdict.test.input_label}: test '{verdict.test.name}'",
                    message=f"uuid '{uuid}' is used by another test too; this one is shown as '{renamed}'",
                    hint="each Allure result needs its own uuid; was the same result given twice?",
                    test=renamed,
                )
            )
            seen.add(renamed)
            unique.append(replace(verdict, test=replace(verdict.test, uuid=renamed)))
            continue
        seen.add(uuid)
        unique.append(verdict)
    return unique


def _open_fetched(files: Sequence[FetchedFile], problems: list[Problem]) -> list[tuple[Input, FetchedFile]]:
    opened: list[tuple[Input, FetchedFile]] = []
    for fetched in files:
        if fetched.kind == "log":
            opened.append((_log_input(fetched.path, fetched), fetched))
            continue
        try:
            opened.append((ZipArchive(fetched.path, label=fetched.label), fetched))
        except ResultsError as err:
            problems.append(
                Problem(object=fetched.label, message=err.message, hint=err.hint, severity="error")
            )
    return opened


def _log_input(path: Path, fetched: FetchedFile) -> LogInput:
    return LogInput(
        path=str(path), label=fetched.label, open=lambda: open_regular(path), name=fetched.item_name
    )


def _raise_nothing_readable(problems: list[Problem]) -> None:
    first = problems[0] if problems else Problem(object="", message="no input given")
    named = first.object in first.message  # a path's problem names it already; a fetched job's does not
    raise ResultsError(first.message if named else f"{first.object}: {first.message}", hint=first.hint)
