"""Reports of fetched CI jobs: the context header and the per-job sections, compared with exact output."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console

from forensics.model import JobContext, Report, RunContext
from forensics.render.markdown import render_markdown
from forensics.render.text import render_text
from forensics.report.build import analyze
from forensics.sources.base import FetchedFile, FetchResult
from tests.support.rulebook import rule_toml, rules_from

RUN_URL = "https://github.com/acme/widgets/actions/runs/1"
CONTEXT = RunContext(
    provider="github",
    repository="acme/widgets",
    run_id=1,
    workflow="Nightly",
    workflow_path=".github/workflows/nightly.yml",
    run_url=RUN_URL,
    head_sha="0123456789abcdef0123456789abcdef01234567",
    branch="main",
    event="schedule",
    jobs=(
        JobContext(
            job_id=11,
            name="build | unit [amd64]",
            url=f"{RUN_URL}/job/11",
            conclusion="failure",
            runner_name="runner-1",
            runner_labels=("self-hosted", "gpu"),
            failed_steps=("Run tests",),
        ),
        JobContext(job_id=12, name="e2e", url=f"{RUN_URL}/job/12", conclusion="timed_out"),
    ),
)


def _report(tmp_path: Path) -> Report:
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "11.log").write_text("start\nRuntimeError: disk full\n")
    (logs / "12.log").write_text("start\nnothing known here: exit 2\n")
    rules = rules_from(tmp_path, rule_toml("disk.full", "disk full"))
    fetched = FetchResult(
        files=(
            FetchedFile(
                path=logs / "11.log",
                kind="log",
                label="job 11 log",
                save_as="job-11.log",
                job_id=11,
                item_name="job log: build | unit [amd64]",
            ),
            FetchedFile(
                path=logs / "12.log",
                kind="log",
                label="allure-results-e2e-smoke-amd64-1-12",
                save_as="x.log",
                job_id=12,
                stage="smoke",
                artifact="allure-results-e2e-smoke-amd64-1-12",
                item_name="e2e",
            ),
        ),
        context=CONTEXT,
    )
    return analyze((), rules=rules, fetched=fetched)


def test_markdown_has_a_context_header_and_a_section_per_job(tmp_path: Path) -> None:
    markdown = render_markdown(_report(tmp_path))
    head = markdown[: markdown.index("<details>")]
    assert head == (
        "## ci-forensics: 2 failing tests: 1 explained (50%), 1 unexplained\n"
        "\n"
        f"**GitHub Actions run:** [Nightly · run 1]({RUN_URL}) (attempt 1) · **Repository:** `acme/widgets` · "
        "**Commit:** `0123456789ab` on `main` · **Event:** schedule\n"
        "\n"
        rf"- **Job** [build \| unit \[amd64\]]({RUN_URL}/job/11) — failure, failed step: Run tests · "
        "runner `runner-1` (`self-hosted`, `gpu`) · inputs: job log (no usable allure artifact)\n"
        f"- **Job** [e2e]({RUN_URL}/job/12) — timed\\_out · inputs: `allure-results-e2e-smoke-amd64-1-12` "
        "(stage `smoke`, 1 test)\n"
        "\n"
        "### Overview\n"
        "\n"
        "| root cause | category | tests | tickets |\n"
        "| --- | --- | ---: | --- |\n"
        "| disk.full title (`disk.full`) | infrastructure | 1 |  |\n"
        "| Unexplained: `no error text found` | — | 1 |  |\n"
        "\n"
        rf"### Job [build \| unit \[amd64\]]({RUN_URL}/job/11) — 1 failing test, 1 explained"
        "\n\n"
    )
    assert "<summary><b>disk.full title</b> — 1 test · infrastructure</summary>\n" in markdown
    assert (
        f"\n### Job [e2e]({RUN_URL}/job/12) — 1 failing test, 0 explained\n\n<details>\n"
        "<summary><b>Unexplained</b> — 1 test: <code>no error text found</code></summary>\n" in markdown
    )
    assert markdown.index("job log: build | unit [amd64]") < markdown.index("### Job [e2e]")


def test_text_has_a_context_panel_and_a_rule_per_job(tmp_path: Path) -> None:
    console = Console(file=io.StringIO(), width=100, color_system=None)
    console.print(render_text(_report(tmp_path)))
    lines = console.file.getvalue().splitlines()  # type: ignore[attr-defined]
    assert lines[:12] == [
        "2 failing tests: 1 explained (50%), 1 unexplained",
        "╭─ GitHub Actions run 1 ───────────────────────────────────────────────────────────────────────────╮",
        "│ repository acme/widgets                                                                          │",
        "│ workflow   Nightly (.github/workflows/nightly.yml, schedule)                                     │",
        "│ run        https://github.com/acme/widgets/actions/runs/1 (attempt 1)                            │",
        "│ commit     0123456789ab on main                                                                  │",
        "│ job        build | unit [amd64] — failure, failed step: Run tests                                │",
        "│            https://github.com/acme/widgets/actions/runs/1/job/11                                 │",
        "│            runner runner-1 (self-hosted, gpu)                                                    │",
        "│            job log (no usable allure artifact)                                                   │",
        "│ job        e2e — timed_out                                                                       │",
        "│            https://github.com/acme/widgets/actions/runs/1/job/12                                 │",
    ]
    assert lines[12:15] == [
        "│            allure-results-e2e-smoke-amd64-1-12 (stage smoke, 1 test)                             │",
        "╰──────────────────────────────────────────────────────────────────────────────────────────────────╯",
        "build | unit [amd64] — 1 failing test, 1 explained ─────────────────────────────────────────────────",
    ]
    assert "e2e — 1 failing test, 0 explained ──────" in "\n".join(lines)
    assert "│   • job log: build | unit [amd64] (failed)" in "\n".join(lines)


def test_one_job_keeps_the_plain_layout_below_its_header(tmp_path: Path) -> None:
    report = _report(tmp_path)
    single = Report(
        inputs=report.inputs[:1],
        verdicts=report.verdicts[:1],
        groups=report.groups[:1],
        problems=(),
        context=RunContext(provider="github", repository="acme/widgets", run_id=1, jobs=CONTEXT.jobs[:1]),
    )
    markdown = render_markdown(single)
    assert "### Job" not in markdown
    assert "\n<details>\n<summary><b>disk.full title</b> — 1 test · infrastructure</summary>\n" in markdown
