"""Measure the rule pack on the labelled corpus of real failure logs (tests/corpus/labels.toml)."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from forensics.report.build import analyze
from forensics.rules.model import RuleSet

CORPUS = Path(__file__).resolve().parent / "corpus"


@dataclass(frozen=True, slots=True)
class Outcome:
    """What the pack said about one labelled log."""

    file: str
    expected: str
    expected_line: int | None
    got: str | None
    got_line: int | None

    @property
    def correct(self) -> bool:
        """Right rule and, for causes, the evidence on the line that proves it."""
        if self.expected == "unexplained":
            return self.got is None
        return self.got == self.expected and self.got_line == self.expected_line


def evaluate(rules: RuleSet) -> list[Outcome]:
    """Analyse every labelled log as a plain log and compare with its label."""
    labels = tomllib.loads((CORPUS / "labels.toml").read_text(encoding="utf-8"))["log"]
    outcomes = []
    for label in labels:
        path = CORPUS / label["file"]
        expected_line = None
        if label["cause"] != "unexplained":
            lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
            expected_line = next(n for n, line in enumerate(lines, 1) if label["evidence"] in line)
        verdict = analyze([str(path)], rules=rules).verdicts[0]
        cause = verdict.root_cause
        outcomes.append(
            Outcome(
                file=label["file"],
                expected=label["cause"],
                expected_line=expected_line,
                got=cause.rule_id if cause else None,
                got_line=cause.evidence.line if cause else None,
            )
        )
    return outcomes


def figures(outcomes: list[Outcome]) -> tuple[float, float, int, int]:
    """(top-1 accuracy on logs with a cause, false-cause rate on unexplained logs, counts of each)."""
    causes = [o for o in outcomes if o.expected != "unexplained"]
    unexplained = [o for o in outcomes if o.expected == "unexplained"]
    accuracy = sum(o.correct for o in causes) / len(causes)
    false_cause = sum(o.got is not None for o in unexplained) / len(unexplained)
    return accuracy, false_cause, len(causes), len(unexplained)


if __name__ == "__main__":
    from forensics.rules.loader import load_rules

    results = evaluate(load_rules())
    for outcome in results:
        if not outcome.correct:
            print(
                f"MISS {outcome.file}: expected {outcome.expected}@{outcome.expected_line}, "
                f"got {outcome.got}@{outcome.got_line}"
            )
    top1, false_rate, n_causes, n_unexplained = figures(results)
    right_rule = sum(o.got == o.expected for o in results if o.expected != "unexplained") / n_causes
    print(
        f"top-1 accuracy {top1:.1%} on {n_causes} logs (right rule, any line: {right_rule:.1%}); "
        f"false-cause rate {false_rate:.1%} on {n_unexplained} logs"
    )
