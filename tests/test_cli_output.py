"""Output that reads well where it is read: whole lines in CI logs, COLUMNS honoured, reasons for exit 3,
close matches for unknown names, sizes in the unit given."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from rich.console import Console, Group
from rich.panel import Panel
from rich.rule import Rule
from rich.text import Text

from forensics.cli.common import print_renderable
from forensics.cli.main import main
from forensics.cli.progress import step_progress
from forensics.sizes import format_size
from forensics.usecases.lint import lint

LONG_EVIDENCE = (
    "ValueError: Free memory on device cuda:0 (19.5/22.03 GiB) on startup is less than desired GPU memory "
    "utilization (0.9, 19.83 GiB). Decrease GPU memory utilization or reduce GPU memory used by other processes."
)
URL = "https://github.com/ai-dynamo/dynamo/actions/runs/19745230393/job/56574386817?pr=4471"


def _run(*args: str, env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False, env=env)


def test_a_report_in_a_ci_log_keeps_every_line_and_title_whole() -> None:
    result = _run("analyze", "--demo")  # CliRunner's stdout is not a terminal, like a CI log
    assert result.exit_code == 0
    assert any(LONG_EVIDENCE in line for line in result.stdout.splitlines())
    assert "GPU already in use: vLLM's startup free-memory check failed — 3 tests ─" in result.stdout
    widths = {len(line) for line in result.stdout.splitlines()}
    assert max(widths) > 200  # nothing was wrapped at 80 columns


def test_columns_is_honoured_when_set() -> None:
    result = _run("analyze", "--demo", env={"COLUMNS": "100"})
    assert result.exit_code == 0
    assert max(len(line) for line in result.stdout.splitlines()) == 100


def test_boxes_and_rules_off_a_terminal_are_as_wide_as_their_own_content() -> None:
    title = "vllm / Test cuda13.0 (amd64) on prod-tester-amd-gpu-v2-7x2kq, attempt 2 — 3 failing tests, 2 explained"
    report = Group(
        Rule(Text(title), align="left"),
        Panel(Text(f"job {URL}"), title="GitHub Actions run 19745230393"),
        Panel(Text("short"), title="a small box"),
    )
    buffer = io.StringIO()
    print_renderable(report, console=Console(file=buffer, width=80, color_system=None))
    lines = buffer.getvalue().splitlines()
    assert title in lines[0] and any(URL in line for line in lines)
    assert len(lines[1]) == len(f"│ job {URL} │") and len(lines[-1]) == 80  # the small box keeps 80 columns
    terminal = io.StringIO()
    print_renderable(report, console=Console(file=terminal, width=60, force_terminal=True, color_system=None))
    assert max(len(line) for line in terminal.getvalue().splitlines()) == 60  # a terminal keeps its width


def test_fail_on_names_on_stderr_what_tripped_it(tmp_path: Path) -> None:
    result = _run(
        "analyze", "--demo", "--format", "json", "--fail-on", "unexplained", "--fail-on", "failures"
    )
    assert result.exit_code == 3
    assert result.stderr == (
        "--fail-on unexplained tripped: 1 of 7 failing tests unexplained\n"
        "--fail-on failures tripped: 7 failing tests\n"
    )
    json.loads(result.stdout)  # stdout stays the report
    saved = tmp_path / "report.json"
    saved.write_text(result.stdout)
    rendered = _run("render", str(saved), "--format", "json", "--fail-on", "failures")
    assert rendered.exit_code == 3 and rendered.stderr == "--fail-on failures tripped: 7 failing tests\n"
    quiet = _run("analyze", "--demo", "--format", "json", "--fail-on", "problems")
    assert quiet.exit_code == 0 and quiet.stderr == ""


@pytest.mark.parametrize(
    ("rule_id", "hint"),
    [
        ("vllm.startup-free-memroy", "Hint: did you mean vllm.startup-free-memory? "),
        ("vllm.nope", "Hint: did you mean vllm."),  # no near spelling: rules of the same family
        ("zzz", "Hint: `ci-forensics rules list` shows every rule\n"),
    ],
)
def test_an_unknown_rule_id_lists_close_matches(rule_id: str, hint: str) -> None:
    result = _run("rules", "explain", rule_id)
    assert result.exit_code == 1
    assert result.stderr.startswith(f"Error: no rule '{rule_id}'\n{hint}")


def test_the_log_size_limit_is_reported_in_the_unit_given(tmp_path: Path) -> None:
    log = tmp_path / "job.log"
    log.write_text("noise line\n" * 400 + "RuntimeError: CUDA error: out of memory\n")
    result = _run("analyze", str(log), "--max-log-size", "1k", "--format", "json")
    [problem] = [p for p in json.loads(result.stdout)["problems"] if "limit" in p["message"]]
    assert problem["message"].startswith("larger than the 1 KiB limit;")


@pytest.mark.parametrize(
    ("size", "shown"),
    [
        (1 << 10, "1 KiB"),
        (512 << 20, "512 MiB"),
        (int(1.5 * (1 << 30)), "1.5 GiB"),
        (int(1.3 * (1 << 30)), "1.3 GiB"),  # as `--max-log-size 1.3G` reads
        (1000 << 10, "1000 KiB"),
        (1500, "1500 bytes"),
        (1, "1 byte"),
    ],
)
def test_sizes_come_back_in_the_unit_they_were_given_in(size: int, shown: str) -> None:
    assert format_size(size) == shown


PANIC_RULE = """
[[rule]]
id = "demo.runtime-panic"
title = "A runtime thread panicked"
category = "product"
kind = "cause"
priority = 60
patterns = ['''thread '(?P<thread>[^']{1,80})' panicked at''']
summary = "Thread {thread} panicked."
advice = "Read the panic message on the next line."

[[rule.examples]]
text = "thread 'worker' panicked at lib.rs:1:2"

[[rule.near_misses]]
text = "thread 'worker' started"
"""


def test_progress_is_drawn_on_a_terminal_and_nowhere_else() -> None:
    log = io.StringIO()
    with step_progress("rules lint", console=Console(file=log, width=100)) as progress:
        assert progress is None  # a CI log gets no redrawn bar lines
    terminal = io.StringIO()
    console = Console(file=terminal, width=100, force_terminal=True, color_system=None)
    with step_progress("rules lint", console=console) as progress:
        assert progress is not None
        progress("vllm.engine-dead", 41, 120)
    assert "rules lint: vllm.engine-dead" in terminal.getvalue() and "41/120" in terminal.getvalue()


def test_rules_lint_reports_each_rule_to_its_progress_and_prints_none_off_a_terminal(tmp_path: Path) -> None:
    rule_file = tmp_path / "panic.toml"
    rule_file.write_text(PANIC_RULE)
    steps: list[tuple[str, int, int]] = []
    lint([rule_file], include_shipped=False, progress=lambda *step: steps.append(step))
    assert steps == [("demo.runtime-panic", 0, 2), ("equal-priority overlaps", 1, 2)]
    result = _run("rules", "lint", str(rule_file))
    assert result.exit_code == 0 and result.stderr == "", result.output
