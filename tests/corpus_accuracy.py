"""Measure the rule pack on the labelled corpus of real failure logs, split by who may read it.

tests/corpus/<split>/ holds the cases and one or more `labels*.toml` files:
- `train/`   rule authors read it (and tune on it);
- `holdout/` gathered by someone who writes no rules; only scored, its cases are never printed;
- `gpu/`     real failures provoked on a GPU machine under allure-pytest (tests/gpu_suite), kept as produced;
- a rule author's blind dev set goes in `dev/` (add "dev" to SPLITS) while it is unread: collected and labelled
  before any rule changes, scored once as the honest estimate, then moved to train/ once studied.

A label is a `[[log]]` table: `file` (a plain log) or `results` + `test` (an allure-results folder and the
test's name in it); `cause` (a rule id) or `family` (an id from tests/corpus/families.toml), or
"unexplained"; `evidence`, a substring of the line that proves it (the first line of the file holding it).
A prediction is right when the rule that fired belongs to the labelled family and its evidence is that line.

Run `python -m tests.corpus_accuracy` for every split's figures; `--misses train` lists train's misses;
`--splits train,gpu` scores only those splits (rule work scores its own splits without looking at holdout's).
"""

from __future__ import annotations

import sys
import tomllib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from forensics.model import FoundBy, Verdict
from forensics.report.build import analyze
from forensics.rules.model import RuleSet

CORPUS = Path(__file__).resolve().parent / "corpus"
SPLITS = ("train", "holdout", "gpu")
UNEXPLAINED = "unexplained"


def load_families() -> dict[str, str]:
    """Rule id → family id, from tests/corpus/families.toml."""
    families = tomllib.loads((CORPUS / "families.toml").read_text(encoding="utf-8"))["family"]
    return {rule_id: family["id"] for family in families for rule_id in family.get("rules", [])}


def family_ids() -> set[str]:
    """Every family a label may name."""
    families = tomllib.loads((CORPUS / "families.toml").read_text(encoding="utf-8"))["family"]
    return {family["id"] for family in families} | {UNEXPLAINED}


@dataclass(frozen=True, slots=True)
class Label:
    """One labelled case."""

    split: str
    name: str  # file, or results::test
    family: str
    evidence: str | None
    path: Path
    test: str | None  # set for allure-results cases


@dataclass(frozen=True, slots=True)
class Outcome:
    """What the pack said about one labelled case."""

    label: Label
    expected_line: int | None
    got_rule: str | None
    got_family: str | None
    got_line: int | None
    got_text: str | None
    likely_line: int | None = None  # the likely cause's line when no rule fired
    likely_text: str | None = None
    found_by: FoundBy | None = (
        None  # how the cause was found: the scan, the fatal-line tier, the learned model
    )

    @property
    def expected(self) -> str:
        return self.label.family

    @property
    def correct(self) -> bool:
        """Right family and, for causes, the evidence on the line that proves it."""
        if self.expected == UNEXPLAINED:
            return self.got_rule is None
        if self.got_family != self.expected:
            return False
        if self.label.test is not None:  # an attachment inside allure-results: compare the line's text
            return self.got_text is not None and (self.label.evidence or "") in self.got_text
        return self.got_line == self.expected_line

    @property
    def likely_scored(self) -> bool:
        """No rule fired on a failure whose label points at a line: the likely-cause picker is judged."""
        return self.got_rule is None and bool(self.label.evidence)

    @property
    def likely_correct(self) -> bool:
        """The likely cause is the labelled line."""
        if self.label.test is not None:
            return self.likely_text is not None and (self.label.evidence or "") in self.likely_text
        return self.likely_line is not None and self.likely_line == self.expected_line

    @property
    def false_cause(self) -> bool:
        """A cause named where the label says there is none."""
        return self.expected == UNEXPLAINED and self.got_rule is not None


def labels(split: str) -> Iterator[Label]:
    """Every label of one split, from all its labels*.toml files."""
    families = load_families()
    folder = CORPUS / split
    for labels_file in sorted(folder.glob("labels*.toml")):
        for entry in tomllib.loads(labels_file.read_text(encoding="utf-8")).get("log", []):
            cause = entry.get("family") or entry["cause"]
            family = cause if cause == UNEXPLAINED or "cause" not in entry else families.get(cause, cause)
            if "results" in entry:
                yield Label(
                    split, f"{entry['results']}::{entry['test']}", family, entry.get("evidence"),
                    folder / entry["results"], entry["test"],
                )  # fmt: skip
            else:
                yield Label(split, entry["file"], family, entry.get("evidence"), folder / entry["file"], None)


def _expected_line(label: Label) -> int | None:
    if label.test is not None or not label.evidence:
        return None
    lines = label.path.read_text(encoding="utf-8", errors="replace").split(
        "\n"
    )  # numbered as the scanner does
    return next((n for n, line in enumerate(lines, 1) if label.evidence in line), None)


def _verdict(label: Label, rules: RuleSet) -> Verdict | None:
    report = analyze([str(label.path)], rules=rules)
    if label.test is None:
        return report.verdicts[0] if report.verdicts else None
    return next((v for v in report.verdicts if v.test.name == label.test), None)


def evaluate(rules: RuleSet, split: str = "train", chosen: Iterable[Label] | None = None) -> list[Outcome]:
    """Analyse every labelled case of a split (or only the `chosen` ones) and compare with its label."""
    families = load_families()
    outcomes = []
    for label in labels(split) if chosen is None else chosen:
        verdict = _verdict(label, rules)
        cause = verdict.root_cause if verdict else None
        likely = verdict.likely_cause if verdict else None
        outcomes.append(
            Outcome(
                label=label,
                expected_line=_expected_line(label),
                got_rule=cause.rule_id if cause else None,
                got_family=families.get(cause.rule_id, cause.rule_id) if cause else None,
                got_line=cause.evidence.line if cause else None,
                got_text=cause.evidence.text if cause else None,
                likely_line=likely.evidence.line if likely else None,
                likely_text=likely.evidence.text if likely else None,
                found_by=cause.found_by if cause else None,
            )
        )
    return outcomes


@dataclass(frozen=True, slots=True)
class Figures:
    """A split's headline figures."""

    top1: float  # right family and line, over cases with a cause
    right_family: float  # right family, any line
    false_cause: float  # causes named on cases labelled unexplained
    causes: int
    unexplained: int
    likely: float  # the likely cause on the labelled line, over failures no rule explains that have one
    likely_cases: int


def figures(outcomes: list[Outcome]) -> Figures:
    """Top-1 accuracy on cases with a cause, and the false-cause rate on unexplained cases."""
    causes = [o for o in outcomes if o.expected != UNEXPLAINED]
    unexplained = [o for o in outcomes if o.expected == UNEXPLAINED]
    scored = [o for o in outcomes if o.likely_scored]
    return Figures(
        top1=sum(o.correct for o in causes) / len(causes) if causes else 0.0,
        right_family=sum(o.got_family == o.expected for o in causes) / len(causes) if causes else 0.0,
        false_cause=sum(o.false_cause for o in unexplained) / len(unexplained) if unexplained else 0.0,
        causes=len(causes),
        unexplained=len(unexplained),
        likely=sum(o.likely_correct for o in scored) / len(scored) if scored else 0.0,
        likely_cases=len(scored),
    )


FOUND_BY_NAMES = {
    FoundBy.SCAN: "scan",
    FoundBy.FATAL_LINE: "fatal-line tier",
    FoundBy.LEARNED: "learned model",
}


def found_by_breakdown(outcomes: list[Outcome]) -> str:
    """How the causes were found, each way with its right answers and its false causes:
    `found by: scan 1201 (1198 right, 0 false), fatal-line tier 80 (…), learned model 3 (…)`."""
    parts = []
    for found_by, name in FOUND_BY_NAMES.items():
        found = [outcome for outcome in outcomes if outcome.found_by is found_by]
        right = sum(outcome.correct for outcome in found if outcome.expected != UNEXPLAINED)
        false = sum(outcome.false_cause for outcome in found)
        parts.append(f"{name} {len(found)} ({right} right, {false} false)")
    return "found by: " + ", ".join(parts)


def main(argv: list[str]) -> int:
    """Print each split's figures; `--misses SPLIT` lists that split's misses (never holdout's)."""
    from forensics.rules.loader import load_rules

    show_misses = argv[argv.index("--misses") + 1] if "--misses" in argv else None
    chosen = argv[argv.index("--splits") + 1].split(",") if "--splits" in argv else list(SPLITS)
    if show_misses == "holdout":
        print("holdout cases are only scored, never shown: a studied case moves to train/", file=sys.stderr)
        return 2
    rules = load_rules()
    print(
        f"{'split':<8} {'cases':>5} {'top-1':>7} {'family':>7} {'false causes':>13} {'likely cause (no rule)':>24}"
    )
    for split in (split for split in SPLITS if split in chosen):
        outcomes = evaluate(rules, split)
        if not outcomes:
            continue
        result = figures(outcomes)
        false_count = sum(o.false_cause for o in outcomes)
        print(
            f"{split:<8} {len(outcomes):>5} {result.top1:>7.1%} {result.right_family:>7.1%} "
            f"{false_count:>4} of {result.unexplained:<4}   {result.likely:>7.1%} of {result.likely_cases}"
        )
        print(f"{'':<8} {found_by_breakdown(outcomes)}")
        if split == show_misses:
            for outcome in outcomes:
                if not outcome.correct:
                    print(
                        f"  MISS {outcome.label.name}: expected {outcome.expected}@{outcome.expected_line}, "
                        f"got {outcome.got_rule}@{outcome.got_line}"
                    )
                if outcome.likely_scored and not outcome.likely_correct:
                    print(
                        f"  LIKELY {outcome.label.name}: expected line {outcome.expected_line}, "
                        f"likely cause at {outcome.likely_line}"
                    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
