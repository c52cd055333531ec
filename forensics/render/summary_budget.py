"""Fit a step summary under a byte cap by leaving out the least important detail first.

GitHub refuses a step summary over 1 MiB. In order, until the summary fits: the log excerpts of the least
important groups, then those groups' whole sections, then (only under a very small cap) the overview rows
of the least important groups; the headline, the run and "since the last run" always stay. The last line
says what was left out. Sizes are UTF-8 bytes of the text as written, workflow commands already defused.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from forensics.render.common import plural
from forensics.render.escape import defuse_workflow_commands

_NOTE_RESERVE = 600  # bytes kept free for the closing note
_GITHUB_LIMIT = "1 MiB"


@dataclass(frozen=True, slots=True)
class Piece:
    """A part of the details: a job heading (`rank` None, always kept) or a group's collapsible section,
    with (`text`) and without (`lean`) its log excerpts; `rank` 0 is the most important group."""

    text: str
    lean: str = ""
    rank: int | None = None


def fit_summary(
    *,
    head: Sequence[str],
    overview: str,
    rows: Sequence[str],
    details: Sequence[Piece],
    tail: str,
    max_bytes: int,
) -> str:
    """The summary's parts joined (a blank line between), under `max_bytes` with a note on what was left out.

    `rows` are the overview table's rows in rank order (row i is the group of rank i).
    """
    head = [defuse_workflow_commands(part) for part in head]
    rows = [defuse_workflow_commands(row) for row in rows]
    details = [
        Piece(defuse_workflow_commands(p.text), defuse_workflow_commands(p.lean), p.rank) for p in details
    ]
    tail = defuse_workflow_commands(tail)

    def size(text: str) -> int:
        return len(text.encode("utf-8")) + 1  # and the newline that joins it to the next part

    groups = sorted({piece.rank for piece in details if piece.rank is not None})
    full = dict.fromkeys(groups, 0)
    lean = dict.fromkeys(groups, 0)
    for piece in details:
        if piece.rank is not None:
            full[piece.rank] += size(piece.text)
            lean[piece.rank] += size(piece.lean)
    fixed = sum(map(size, head)) + sum(size(p.text) for p in details if p.rank is None)
    table = size(overview) + sum(size(row) + 1 for row in rows) if rows else 0
    budget = max_bytes - _NOTE_RESERVE - fixed - table - (size(tail) if tail else 0)
    used = sum(full.values())
    trimmed: set[int] = set()
    dropped: set[int] = set()
    for rank in reversed(groups):  # first the excerpts of the least important groups
        if used <= budget:
            break
        if lean[rank] < full[rank]:
            used -= full[rank] - lean[rank]
            trimmed.add(rank)
    for rank in reversed(groups):  # then their whole sections
        if used <= budget:
            break
        used -= lean[rank] if rank in trimmed else full[rank]
        dropped.add(rank)
    trimmed -= dropped
    kept_rows = list(rows)
    kept_tail = tail
    if used > budget and kept_tail:  # a very small cap: the problems go before the overview
        budget += size(kept_tail)
        kept_tail = ""
    while used > budget and kept_rows:
        budget += size(kept_rows.pop()) + 1
    parts = list(head)
    if kept_rows:
        parts.append(overview + "".join(f"{row}\n" for row in kept_rows))
    for piece in details:
        if piece.rank is None:
            parts.append(piece.text)
        elif piece.rank not in dropped:
            parts.append(piece.lean if piece.rank in trimmed else piece.text)
    if kept_tail:
        parts.append(kept_tail)
    note = _left_out_note(
        trimmed=len(trimmed),
        dropped=len(dropped),
        rows=len(rows) - len(kept_rows),
        problems=bool(tail) and not kept_tail,
        max_bytes=max_bytes,
    )
    if note:
        parts.append(note)
    return "\n".join(parts)


def _left_out_note(*, trimmed: int, dropped: int, rows: int, problems: bool, max_bytes: int) -> str:
    """`_12 groups' details and the log excerpts of 3 more left out to stay under 900 KiB …_` ('' when none)."""
    parts = []
    if dropped:
        parts.append(f"the details of {plural(dropped, 'group')}")
    if trimmed:
        parts.append(f"the log excerpts of {plural(trimmed, 'more group' if dropped else 'group')}")
    if rows:
        parts.append(f"{plural(rows, 'overview row')}")
    if problems:
        parts.append("the problems")
    if not parts:
        return ""
    listed = parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} and {parts[-1]}"
    return (
        f"_Left out to stay under {size_text(max_bytes)} (GitHub's limit for a step summary is "
        f"{_GITHUB_LIMIT}): {listed}, least important first; the JSON report (the action's `report-path` "
        "output, or its uploaded artifact) has everything._\n"
    )


def size_text(count: int) -> str:
    """`900 KiB`, `1 MiB`, `60,000 bytes`."""
    for unit, scale in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if count >= scale and count % scale == 0:
            return f"{count // scale:,} {unit}"
    return f"{count:,} bytes"
