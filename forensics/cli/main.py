"""`ci-forensics`: a translator from flags to library calls; exit codes 0 done, 1 error, 2 usage, 3 fail-on."""

from __future__ import annotations

import functools
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click
import regex
from rich.console import Console

from forensics.engine.scanner import ScanLimits
from forensics.errors import ForensicsError
from forensics.inputs.allure import DEFAULT_LOG_ATTACHMENTS
from forensics.model import Category, Report, RuleKind
from forensics.render import RENDERERS
from forensics.render.common import plural
from forensics.report.backtest import backtest
from forensics.report.build import AnalyzeOptions, analyze
from forensics.report.redact import Redactor
from forensics.report.saved import load_saved_report
from forensics.report.session import default_jobs
from forensics.rules.lint import lint
from forensics.rules.loader import load_rules
from forensics.rules.selftest import check_rule
from forensics.rules.suggest import suggest
from forensics.version import __version__

EXIT_ERROR = 1
EXIT_FAIL_ON = 3
SAMPLE = Path(__file__).resolve().parent.parent / "samples" / "nightly-allure-results.zip"
_SIZE = regex.compile(r"(?i)\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(?:i?b)?\s*")
_F = TypeVar("_F", bound=Callable[..., Any])


def _translate_errors(command: _F) -> _F:
    """The one place that turns the error hierarchy into `Error:`/`Hint:` and exit code 1."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except ForensicsError as err:
            console = Console(stderr=True, highlight=False)
            console.out(f"Error: {err.message}", highlight=False)
            if err.hint:
                console.out(f"Hint: {err.hint}", highlight=False)
            sys.exit(EXIT_ERROR)

    return wrapper  # type: ignore[return-value]


def _parse_size(_ctx: click.Context, _param: click.Parameter, value: str) -> int:
    match = _SIZE.fullmatch(value)
    if match is None:
        raise click.BadParameter(f"{value!r} is not a size like 512MiB or 2G")
    scale = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}[match[2].lower()]
    return int(float(match[1]) * scale)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="ci-forensics")
def main() -> None:
    """Tell why each test in a failed CI run really failed."""


@main.command("analyze")
@click.argument("paths", nargs=-1, metavar="PATH...")
@click.option("--demo", is_flag=True, help="Analyse the bundled sample nightly artifact.")
@click.option(
    "--rules",
    "rule_paths",
    multiple=True,
    type=click.Path(path_type=Path),
    help="Extra rule file or folder; a rule with a shipped id replaces it. Repeatable.",
)
@click.option(
    "--log-attachment",
    "log_attachments",
    multiple=True,
    metavar="GLOB",
    help=f"Which attachments are logs, in order of preference (default: {', '.join(DEFAULT_LOG_ATTACHMENTS)}). "
    "Repeatable.",
)
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
    type=click.Choice(["unexplained", "failures", "problems"]),
    help="Exit 3 when the report has unexplained failures / any failure / problems. Repeatable.",
)
@click.option(
    "--jobs",
    "-j",
    type=click.IntRange(1, 64),
    default=default_jobs(),
    show_default=True,
    help="Worker processes for scanning logs (used when there is enough to scan).",
)
@click.option(
    "--max-log-size",
    default="512MiB",
    show_default=True,
    callback=_parse_size,
    help="Analyse at most this much of each log.",
)
@_translate_errors
def analyze_command(
    paths: tuple[str, ...],
    demo: bool,
    rule_paths: tuple[Path, ...],
    log_attachments: tuple[str, ...],
    output_format: str,
    output: Path | None,
    fail_on: tuple[str, ...],
    jobs: int,
    max_log_size: int,
) -> None:
    """Find each failed test's root cause in allure-results folders, artifact zips or logs ('-' = stdin)."""
    inputs = [*paths, *([str(SAMPLE)] if demo else [])]
    if not inputs:
        raise click.UsageError("give an allure-results folder, an artifact .zip or a log file (or --demo)")
    options = AnalyzeOptions(
        log_attachments=log_attachments or DEFAULT_LOG_ATTACHMENTS,
        limits=ScanLimits(max_bytes=max_log_size),
        jobs=jobs,
        redactor=Redactor.from_environment(os.environ),
    )
    report = analyze(inputs, rules=load_rules(rule_paths), options=options)
    emit(report, output_format, output)
    if _should_fail(report, fail_on):
        sys.exit(EXIT_FAIL_ON)


def emit(report: Report, output_format: str, output: Path | None) -> None:
    """Render the report in one format to a file or stdout."""
    rendered = RENDERERS[output_format](report)
    if output is None:
        console = Console(highlight=False)
        if isinstance(rendered, str):
            console.out(rendered, end="", highlight=False)
        else:
            console.print(rendered)
        return
    with output.open("w", encoding="utf-8") as stream:
        if isinstance(rendered, str):
            stream.write(rendered)
        else:
            Console(file=stream, width=120, no_color=True, highlight=False).print(rendered)


def _should_fail(report: Report, fail_on: tuple[str, ...]) -> bool:
    return (
        ("unexplained" in fail_on and report.unexplained_count > 0)
        or ("failures" in fail_on and len(report.failing) > 0)
        or ("problems" in fail_on and len(report.problems) > 0)
    )


@main.group("rules")
def rules_group() -> None:
    """Work with root-cause rules: list, explain, test."""


@rules_group.command("test")
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path), metavar="[PATH...]")
@click.option("--verbose", "-v", is_flag=True, help="Show every example, not only failures.")
@_translate_errors
def rules_test_command(paths: tuple[Path, ...], verbose: bool) -> None:
    """Run every rule's examples (the shipped pack, or only the given files/folders)."""
    rules = load_rules(paths, include_shipped=not paths)
    console = Console(highlight=False)
    failed = 0
    for rule in rules:
        check = check_rule(rule)
        if check.passed:
            console.out(
                f"PASS {rule.id} ({len(rule.examples)} examples, {len(rule.near_misses)} near misses)"
            )
        else:
            failed += 1
            console.out(f"FAIL {rule.id} ({rule.path})")
        for result in check.results:
            if verbose or not result.passed:
                console.out(
                    f"     {'ok  ' if result.passed else 'FAIL'} {result.kind} {result.number}: {result.detail}"
                )
    console.out(f"{len(rules) - failed} passed, {failed} failed")
    if failed:
        sys.exit(EXIT_FAIL_ON)


@rules_group.command("lint")
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path), metavar="[PATH...]")
@click.option("--strict", is_flag=True, help="Exit 3 on warnings too.")
@_translate_errors
def rules_lint_command(paths: tuple[Path, ...], strict: bool) -> None:
    """Check rules: schema, duplicate ids, examples, slow patterns, missing near misses, equal-priority overlaps."""
    findings = lint(paths, include_shipped=not paths)
    console = Console(highlight=False)
    for finding in findings:
        console.out(
            f"{finding.severity:<8}{finding.check:<12}{finding.rule_id or '-'}  {finding.path}: {finding.message}"
        )
    errors = sum(1 for finding in findings if finding.severity == "error")
    warnings = len(findings) - errors
    console.out(f"{plural(errors, 'error')}, {plural(warnings, 'warning')}")
    if errors or (strict and warnings):
        sys.exit(EXIT_FAIL_ON)


@rules_group.command("suggest")
@click.argument(
    "report_path", type=click.Path(exists=True, dir_okay=False, path_type=Path), metavar="REPORT.json"
)
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Write one draft file per group here instead of printing them.",
)
@_translate_errors
def rules_suggest_command(report_path: Path, out_dir: Path | None) -> None:
    """Draft a rule for each group of unexplained failures in a JSON report (`analyze --format json`)."""
    drafts = suggest(load_saved_report(report_path))
    console = Console(highlight=False)
    if not drafts:
        console.out("no unexplained groups to draft rules for")
        return
    for draft in drafts:
        if out_dir is None:
            console.out(draft.text)
            continue
        out_dir.mkdir(parents=True, exist_ok=True)
        (out_dir / draft.file_name).write_text(draft.text, encoding="utf-8")
        console.out(f"wrote {out_dir / draft.file_name} ({plural(len(draft.tests), 'test')})")


@rules_group.command("backtest")
@click.argument("paths", nargs=-1, required=True, metavar="PATH...")
@click.option(
    "--rules", "rule_paths", multiple=True, type=click.Path(path_type=Path), help="Extra rule files."
)
@click.option(
    "--format", "output_format", type=click.Choice(["text", "json"]), default="text", show_default=True
)
@click.option("--all", "show_all", is_flag=True, help="Also list rules that never fired.")
@_translate_errors
def rules_backtest_command(
    paths: tuple[str, ...], rule_paths: tuple[Path, ...], output_format: str, show_all: bool
) -> None:
    """Count each rule's hits on failing and passing tests of results, logs or saved JSON reports."""
    result = backtest(list(paths), rules=load_rules(rule_paths))
    console = Console(highlight=False)
    rows = [hits for hits in result.rules if show_all or hits.failing or hits.passing]
    if output_format == "json":
        document = {
            "failing_tests": result.failing_tests,
            "passing_tests": result.passing_tests,
            "reports_read": result.reports_read,
            "rules": [
                {
                    "rule": h.rule_id,
                    "kind": h.kind,
                    "failing": h.failing,
                    "passing": h.passing,
                    "failing_examples": h.failing_examples,
                    "passing_examples": h.passing_examples,
                }
                for h in rows
            ],
            "problems": [{"object": p.object, "message": p.message} for p in result.problems],
        }
        console.out(json.dumps(document, indent=2), highlight=False)
        return
    console.out(
        f"{result.failing_tests} failing and {result.passing_tests} passing tests"
        + (f", {result.reports_read} saved report(s)" if result.reports_read else "")
    )
    console.out(f"{'rule':<40} {'kind':<8} {'failing':>7} {'passing':>7}")
    for hits in sorted(rows, key=lambda h: (-h.passing, -h.failing, h.rule_id)):
        note = "  fires on passing tests: probably matching noise" if hits.passing else ""
        console.out(f"{hits.rule_id:<40} {hits.kind:<8} {hits.failing:>7} {hits.passing:>7}{note}")
        for name in hits.passing_examples:
            console.out(f"{'':<10}passing: {name}")
    for problem in result.problems:
        console.out(f"problem: {problem.object}: {problem.message}")


@rules_group.command("list")
@click.option(
    "--rules", "rule_paths", multiple=True, type=click.Path(path_type=Path), help="Extra rule files."
)
@click.option("--category", type=click.Choice([c.value for c in Category]), help="Only this category.")
@click.option("--kind", type=click.Choice([k.value for k in RuleKind]), help="Only causes or only symptoms.")
@click.option("--tag", help="Only rules with this tag.")
@_translate_errors
def rules_list_command(
    rule_paths: tuple[Path, ...], category: str | None, kind: str | None, tag: str | None
) -> None:
    """List the loaded rules."""
    console = Console(highlight=False)
    shown = 0
    for rule in load_rules(rule_paths):
        if (
            (category and rule.category.value != category)
            or (kind and rule.kind.value != kind)
            or (tag and tag not in rule.tags)
        ):
            continue
        shown += 1
        console.out(
            f"{rule.id:<40} {rule.kind.value:<8} {rule.category.value:<17} {rule.priority:>3}  {rule.title}"
        )
    console.out(plural(shown, "rule"))


@rules_group.command("explain")
@click.argument("rule_id")
@click.option(
    "--rules", "rule_paths", multiple=True, type=click.Path(path_type=Path), help="Extra rule files."
)
@_translate_errors
def rules_explain_command(rule_id: str, rule_paths: tuple[Path, ...]) -> None:
    """Show one rule, its examples, and what it captures on them."""
    rules = load_rules(rule_paths)
    rule = rules.get(rule_id)
    if rule is None:
        close = [r.id for r in rules if rule_id.rsplit(".", maxsplit=1)[-1] in r.id][:5]
        raise ForensicsError(
            f"no rule '{rule_id}'",
            hint=f"did you mean: {', '.join(close)}" if close else "`ci-forensics rules list`",
        )
    console = Console(highlight=False)
    console.out(f"{rule.id} — {rule.title}")
    console.out(
        f"  kind {rule.kind.value}, category {rule.category.value}, priority {rule.priority}; {rule.path}"
    )
    if rule.tags:
        console.out(f"  tags: {', '.join(rule.tags)}")
    for pattern in rule.patterns:
        console.out(f"  pattern:  {pattern.pattern}")
    for pattern in rule.requires:
        console.out(f"  requires: {pattern.pattern}")
    for pattern in rule.excludes:
        console.out(f"  excludes: {pattern.pattern}")
    for pattern in rule.context:
        console.out(f"  context:  {pattern.pattern}")
    for name, expression in rule.derive:
        console.out(f"  derive:   {name} = {expression.source}")
    console.out(f"  summary:  {rule.summary.source}")
    if rule.advice:
        console.out(f"  advice:   {rule.advice}")
    check = check_rule(rule)
    for result, example in zip(check.results, (*rule.examples, *rule.near_misses), strict=True):
        console.out(
            f"\n  {result.kind} {result.number}: {'ok' if result.passed else 'FAIL'} — {result.detail}"
        )
        if example.source:
            console.out(f"    source: {example.source}")
        for name, value in result.fields:
            console.out(f"    {name} = {value!r}")
