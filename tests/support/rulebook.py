"""Build small rule sets from TOML text for tests that must not depend on the shipped pack, and read the root
cause a pack gives a one-test log."""

from __future__ import annotations

from pathlib import Path

from forensics.model import FoundBy, Report, RuleScope
from forensics.report.build import analyze
from forensics.rules.loader import load_rules
from forensics.rules.model import RuleSet


def rule_toml(
    rule_id: str,
    pattern: str,
    *,
    kind: str = "cause",
    priority: int = 50,
    extra: str = "",
    example: str | None = None,
) -> str:
    """One `[[rule]]` table with sensible defaults."""
    return f"""
[[rule]]
id = "{rule_id}"
title = "{rule_id} title"
category = "infrastructure"
kind = "{kind}"
priority = {priority}
patterns = ['''{pattern}''']
summary = "{rule_id} happened"
advice = "do something about {rule_id}"
{extra}
[[rule.examples]]
text = '''{example if example is not None else pattern}'''
"""


def rules_from(tmp_path: Path, *tables: str) -> RuleSet:
    """Write the tables to one file and load only it."""
    path = tmp_path / "rules.toml"
    path.write_text("\n".join(tables))
    return load_rules([path], include_shipped=False)


def root_cause_of(path: Path, rules: RuleSet) -> tuple[str | None, int | None]:
    """The rule and evidence line `rules` name for the one test of the log at `path`; (None, None) unexplained."""
    [verdict] = analyze([str(path)], rules=rules).verdicts
    cause = verdict.root_cause
    return (cause.rule_id, cause.evidence.line) if cause else (None, None)


def write_log(tmp_path: Path, lines: list[str]) -> Path:
    """`lines` as `job.log` in `tmp_path`, one per line."""
    log = tmp_path / "job.log"
    log.write_text("\n".join(lines) + "\n")
    return log


def without_ordinary_explainers(path: Path, rules: RuleSet) -> RuleSet:
    """`rules` less every ordinary (every-line) rule that explains the one test of the log at `path`, so that only
    the fatal-line tier can: a test of the tier keeps its real log when a rule author later widens an ordinary
    rule over it. At most two rules may go (more would mean the log no longer shows what the test is about)."""
    kept = tuple(rules)
    for _ in range(3):
        scanned = RuleSet(tuple(rule for rule in kept if rule.scope is RuleScope.EVERY_LINE))
        rule_id, _line = root_cause_of(path, scanned)
        if rule_id is None:
            return RuleSet(kept)
        kept = tuple(rule for rule in kept if rule.id != rule_id)
    raise AssertionError(f"{path.name}: more than two ordinary rules explain it")


def unexplained_train_report(rules: RuleSet) -> Report:
    """The report `rules` give on train's plain-log cases labelled `unexplained` (one test a log)."""
    from tests.corpus_accuracy import CORPUS, labels

    names = [label.name for label in labels("train") if label.family == "unexplained" and label.test is None]
    return analyze([str(CORPUS / "train" / name) for name in names], rules=rules)


def causes_found(report: Report, found_by: FoundBy) -> list[tuple[str, str]]:
    """(test, rule id) of each root cause in the report that was found `found_by`."""
    return [
        (verdict.test.full_name, verdict.root_cause.rule_id)
        for verdict in report.verdicts
        if verdict.root_cause is not None and verdict.root_cause.found_by is found_by
    ]
