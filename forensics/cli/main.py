"""`ci-forensics`: a translator from flags to library calls; exit codes 0 done, 1 error, 2 usage, 3 fail-on,
4 some tickets could not be annotated, 5 inputs were given but not one test could be read from them.

Each command lives in its own module beside this one; this module only assembles the group.
"""

from __future__ import annotations

import importlib
from typing import Any

import click

from forensics.samples import SAMPLE
from forensics.version import __version__

_COMMANDS = {  # name → "module:attribute"; a command's module is imported only when it runs (or for --help)
    "analyze": "forensics.cli.analyze:analyze_command",
    "fetch": "forensics.cli.fetch:fetch_command",
    "render": "forensics.cli.render:render_command",
    "annotate": "forensics.cli.annotate:annotate_command",
    "history": "forensics.cli.history:history_command",
    "reanalyze": "forensics.cli.history:reanalyze_command",
    "dashboard": "forensics.cli.dashboard:dashboard_command",
    "rules": "forensics.cli.rules:rules_group",
}

__all__ = ["SAMPLE", "main"]


class _LazyGroup(click.Group):
    """Imports a command's module when the command is used: `analyze` never loads the HTTP clients."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(_COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = _COMMANDS.get(cmd_name)
        if target is None:
            return None
        module, attribute = target.split(":")
        command: Any = getattr(importlib.import_module(module), attribute)
        return command  # type: ignore[no-any-return]


@click.group(cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="ci-forensics")
def main() -> None:
    """Tell why each test in a failed CI run really failed."""
