"""Budgets on what content controls (issue 11): derived values, summary widths, backtracking repeats, JSON
elements, times and names checked where they are read, and one identity per test."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from forensics.inputs.allure import read_allure
from forensics.inputs.archive import DirectoryArchive
from forensics.render import RENDERERS
from forensics.report.build import analyze
from forensics.rules.backtracking import backtracking_repeats
from forensics.rules.expressions import MAX_NODES, Expression
from forensics.rules.model import RuleSet
from forensics.rules.template import Template, format_value
from forensics.usecases.lint import lint
from forensics.values import MAX_EPOCH_MS, BadValueError, clean_text, epoch_milliseconds, text_of
from tests.support.rulebook import rule_toml

HOSTILE = Path(__file__).resolve().parent / "hostile" / "results"


@pytest.mark.parametrize(
    "source",
    [
        "((((10**64)**64)**64)**64)**64",
        "(10**64)**64*(10**64)**5",
        "2**1023*2",
        "round(5, -10**9)",
        "n**64**64",
    ],
)
def test_a_derived_value_past_the_digit_budget_is_undefined_at_once(source: str) -> None:
    started = time.perf_counter()
    assert Expression.parse(source).evaluate({"n": 10**60}) is None
    assert time.perf_counter() - started < 0.5


def test_ordinary_derived_values_still_compute() -> None:
    assert Expression.parse("round(want - free, 2)").evaluate({"want": 19.83, "free": 19.5}) == 0.33
    assert Expression.parse("10**64 // 10**63").evaluate({}) == 10
    assert Expression.parse("max(a, (2**64)**15)").evaluate({"a": 1}) == 2**960


@pytest.mark.parametrize(
    ("source", "reason"),
    [
        (" + ".join(["n"] * 20_000), "longer than"),
        ("min(" + ", ".join(["n"] * MAX_NODES) + ")", "steps"),
        ("-" * 40 + "n", "nested more than"),
        ("min(" * 40 + "n" + ")" * 40, "nested more than"),
        ("1" * 400, r"larger than 2\*\*1024"),
    ],
)
def test_an_expression_over_the_step_budget_is_refused_when_the_rule_loads(source: str, reason: str) -> None:
    with pytest.raises(ValueError, match=reason):
        Expression.parse(source)


def test_a_summary_width_is_capped() -> None:
    with pytest.raises(ValueError, match="widths and precisions go up to 100"):
        Template.parse("{v:>2000000000}")
    with pytest.raises(ValueError, match="widths and precisions"):
        Template.parse("{v:.5000f}")
    assert Template.parse("{v:>8.2f}").render({"v": 3.14159}) == "    3.14"
    assert format_value(7, ">2000000000") == "7"  # a spec from anywhere else is ignored, not obeyed


@pytest.mark.parametrize(
    "pattern", [r"(a|aa)+$", r"(a+)+", r"(\w+\s?)*$", r"Error: (\d+\.?)+x", r"(?:\s+|\S+)+", r"(x+x+)+y"]
)
def test_backtracking_repeats_are_found(pattern: str) -> None:
    assert backtracking_repeats(pattern)


@pytest.mark.parametrize(
    "pattern",
    [r"(\d+\.)+\d+", r"(?:[a-z]+ )+", r"\S+", r"(a|ab)+", r"(?:\w+\.)+\w+", r"(?:[^,]+,)+", r"(?:ab){2,3}"],
)
def test_unambiguous_repeats_are_not_flagged(pattern: str) -> None:
    assert backtracking_repeats(pattern) == []


def test_lint_makes_a_backtracking_repeat_an_error(tmp_path: Path) -> None:
    path = tmp_path / "mine.toml"
    path.write_text(rule_toml("x.words", r"RunnerError: (\w+\s?)*$", example="RunnerError: two words"))
    findings = lint([path], include_shipped=False, line_bytes=1024, timeout=0.2)
    backtracking = [finding for finding in findings if finding.check == "backtracking"]
    assert [(finding.severity, finding.rule_id) for finding in backtracking] == [("error", "x.words")]
    assert "patterns[1]" in backtracking[0].message


def test_times_are_checked_and_names_cleaned_where_they_are_read() -> None:
    assert epoch_milliseconds(1767225600000, field="start") == 1767225600000
    assert epoch_milliseconds(None, field="start") is None
    for bad in (-1, -(10**18), MAX_EPOCH_MS + 1, float("nan"), float("inf"), "1767225600000", True, [1]):
        with pytest.raises(BadValueError):
            epoch_milliseconds(bad, field="start")
    assert clean_text("a\ud800b\x00c") == "a\ufffdb\ufffdc"
    assert clean_text("x" * 10, limit=5) == "xxxx…"
    assert text_of({"a": 1}) == "" and text_of(7) == "7" and text_of(float("nan")) == ""
    clean_text("test_\udcff").encode("utf-8")


def test_a_result_with_too_many_json_values_is_skipped_before_it_is_parsed(tmp_path: Path) -> None:
    (tmp_path / "a-result.json").write_text(
        json.dumps({"uuid": "a", "status": "failed", "labels": [{}] * 50})
    )
    (tmp_path / "b-result.json").write_text(json.dumps({"uuid": "b", "status": "failed"}))
    results = read_allure(DirectoryArchive(tmp_path), max_json_values=20)
    assert [test.uuid for test in results.tests] == ["b"]
    assert [problem.object.rsplit(": ", 1)[1] for problem in results.problems] == ["a-result.json"]
    assert "more than the 20 limit" in results.problems[0].message


def test_one_uuid_with_two_verdicts_renders_in_every_format(rule_pack: RuleSet) -> None:
    report = analyze([str(HOSTILE / "one-uuid-two-verdicts")], rules=rule_pack)
    uuids = [verdict.test.uuid for verdict in report.verdicts]
    assert len(set(uuids)) == 2
    assert sorted(uuids, key=len)[1] == sorted(uuids, key=len)[0] + "#2"
    assert report.explained_count == 1 and report.unexplained_count == 1
    for name, render in RENDERERS.items():
        assert render(report) is not None, name


def test_the_results_of_one_input_share_a_total_json_budget(tmp_path: Path) -> None:
    for name in ("a", "b", "c"):
        document = {"uuid": name, "status": "failed", "labels": [{"name": "n", "value": "v"}] * 4}
        (tmp_path / f"{name}-result.json").write_text(json.dumps(document))
    results = read_allure(DirectoryArchive(tmp_path), max_total_json_values=25)
    assert [test.uuid for test in results.tests] == ["a", "b"]
    [problem] = results.problems
    assert problem.severity == "error" and "the last 1 file(s) were not read" in problem.message
