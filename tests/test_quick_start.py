"""`ci-forensics analyze` without click (forensics/cli/quick.py) reads every option as click does, or leaves it to click.

The option table is held equal to click's declarations option by option; each option's values are parsed both ways
and compared; the forms the quick parser is not sure of (usage errors among them) go to click; and the program
(`python -m forensics`, the quick way where it can) and click's group print the same bytes and exit with the same
code, errors included.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import click
import pytest

from forensics.cli import quick
from forensics.cli.analyze import analyze_command
from forensics.cli.common import ReportSettings
from forensics.cli.options import _store_settings
from forensics.report.session import default_jobs


def _click_values(argv: list[str]) -> tuple[Any, ...]:
    """What click's `analyze` would hand its body for `argv` (without the leading "analyze")."""
    context = analyze_command.make_context("analyze", list(argv))
    params = dict(context.params)
    paths, demo = params.pop("paths"), params.pop("demo")
    store = _store_settings(params.pop("record"), params.pop("store_location"), params.pop("returning_after"))
    return paths, demo, ReportSettings(**params), store


def test_the_table_names_every_option_of_analyze_as_click_declares_it() -> None:
    declared: dict[str, tuple[str, bool, bool]] = {}
    for param in analyze_command.params:
        if isinstance(param, click.Option):
            for name in [*param.opts, *param.secondary_opts]:
                declared[name] = (str(param.name), param.multiple, param.is_flag)
    table = {
        name: (parameter, repeatable, kind == quick.FLAG)
        for name, (parameter, kind, repeatable) in quick.OPTIONS.items()
    }
    assert table == declared


def test_the_defaults_are_the_declarations_defaults() -> None:
    defaults = {
        str(param.name): param.default for param in analyze_command.params if isinstance(param, click.Option)
    }
    for name, value in quick.DEFAULTS.items():
        assert defaults[name] == value, name
    assert defaults["jobs"] == default_jobs()


def _forms(tmp_path: Path) -> list[list[str]]:
    """A command line for every option of analyze (both spellings, both value forms), each beside a path."""
    rules = tmp_path / "rules"
    rules.mkdir()
    log = tmp_path / "x.log"
    log.write_text("hello\n")
    out = str(tmp_path / "report.json")
    return [
        [str(log)],
        [str(log), "-"],
        ["-", str(log), "another"],
        ["--demo"],
        ["--demo", str(log)],
        [str(log), "--rules", str(rules)],
        [str(log), "--rules", str(rules), "--rules=" + str(tmp_path / "missing.toml")],
        [str(log), "--log-attachment", "*.txt", "--log-attachment=log"],
        *([str(log), "--format", name] for name in ("text", "json", "markdown", "github")),
        [str(log), "--format=json"],
        [str(log), "--output", out],
        [str(log), "-o", out],
        [str(log), "--output=" + out],
        [str(log), "-o", "/dev/null"],
        [str(log), "--fail-on", "unexplained", "--fail-on=failures", "--fail-on", "problems"],
        [str(log), "--jobs", "3"],
        [str(log), "-j", "64"],
        [str(log), "--jobs=1"],
        [str(log), "--jobs", "07"],
        [str(log), "--max-log-size", "2G"],
        [str(log), "--max-log-size=100k"],
        [str(log), "--max-result-size", "1.5 MiB"],
        [str(log), "--max-result-size", "12"],
        [str(log), "--summary-output", str(tmp_path / "summary.md")],
        [str(log), "--summary-max-bytes", "10KiB"],
        [str(log), "--record"],
        [str(log), "--store", str(tmp_path / "history.sqlite3")],
        [str(log), "--store=postgresql://user@host/db"],
        [str(log), "--returning-after", "2"],
        [str(log), "--returning-after=9"],
        [
            "--record",
            "--format",
            "json",
            str(log),
            "-o",
            out,
            "--jobs",
            "2",
            "--demo",
            "--fail-on",
            "problems",
        ],
    ]


def test_every_option_parses_to_what_click_gives(tmp_path: Path) -> None:
    environ = {"HOME": "/nowhere"}
    for form in _forms(tmp_path):
        quick_values = quick.parse_analyze(["analyze", *form], environ)
        assert quick_values is not None, form
        assert quick_values == _click_values(form), form


# Forms the quick parser leaves to click: click refuses some (usage errors), reads others its own way.
UNSURE = [
    [],  # click's usage error: nothing to analyze
    ["--help"],
    ["x.log", "-h"],
    ["x.log", "--nope"],
    ["x.log", "--form", "json"],  # click does not complete abbreviations: an error
    ["x.log", "--"],
    ["--", "-x.log"],
    ["x.log", "--format"],
    ["x.log", "--format", "yaml"],
    ["x.log", "--format", "JSON"],
    ["x.log", "--format", "json", "--format", "text"],  # click keeps the last
    ["x.log", "-ojson.out"],
    ["x.log", "-j4"],
    ["x.log", "--jobs", "0"],
    ["x.log", "--jobs", "65"],
    ["x.log", "--jobs", " 4"],
    ["x.log", "--jobs", "four"],
    ["x.log", "--jobs", "-1"],
    ["x.log", "--returning-after", "0"],
    ["x.log", "--max-log-size", "lots"],
    ["x.log", "--summary-max-bytes", ""],
    ["x.log", "--fail-on", "everything"],
    ["x.log", "--output", "-x"],  # a value that looks like an option
    ["x.log", "--record=yes"],
    ["x.log", "--demo", "--demo"],
    ["x.log", "--output", "."],  # a folder: click refuses it
    ["x.log", "--summary-output", "."],
    ["x.log", "--rules", "a\0b"],
]


@pytest.mark.parametrize("form", UNSURE, ids=[" ".join(form) or "(nothing)" for form in UNSURE])
def test_what_the_quick_parser_is_not_sure_of_goes_to_click(form: list[str]) -> None:
    assert quick.parse_analyze(["analyze", *form], {}) is None


def test_the_environment_click_reads_sends_the_command_line_to_click() -> None:
    assert quick.parse_analyze(["analyze", "x.log"], {}) is not None
    assert quick.parse_analyze(["analyze", "x.log"], {"CI_FORENSICS_STORE": "h.sqlite3"}) is None
    assert quick.parse_analyze(["analyze", "x.log"], {"_CI_FORENSICS_COMPLETE": "bash_complete"}) is None
    assert quick.parse_analyze(["render", "x.json"], {}) is None
    assert quick.parse_analyze([], {}) is None


def test_an_unreadable_rule_path_goes_to_click(tmp_path: Path) -> None:
    locked = tmp_path / "locked.toml"
    locked.write_text("")
    locked.chmod(0)
    try:
        if os.access(locked, os.R_OK):
            pytest.skip("this user reads any file (root)")
        assert quick.parse_analyze(["analyze", "x.log", "--rules", str(locked)], {}) is None
    finally:
        locked.chmod(0o600)


CLICK_ONLY = "import sys\nfrom forensics.cli.main import main\nsys.argv[0] = 'ci-forensics'\nmain()\n"


def _run(arguments: list[str], *, click_only: bool, cwd: Path) -> tuple[int, str, str]:
    command = [sys.executable, "-c", CLICK_ONLY] if click_only else [sys.executable, "-m", "forensics"]
    environ = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    run = subprocess.run(
        [*command, *arguments], capture_output=True, text=True, check=False, cwd=cwd, env=environ
    )
    return run.returncode, run.stdout, run.stderr.replace("python -m forensics", "ci-forensics")


def test_the_program_prints_and_exits_as_click_s_group_does(tmp_path: Path) -> None:
    """Byte for byte, for reports, --fail-on's exit, a missing input and usage errors (which click gives)."""
    log = tmp_path / "oom.log"
    log.write_text("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n")
    forms = [
        ["analyze", str(log)],
        ["analyze", str(log), "--format", "json"],
        ["analyze", str(log), "--format", "markdown", "--fail-on", "failures", "-j", "2"],
        ["analyze", str(log), "--format", "github", "--max-log-size", "1k", "--log-attachment", "*.log"],
        ["analyze", str(tmp_path / "missing.log"), "--format", "json"],
        ["analyze"],
        ["analyze", str(log), "--format", "yaml"],
        ["analyze", str(log), "--jobs", "0"],
        ["analyze", str(log), "--output"],
        ["analyze", str(log), "--nope"],
    ]
    for form in forms:
        assert _run(form, click_only=False, cwd=tmp_path) == _run(form, click_only=True, cwd=tmp_path), form


def test_the_program_s_help_imports_no_command_code() -> None:
    """Only `analyze` goes through the quick parser, which imports analyze's modules; `--help` stays light."""
    code = (
        "import sys\n"
        "sys.argv = ['ci-forensics', '--help']\n"
        "from forensics.cli.start import main\n"
        "try:\n"
        "    main()\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(sorted(m for m in ('forensics.cli.common', 'forensics.cli.quick') if m in sys.modules))\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "Commands:" in run.stdout
    assert run.stdout.rstrip().endswith("[]")
