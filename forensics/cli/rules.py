"""`ci-forensics rules …`: list, explain, test, lint, suggest and backtest root-cause rules."""

from __future__ import annotations

import difflib
import json
import os
import sys
from pathlib import Path

import click
from rich.console import Console

from forensics.cli.common import EXIT_FAIL_ON, translate_errors
from forensics.cli.progress import step_progress
from forensics.errors import ConfigError
from forensics.model import Category, RuleKind, RuleScope
from forensics.render.common import plural
from forensics.report.redact import Redactor, redact_data, redact_model
from forensics.report.saved import load_saved_report
from forensics.rules.loader import load_rules
from forensics.usecases.backtest import backtest
from forensics.usecases.lint import lint
from forensics.usecases.selftest import check_rule
from forensics.usecases.suggest import suggest


@click.group("rules")
def rules_group() -> None:
    """Work with root-cause rules: list, explain, test, lint, suggest, backtest."""


@rules_group.command("test")
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path), metavar="[PATH...]")
@click.option("--verbose", "-v", is_flag=True, help="Show every example, not only failures.")
@translate_errors
def rules_test_command(paths: tuple[Path, ...], verbose: bool) -> None:
    """Run every rule's examples (the shipped pack, or only the given files/folders)."""
    rules = load_rules(paths, include_shipped=not paths, cache=False)  # `rules test` validates every file now
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
@click.option(
    "--healthy",
    "healthy",
    multiple=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    metavar="FILE",
    help="Healthy logs of your own to measure the pre-filter literals on (repeatable; default: the shipped sample).",
)
@translate_errors
def rules_lint_command(paths: tuple[Path, ...], strict: bool, healthy: tuple[Path, ...]) -> None:
    """Check rules: schema, duplicate ids, examples, slow patterns, literals healthy traffic holds, missing near
    misses, equal-priority overlaps."""
    with step_progress("rules lint") as progress:
        traffic = [path.read_bytes() for path in healthy]
        findings = lint(paths, include_shipped=not paths, healthy=traffic, progress=progress)
    console = Console(highlight=False)
    for finding in findings:
        console.out(
            f"{finding.severity:<8}{finding.check:<13}{finding.rule_id or '-'}  {finding.path}: {finding.message}"
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
@translate_errors
def rules_suggest_command(report_path: Path, out_dir: Path | None) -> None:
    """Draft a rule for each group of unexplained failures in a JSON report (`analyze --format json`)."""
    # drafts quote fingerprint lines and test names: a report saved by an older version may hold secrets
    drafts = suggest(redact_data(load_saved_report(report_path), Redactor.from_environment(os.environ)))
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
@translate_errors
def rules_backtest_command(
    paths: tuple[str, ...], rule_paths: tuple[Path, ...], output_format: str, show_all: bool
) -> None:
    """Count each rule's hits on failing and passing tests of results, logs or saved JSON reports."""
    result = redact_model(  # test names and problems are printed
        backtest(list(paths), rules=load_rules(rule_paths)), Redactor.from_environment(os.environ)
    )
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
@click.option(
    "--scope",
    type=click.Choice([s.value for s in RuleScope]),
    help="Only rules tried on every line, or only the fatal-line rules tried on the likely-cause line.",
)
@translate_errors
def rules_list_command(
    rule_paths: tuple[Path, ...], category: str | None, kind: str | None, tag: str | None, scope: str | None
) -> None:
    """List the loaded rules (a fatal-line rule's title ends with `[likely-cause line only]`)."""
    console = Console(highlight=False)
    shown = 0
    for rule in load_rules(rule_paths):
        if (
            (category and rule.category.value != category)
            or (kind and rule.kind.value != kind)
            or (tag and tag not in rule.tags)
            or (scope and rule.scope.value != scope)
        ):
            continue
        shown += 1
        only = "  [likely-cause line only]" if rule.scope is RuleScope.LIKELY_CAUSE else ""
        console.out(
            f"{rule.id:<40} {rule.kind.value:<8} {rule.category.value:<17} {rule.priority:>3}  {rule.title}{only}"
        )
    console.out(plural(shown, "rule"))


@rules_group.command("explain")
@click.argument("rule_id")
@click.option(
    "--rules", "rule_paths", multiple=True, type=click.Path(path_type=Path), help="Extra rule files."
)
@translate_errors
def rules_explain_command(rule_id: str, rule_paths: tuple[Path, ...]) -> None:
    """Show one rule, its examples, and what it captures on them."""
    rules = load_rules(rule_paths)
    rule = rules.get(rule_id)
    if rule is None:
        ids = [r.id for r in rules]
        close = difflib.get_close_matches(rule_id, ids, n=5, cutoff=0.6)
        if not close:  # no near spelling: the rules of the same family (`vllm.` for `vllm.nope`)
            family = rule_id.split(".", maxsplit=1)[0] + "."
            close = [name for name in ids if name.startswith(family)][:5]
        listing = "`ci-forensics rules list` shows every rule"
        raise ConfigError(
            f"no rule '{rule_id}'",
            hint=f"did you mean {', '.join(close)}? ({listing})" if close else listing,
        )
    console = Console(highlight=False)
    console.out(f"{rule.id} — {rule.title}")
    console.out(
        f"  kind {rule.kind.value}, category {rule.category.value}, priority {rule.priority}; {rule.path}"
    )
    if rule.scope is RuleScope.LIKELY_CAUSE:
        console.out(
            "  scope likely-cause: a fatal-line family rule, tried only on the likely-cause line of a failure "
            "no other rule explains"
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
