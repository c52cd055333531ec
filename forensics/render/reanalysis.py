"""`ci-forensics reanalyze` output: what moved under today's rules, as text (a rich renderable) or JSON."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from rich.console import Group as RichGroup
from rich.console import RenderableType
from rich.table import Table
from rich.text import Text

from forensics.render.answer_json import iso
from forensics.render.common import plural
from forensics.store.answers import Reanalysis

REANALYSIS_SCHEMA_VERSION = "1.0"
MAX_ROWS = 50
_CHANGE_STYLE = {"explained": "green", "changed": "yellow", "lost": "red"}


def render_reanalysis_text(found: Reanalysis) -> RenderableType:
    """A headline, the moves counted by kind, and the moved tests (at most MAX_ROWS)."""
    head = (
        f"Re-ran {plural(found.rules_loaded, 'rule')} over {plural(found.examined, 'stored failing test')} "
        f"({found.from_artifacts} from their artifacts, {found.from_evidence} from stored evidence): "
    )
    if not found.moves:
        return Text(head + "nothing moved.", style="bold")
    head += f"{len(found.moves)} moved"
    head += f", {found.applied} written to the store." if found.applied else "."
    parts: list[RenderableType] = [Text(head, style="bold")]
    counts = Counter((move.change, move.before_key, move.after_key) for move in found.moves)
    summary = Table(title="What moved", title_justify="left")
    for name in ("change", "before", "after", "tests"):
        summary.add_column(name, justify="right" if name == "tests" else "left")
    for (change, before, after), count in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        summary.add_row(Text(change, style=_CHANGE_STYLE[change]), Text(before), Text(after), str(count))
    parts.append(summary)
    tests = Table(title="Tests", title_justify="left")
    for name in ("test", "run", "change", "from"):
        tests.add_column(name, overflow="fold")
    for move in found.moves[:MAX_ROWS]:  # names and URLs are Text: "[nats]" is no rich markup
        run = Text(f"{move.run_at.date()} {move.run_url}".strip())
        tests.add_row(Text(move.test), run, move.change, move.source)
    parts.append(tests)
    if len(found.moves) > MAX_ROWS:
        parts.append(
            Text(f"… and {len(found.moves) - MAX_ROWS} more (--format json lists them all)", style="dim")
        )
    if not found.applied and any(move.change != "lost" for move in found.moves):
        parts.append(Text("Run again with --apply to write these verdicts into the store.", style="dim"))
    return RichGroup(*parts)


def render_reanalysis_json(found: Reanalysis) -> str:
    """The reanalysis as indented JSON text."""
    return json.dumps(reanalysis_to_dict(found), indent=2, ensure_ascii=False) + "\n"


def reanalysis_to_dict(found: Reanalysis) -> dict[str, Any]:
    """The reanalysis as plain JSON-ready data."""
    return {
        "schema_version": REANALYSIS_SCHEMA_VERSION,
        "rules_loaded": found.rules_loaded,
        "examined": found.examined,
        "from_artifacts": found.from_artifacts,
        "from_evidence": found.from_evidence,
        "applied": found.applied,
        "moves": [
            {
                "test": move.test,
                "run_url": move.run_url,
                "run_at": iso(move.run_at),
                "change": move.change,
                "before": {"kind": move.before_kind, "key": move.before_key},
                "after": {"kind": move.after_kind, "key": move.after_key, "title": move.after_title},
                "source": move.source,
                "applied": move.applied,
            }
            for move in found.moves
        ],
    }
