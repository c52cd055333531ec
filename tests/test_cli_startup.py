"""`ci-forensics --help` and `--version` start fast: they import no command's code, no engine, no HTTP client.

Checked in a fresh interpreter (`sys.modules` after the call), so an eager import anywhere on the way
fails here by name rather than as a slower start nobody measures.
"""

from __future__ import annotations

import subprocess
import sys

import click
import pytest

from forensics.cli.main import _COMMANDS, main
from tests.support.loaded_modules import loaded_after

HEAVY = (
    "requests",
    "rich",
    "rich.progress",
    "psycopg",
    "regex",
    "forensics.rules.loader",
    "forensics.report.build",
    "forensics.engine.scanner",
    "forensics.services.http",
    "forensics.store.sqlite",
    "forensics.store.answers",
    "forensics.cli.common",
)


@pytest.mark.parametrize("arguments", [["--help"], ["--version"], ["-h"]])
def test_help_and_version_load_no_command_code(arguments: list[str]) -> None:
    loaded = loaded_after(arguments, HEAVY)
    assert loaded.modules == [], loaded.modules
    assert loaded.stdout.strip()  # the help or the version was printed


def test_the_package_loads_its_public_names_on_first_use() -> None:
    code = (
        "import sys, forensics\n"
        "before = 'forensics.report.build' in sys.modules\n"
        "forensics.analyze, forensics.load_rules\n"
        "print(before, 'forensics.report.build' in sys.modules)\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stdout.split() == ["False", "True"]


def test_each_listed_summary_is_the_first_line_of_the_commands_help() -> None:
    context = click.Context(main)
    for name, entry in _COMMANDS.items():
        command = main.get_command(context, name)
        assert command is not None, name
        first_line = " ".join((command.help or "").split("\n\n")[0].split())
        assert entry.summary == first_line, name
