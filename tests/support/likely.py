"""The likely-cause picker as the holdout test modules call it: both readers (every line, and the keyword-only
block reader) must agree on the line and the excerpt, and the answer is the line and the reason."""

from __future__ import annotations

from pathlib import Path

from forensics.engine.likely import pick_likely_cause
from forensics.engine.likely_reader import decoded_lines, pick_likely_cause_in_blocks
from forensics.model import LikelyReason

TRAIN = Path(__file__).resolve().parent.parent / "corpus" / "train"


def picked_in(file: str) -> tuple[int, LikelyReason] | None:
    """The likely cause of a train log (`file` relative to tests/corpus/train), read in 512-byte blocks too."""
    data = (TRAIN / file).read_bytes()
    plain = pick_likely_cause(list(decoded_lines([data])))
    fast = pick_likely_cause_in_blocks([data[i : i + 512] for i in range(0, len(data), 512)])
    assert (fast.line if fast else None) == (plain.line if plain else None), file
    assert (fast.excerpt if fast else None) == (plain.excerpt if plain else None), file
    return (plain.line, plain.reason) if plain else None


def picked_from(lines: list[str]) -> tuple[int, LikelyReason] | None:
    """The likely cause of these lines, by both readers."""
    picked = pick_likely_cause(lines)
    fast = pick_likely_cause_in_blocks(["\n".join(lines).encode()])
    assert (fast.line if fast else None) == (picked.line if picked else None), lines
    return (picked.line, picked.reason) if picked else None
