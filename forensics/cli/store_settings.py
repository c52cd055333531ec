"""The history store's options, shared by analyze, fetch, annotate, history, reanalyze and dashboard.

Kept apart from the commands so that `analyze` (which only records) does not import the query and
rendering code of `history`; the store itself is imported when a command uses it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from forensics.errors import ConfigError
from forensics.model import RETURNING_AFTER_RUNS, Report

if TYPE_CHECKING:
    from forensics.annotate import History
    from forensics.store import OpenMode, Store
    from forensics.store.queries import UnknownValue

STORE_VARIABLE = "CI_FORENSICS_STORE"
_F = TypeVar("_F", bound=Callable[..., Any])


def default_store_dir() -> Path:
    """Where the history store lives when neither --store nor CI_FORENSICS_STORE says."""
    import platformdirs  # only when a store is opened

    return Path(platformdirs.user_data_dir("ci-forensics"))


@dataclass(frozen=True, slots=True)
class StoreSettings:
    """Whether to record the report, and into which store."""

    record: bool
    location: str | None = field(repr=False)  # a postgresql:// URL may carry a password
    returning_after: int = RETURNING_AFTER_RUNS  # runs without a cause before it counts as returning

    def open(self, mode: OpenMode = "create") -> Store:
        """The store, opened as `mode` allows: "create" (the default, for recording) creates and migrates it."""
        from forensics.store import open_store

        return open_store(self.location, default_dir=default_store_dir(), mode=mode)

    @property
    def in_use(self) -> bool:
        """A store is in use with --record, --store or CI_FORENSICS_STORE."""
        return self.record or bool(self.location)

    @contextmanager
    def history_for(self, report: Report) -> Iterator[History | None]:
        """The causes' history for ticket comments when a store is in use (`usecases.follow_up.ticket_history`)."""
        from forensics.usecases.follow_up import ticket_history

        with ticket_history(report, store=self.open if self.in_use else None, record=self.record) as history:
            yield history


def warn_skipped_rows(store: Store) -> None:
    """`Warning: …` on stderr for rows of an older store that every answer leaves out (a time no date holds)."""
    from rich.console import Console

    from forensics.store.queries import skipped_rows

    console = Console(stderr=True, highlight=False)
    for problem in skipped_rows(store):
        console.out(f"Warning: {problem.object}: {problem.message}", highlight=False)
        console.out(f"Hint: {problem.hint}", highlight=False)


def filter_options(command: _F) -> _F:
    """--repo, --workflow and --branch: which runs a reading command is about (`queries.Filters`)."""
    import click  # the reading commands' modules import it anyway; `analyze` does not

    for option in reversed(
        (
            click.option("--repo", "repository", metavar="OWNER/NAME", help="Only runs of this repository."),
            click.option("--workflow", metavar="NAME", help="Only runs of this workflow (its name)."),
            click.option("--branch", metavar="NAME", help="Only runs on this branch."),
        )
    ):
        command = option(command)
    return command


_WHAT = {
    "--repo": "no run of repository '{}'",
    "--workflow": "no run of workflow '{}'",
    "--branch": "no run on branch '{}'",
    "--cause": "no failing test with the cause or fingerprint '{}'",
}


def refuse_unknown(unknown: tuple[UnknownValue, ...]) -> None:
    """A filter value the store never recorded is a ConfigError naming it and the closest known values."""
    if not unknown:
        return
    first = unknown[0]
    message = "; ".join(f"{_WHAT[item.option].format(item.value)} ({item.option})" for item in unknown)
    if first.close:
        hint = f"did you mean {' or '.join(repr(name) for name in first.close)} for {first.option}?"
    elif first.known:
        hint = f"the store knows {first.known} other values; leave out {first.option} to see them all"
    else:
        hint = "the store has none recorded yet: record runs with --record"
    raise ConfigError(f"the history store has {message}", hint=hint)
