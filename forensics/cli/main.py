"""`ci-forensics`: a translator from flags to library calls; exit codes 0 done, 1 error, 2 usage, 3 fail-on,
4 some tickets could not be annotated, 5 inputs were given but not one test could be read from them.

Each command lives in its own module beside this one; this module only assembles the group.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

import click

from forensics import cli
from forensics.dataclass_code import install
from forensics.samples import SAMPLE
from forensics.version import __version__

install()  # before the command's modules create their dataclasses (forensics/dataclass_code.py)


@dataclass(frozen=True, slots=True)
class _Command:
    """Where a command lives ("module:attribute") and the first line of its help, for the command list."""

    target: str
    summary: str


# A command's module is imported only when it runs (or for its own --help): `ci-forensics --help` lists
# them from here, and a test keeps each summary equal to the first line of the command's help.
_COMMANDS = {
    "analyze": _Command(
        "forensics.cli.analyze:analyze_command",
        "Find each failed test's root cause in allure-results folders, artifact zips or logs ('-' = stdin).",
    ),
    "fetch": _Command(
        "forensics.cli.fetch:fetch_command",
        "Download a GitHub Actions job's allure artifacts (or its log) and find each failed test's root cause.",
    ),
    "render": _Command(
        "forensics.cli.render:render_command",
        "Render a report saved by `analyze`/`fetch --format json` as text, JSON, Markdown or annotations.",
    ),
    "annotate": _Command(
        "forensics.cli.annotate:annotate_command",
        "Comment each failure's root cause on its Linear, GitHub and Jira tickets (one comment per ticket).",
    ),
    "history": _Command(
        "forensics.cli.history:history_command",
        "Per root cause: first and last seen, counts, tests, where it hits; what is new; flaky tests.",
    ),
    "reanalyze": _Command(
        "forensics.cli.history:reanalyze_command",
        "Run today's rules over the stored failures (their artifacts when still cached) and show what moved.",
    ),
    "dashboard": _Command(
        "forensics.cli.dashboard:dashboard_command",
        "Write the triage dashboard: a static site (index.html, a page per cause, data.json) that opens "
        "from a file.",
    ),
    "rules": _Command(
        "forensics.cli.rules:rules_group",
        "Work with root-cause rules: list, explain, test, lint, suggest, backtest.",
    ),
}

__all__ = ["SAMPLE", "main"]


class _LazyGroup(click.Group):
    """Imports a command's module when the command is used: `analyze` never loads the HTTP clients."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(_COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        entry = _COMMANDS.get(cmd_name)
        if entry is None:
            return None
        module, attribute = entry.target.split(":")
        command: Any = getattr(importlib.import_module(module), attribute)
        return command  # type: ignore[no-any-return]

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list from the table, as click words it, without importing a single command."""
        names = self.list_commands(ctx)
        limit = formatter.width - 6 - max(len(name) for name in names)
        rows = [(name, _shorten(_COMMANDS[name].summary, limit)) for name in names]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


def _shorten(text: str, limit: int) -> str:
    """Whole words up to `limit` characters, then "...", as click shortens a command's help in a list."""
    if len(text) <= limit:
        return text
    kept = ""
    for word in text.split():
        if len(kept) + len(word) + 1 > limit - 3:
            break
        kept = f"{kept} {word}" if kept else word
    return f"{kept}..."


@click.group(cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="ci-forensics")
def main() -> None:
    """Tell why each test in a failed CI run really failed."""
    cli.command_started()
