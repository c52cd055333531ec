"""The gate before the learned family: is a line the likely-cause tiers try an infrastructure or environment cause at
all, or the line of an ordinary failure (a test's own assertion, a user-code error, a wrong output)?

The learned family model (engine/learned.py) answered both questions with one posterior, so it had to be sure of the
family to say anything, and its words pointed the right way far more often than they cleared that bar. The gate asks
only the first question, with a very conservative threshold, and the family model then names its most likely family
(a wrong family on a line with a cause is a miss either way; a family named on an ordinary failure is a false cause).

It is a naive Bayes of two classes over the family model's words (`learned.line_features`), its evidence scaled by
one over the square root of the number of known words like the family model's: "cause" learned from the evidence line
of every labelled case with a cause (every family, not only those with a fatal-line rule), "none" from the labelled
line and every line the tiers would try (the likely cause and its `tier_candidates`) of every `unexplained` case,
since those are the lines it must stay silent on (forensics/usecases/learn_cause_gate.py). Kept as counts in
rules/learned/cause-gate.txt: a JSON header line, then one feature a line, sorted, with its two counts after a tab.
Loading reads the file and splits its lines, nothing more (well under a millisecond where parsing the same counts as
a JSON object took several); a judged line's words are found by bisection.
"""

from __future__ import annotations

import json
import math
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

GATE_FILE = Path("learned") / "cause-gate.txt"  # under the rule pack's folder
CLASSES = ("none", "cause")  # the order of every pair of counts in the file


@dataclass(frozen=True, slots=True)
class CauseGate:
    """Per class ("none", then "cause"): the lines it was learned from and their features' total; per feature, in
    sorted order, a row "feature<TAB>none cause" of its count in each class; the smoothing, and the probability of
    "cause" a line needs to pass."""

    class_lines: tuple[int, int]
    class_features: tuple[int, int]
    rows: Sequence[str]
    alpha: float
    threshold: float

    def counts_of(self, feature: str) -> tuple[int, int] | None:
        """A feature's count in "none" and in "cause", or None for a word the gate never saw."""
        key = feature + "\t"  # a tab sorts before every character of a feature: `a` then `a b`
        index = bisect_left(self.rows, key)
        if index == len(self.rows) or not self.rows[index].startswith(key):
            return None
        none, cause = self.rows[index][len(key) :].split()
        return int(none), int(cause)

    def probability(self, features: Sequence[str]) -> float:
        """The posterior that a line with these features (`learned.line_features`) is a cause."""
        known = [pair for pair in map(self.counts_of, features) if pair is not None]
        vocabulary = len(self.rows)
        scale = 1.0 / math.sqrt(len(known)) if known else 1.0
        total_lines = sum(self.class_lines)
        scores = []
        for index, (lines, total) in enumerate(zip(self.class_lines, self.class_features, strict=True)):
            denominator = total + self.alpha * vocabulary
            likelihood = sum(math.log((pair[index] + self.alpha) / denominator) for pair in known)
            scores.append(math.log(lines / total_lines) + likelihood * scale)
        margin = scores[0] - scores[1]
        return 0.0 if margin > 700 else 1.0 / (1.0 + math.exp(margin))

    def passes(self, features: Sequence[str]) -> bool:
        """Whether a line with these features is a cause at the gate's threshold."""
        return self.probability(features) >= self.threshold


def gate_from_text(text: str) -> CauseGate:
    """The gate kept in rules/learned/cause-gate.txt (usecases/learn_cause_gate.py writes it)."""
    header, _, body = text.partition("\n")
    data = json.loads(header)
    if tuple(data["classes"]) != CLASSES:
        raise ValueError(f"a cause gate's classes must be {list(CLASSES)}, not {data['classes']}")
    rows = body.splitlines()
    if rows != sorted(rows):
        raise ValueError("a cause gate's features must be in sorted order (regenerate it)")
    none_lines, cause_lines = (int(count) for count in data["class_lines"])
    none_features, cause_features = (int(count) for count in data["class_features"])
    return CauseGate(
        class_lines=(none_lines, cause_lines),
        class_features=(none_features, cause_features),
        rows=tuple(rows),
        alpha=float(data["alpha"]),
        threshold=float(data["threshold"]),
    )


@cache
def shipped_gate(pack: Path) -> CauseGate | None:
    """The rule pack's cause gate, or None when the pack has none (a pack of one's own rules)."""
    path = pack / GATE_FILE
    if not path.is_file():
        return None
    return gate_from_text(path.read_text(encoding="utf-8"))
