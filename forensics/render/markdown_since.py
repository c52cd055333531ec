"""The step summary's "Since the last run" section: new, returning and gone causes, new unexplained clusters
and flaky tests, each with its first run and the commits since the last good run where the store has them."""

from __future__ import annotations

from datetime import UTC
from typing import TYPE_CHECKING

from forensics.render.common import plural, short_sha
from forensics.render.markdown_text import inline_code, plain, prose

if TYPE_CHECKING:
    from forensics.store.answers import FlippingTest, Sighting
    from forensics.store.since_last_run import CauseChange, CommitRange, SinceLastRun

MAX_LISTED = 10
"""Items per list; the overview table marks every new and returning group."""


def render_since(since: SinceLastRun) -> str:
    """The section, Markdown, ending with a newline."""
    lines = ["### Since the last run", ""]
    series = " ".join(
        part
        for part in (
            f"of {inline_code(since.workflow)}" if since.workflow else "",
            f"on {inline_code(since.branch)}" if since.branch else "",
        )
        if part
    )
    if since.previous is None:
        lines.append(
            f"This is the first recorded run {series or 'of this series'}: nothing to compare with yet."
        )
        return "\n".join(lines) + "\n"
    lines.append(
        f"This run against the previous one {series}: {run_link(since.previous)}.".replace("  ", " ")
    )
    lines.append("")
    if since.quiet:
        lines.append("Nothing new, returning or gone, and no flaky test.")
        return "\n".join(lines) + "\n"
    sections = (
        ("New causes", since.of_status("new", "cause")),
        (f"Returning (absent {since.quiet_runs} runs or more)", since.of_status("returning")),
        ("Gone (failed the last run, not this one)", since.of_status("gone")),
        ("New unexplained clusters", since.of_status("new", "unexplained")),
    )
    for label, changes in sections:
        if changes:
            lines.append(f"- **{label}:** {len(changes)}")
            lines.extend(f"  - {change_line(change)}" for change in changes[:MAX_LISTED])
            if len(changes) > MAX_LISTED:
                lines.append(f"  - … and {len(changes) - MAX_LISTED} more (marked in the overview)")
    if since.flaky:
        lines.append(
            f"- **Flaky tests** (pass and fail on one commit and GPU, or flip often): {len(since.flaky)}"
        )
        lines.extend(f"  - {flaky_line(test)}" for test in since.flaky[:MAX_LISTED])
        if len(since.flaky) > MAX_LISTED:
            lines.append(
                f"  - … and {len(since.flaky) - MAX_LISTED} more (`ci-forensics history` lists them)"
            )
    return "\n".join(lines) + "\n"


def change_line(change: CauseChange) -> str:
    """`**Title** (`rule`), 3 tests · first seen run 5 (date) · commits a…b`."""
    if change.kind == "cause":
        name = f"**{prose(change.title)}** ({inline_code(change.key)})"
    else:
        name = inline_code(change.title)
    tests = plural(change.tests, "test")
    parts = [f"{name}, {tests}" + (" last run" if change.status == "gone" else "")]
    if change.absent_runs is not None:
        parts.append(f"back after {plural(change.absent_runs, 'run')} without it")
    parts.append(f"first seen {run_link(change.first_seen)}")
    if change.commits is not None:
        parts.append(commits_text(change.commits, fixed=change.status == "gone"))
    return " · ".join(parts)


def flaky_line(test: FlippingTest) -> str:
    """`test_x: flip rate 67% (2 flips in 4 tries) · first failed run 7`."""
    return (
        f"{inline_code(test.name)}: flip rate {test.flip_rate:.0%} "
        f"({plural(test.flips, 'flip')} in {test.executions} {'try' if test.executions == 1 else 'tries'}) "
        f"· first failed {run_link(test.first_failed)}"
    )


def run_link(seen: Sighting) -> str:
    """`[run 123](url) (2026-11-30 03:00 UTC)`, or `a local run (…)`."""
    name = f"run {seen.run_id}" if seen.run_id is not None else "a local run"
    when = seen.at.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")
    shown = f"[{plain(name)}]({_url(seen.run_url)})" if seen.run_url.startswith("https://") else plain(name)
    return f"{shown} ({when})"


def commits_text(commits: CommitRange, *, fixed: bool) -> str:
    """`commits since the last good run: [`abc`…`def`](compare)`."""
    label = "fixed within" if fixed else "commits since the last good run:"
    span = f"{inline_code(short_sha(commits.base_sha))}…{inline_code(short_sha(commits.head_sha))}"
    if commits.compare_url.startswith("https://"):
        span = f"[{span}]({_url(commits.compare_url)})"
    return f"{label} {span}"


def _url(url: str) -> str:
    return url.replace(" ", "%20").replace("(", "%28").replace(")", "%29")
