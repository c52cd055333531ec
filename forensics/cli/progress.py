"""A progress line on stderr for long commands (`rules lint`, `reanalyze`), on a terminal only.

In a CI log a progress bar is noise (every redraw a line), so off a terminal nothing is drawn. No refresh
thread runs: the line is redrawn on each step, so a command may still fork worker processes meanwhile.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from forensics.progress import StepProgress


@contextmanager
def step_progress(title: str, *, console: Console | None = None) -> Iterator[StepProgress | None]:
    """A StepProgress drawing `title: what  ━━━━  n/total  0:00:04` on stderr, or None off a terminal."""
    console = console or Console(stderr=True, highlight=False)
    if not console.is_terminal:
        yield None
        return
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=True, auto_refresh=False) as bars:
        task = bars.add_task(title, total=None)

        def update(what: str, done: int, total: int) -> None:
            bars.update(task, description=f"{title}: {what}", completed=done, total=total)
            bars.refresh()

        yield update
