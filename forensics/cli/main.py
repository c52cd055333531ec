"""`ci-forensics`: a translator from flags to library calls; exit codes 0 done, 1 error, 2 usage, 3 fail-on,
4 some tickets could not be annotated.

Each command lives in its own module beside this one; this module only assembles the group.
"""

from __future__ import annotations

import click

from forensics.cli.analyze import SAMPLE, analyze_command
from forensics.cli.annotate import annotate_command
from forensics.cli.dashboard import dashboard_command
from forensics.cli.fetch import fetch_command
from forensics.cli.history import history_command, reanalyze_command
from forensics.cli.render import render_command
from forensics.cli.rules import rules_group
from forensics.version import __version__

__all__ = ["SAMPLE", "main"]


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="ci-forensics")
def main() -> None:
    """Tell why each test in a failed CI run really failed."""


main.add_command(analyze_command)
main.add_command(rules_group)
main.add_command(render_command)
main.add_command(annotate_command)
main.add_command(fetch_command)
main.add_command(dashboard_command)
main.add_command(history_command)
main.add_command(reanalyze_command)
