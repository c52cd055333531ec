"""The Markdown step summary: an overview of every group, one collapsible section per group, and a byte cap
under GitHub's 1 MiB that leaves out the least important detail first and says what it left out."""

from __future__ import annotations

from pathlib import Path

import pytest
import regex
from markdown_it import MarkdownIt

from forensics.model import Evidence, ExcerptLine, Fingerprint, Report, Status, TestCase, Verdict
from forensics.render.markdown import DEFAULT_MAX_BYTES, rank_groups, render_markdown
from forensics.report.build import analyze
from forensics.report.grouping import group_verdicts
from forensics.rules.model import RuleSet
from tests.support.allure_runner import SCENARIOS_DIRECTORY, run_scenarios

ROOT = Path(__file__).resolve().parents[1]
GPU_SAMPLE = ROOT / "tests" / "corpus" / "gpu" / "allure-results"
_ROW = regex.compile(r"(?m)^\| (?!root cause|---)(.*) \|$")
_NOTE = regex.compile(
    r"_Left out to stay under ([^(]+) \(GitHub's limit for a step summary is 1 MiB\): (.*), least"
)


@pytest.fixture(scope="module")
def many_errors(tmp_path_factory: pytest.TempPathFactory, rule_pack: RuleSet) -> Report:
    """1,500 distinct errors and 100 known causes, as the real allure-pytest plugin writes them."""
    results = run_scenarios(
        [SCENARIOS_DIRECTORY / "scenario_many_errors.py"], tmp_path_factory.mktemp("many") / "allure-results"
    )
    return analyze([str(results)], rules=rule_pack)


def _size(markdown: str) -> int:
    return len(markdown.encode("utf-8"))


def _rows(markdown: str) -> list[str]:
    return _ROW.findall(markdown.split("<details>", maxsplit=1)[0])


def _left_out(markdown: str) -> dict[str, int]:
    """What the closing note says was left out: {"details": 12, "excerpts": 30, "rows": 0}."""
    note = _NOTE.search(markdown)
    if note is None:
        return {}
    said = {"details": 0, "excerpts": 0, "rows": 0}
    for count, what in regex.findall(r"(\d+) (?:more )?(group|overview row)", note[2]):
        key = "rows" if what == "overview row" else None
        said[key or ("details" if "details of " + count in note[2] else "excerpts")] = int(count)
    return said


@pytest.mark.slow
def test_the_1500_error_case_stays_under_the_default_cap_with_every_group_in_the_overview(
    many_errors: Report,
) -> None:
    assert len(many_errors.groups) == 1507  # 7 causes, 1,500 distinct unexplained errors
    markdown = render_markdown(many_errors)
    assert _size(markdown) <= DEFAULT_MAX_BYTES
    rows = _rows(markdown)
    assert len(rows) == 1507
    assert "harness.response-mismatch" in rows[0]  # the biggest cause first
    assert all(row.startswith("Unexplained:") for row in rows[7:])  # unexplained clusters last
    assert markdown.count("<details>") == 1507  # every group keeps its section …
    trimmed = markdown.count("log excerpt left out to keep the summary under its size cap")
    assert _left_out(markdown) == {"details": 0, "excerpts": trimmed, "rows": 0}
    assert trimmed > 1000  # … the least important ones without their log excerpts
    # the most important groups kept theirs: the excerpts left out are the last sections'
    sections = markdown.split("<details>")[1:]
    kept = [("left out to keep the summary" not in section) for section in sections]
    assert kept == sorted(kept, reverse=True)


@pytest.mark.slow
def test_a_smaller_cap_drops_whole_sections_then_overview_rows_and_says_how_many(many_errors: Report) -> None:
    cap = 200 * 1024
    markdown = render_markdown(many_errors, max_bytes=cap)
    assert _size(markdown) <= cap
    assert len(_rows(markdown)) == 1507  # the overview table stays longest
    shown = markdown.count("<details>")
    assert 0 < shown < 1507
    said = _left_out(markdown)
    assert said["details"] == 1507 - shown and said["rows"] == 0
    assert "under 200 KiB" in markdown
    first_sections = "\n".join(markdown.split("<details>")[1:8])
    assert "harness.response-mismatch" in first_sections  # the causes come first and stay

    tiny = render_markdown(many_errors, max_bytes=40 * 1024)
    assert _size(tiny) <= 40 * 1024
    assert tiny.count("<details>") == 0
    rows = _rows(tiny)
    assert 0 < len(rows) < 1507
    assert _left_out(tiny) == {"details": 1507, "excerpts": 0, "rows": 1507 - len(rows)}
    assert "harness.response-mismatch" in rows[0]


def test_the_gpu_sample_fits_whole_with_an_overview_row_and_a_section_per_group(rule_pack: RuleSet) -> None:
    report = analyze([str(GPU_SAMPLE)], rules=rule_pack)
    markdown = render_markdown(report)
    assert _size(markdown) < 100 * 1024
    assert "Left out to stay under" not in markdown
    assert len(_rows(markdown)) == len(report.groups) == markdown.count("<details>")
    assert markdown.count("<details>") == markdown.count("</details>")
    ranked = rank_groups(report)
    kinds = [group.kind for group in ranked]
    assert kinds == sorted(kinds, key=lambda kind: kind != "cause")
    tokens = MarkdownIt("commonmark").parse(markdown)
    blocks = [token.content.split("\n")[0] for token in tokens if token.type == "html_block"]
    assert set(blocks) == {"<details>", "</details>"}  # the summary line belongs to its <details> block


def test_summary_lines_escape_what_a_log_put_in_a_title() -> None:
    hostile = "RuntimeError: </summary></details><img src=x onerror=alert(1)> & more"
    evidence = Evidence(attachment="log", line=1, text=hostile, excerpt=(ExcerptLine(1, hostile),))
    test = TestCase(uuid="u", name="t", full_name="t", status=Status.FAILED, input_label="in")
    fingerprint = Fingerprint(key="k", masked=hostile, line=hostile, evidence=evidence)
    verdicts = (Verdict(test=test, fingerprint=fingerprint),)
    report = Report(inputs=(), verdicts=verdicts, groups=group_verdicts(verdicts), problems=())
    markdown = render_markdown(report)
    summary = next(line for line in markdown.splitlines() if line.startswith("<summary>"))
    assert "&lt;/summary&gt;&lt;/details&gt;&lt;img src=x onerror=alert(1)&gt; &amp; more" in summary
    assert summary.count("<") == summary.count(">") == 6  # <summary><b></b> <code></code></summary>
    assert markdown.splitlines().count("</details>") == 1  # the others are inside code, as text
