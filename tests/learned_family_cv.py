"""Measure the learned tier (a cause gate, engine/cause_gate.py, then the family model's most likely family,
engine/learned.py) honestly: leave-one-holdout-out cross-validation over the retired holdouts.

Train holds the original labels files and the retired holdouts holdout-r1, holdout-r2, … (each gathered blind by
other people); every retired holdout is a fold. For a fold K both models are learned from every collection but K
(and those named by --exclude), and K is scored through the whole pipeline as it is (the pack's rules and fatal-line
tier first; the learned tier only where neither explains) and by the tier alone (the picker's line and its tier
candidates, no rule at all). The baseline is the tier shipped before the gate: the family model alone, naming a
family only at a posterior of at least 0.99995.

    python -m tests.learned_family_cv                          # every fold, a sweep of gate thresholds
    python -m tests.learned_family_cv --thresholds 0.999       # the thresholds to compare
    python -m tests.learned_family_cv --folds holdout-r12      # one fold (a first look at a newly retired set)
    python -m tests.learned_family_cv --verify --thresholds 0.999   # each fold through `analyze` itself

Per fold and threshold: what the pack names right, what the gate tier adds right, wrong (a wrong family or line on a
case with a cause) and false (a family named on an unexplained case), the baseline's, and the gain in top-1 (the
gate tier's right minus the baseline's). The pipeline run of each case records the lines the tier would try (its own
`candidate_lines`), so every threshold is scored from one pass.
"""

from __future__ import annotations

import sys
import tomllib
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, fields
from typing import Any

from forensics.engine import learned
from forensics.engine.cause_gate import CauseGate, gate_from_text
from forensics.engine.fatal_line import candidate_lines
from forensics.engine.learned import NONE, FamilyModel, line_features, model_from_json
from forensics.engine.likely import LikelyLine, pick_likely_cause
from forensics.rules.loader import load_rules
from forensics.usecases.learn_cause_gate import gate_lines, gate_text, learn_gate
from forensics.usecases.learn_family_model import collection_of, labelled_lines, learn
from tests.corpus_accuracy import CORPUS, UNEXPLAINED, Label, Outcome, evaluate, figures, labels

TRAIN = CORPUS / "train"
SWEEP = (0.99, 0.995, 0.998, 0.999, 0.9995, 0.9999)
BASELINE = 0.99995  # the posterior the family model alone needed before the gate (docs/accuracy.md)

Named = tuple[int, str] | None  # the line a family was named on and the family


@dataclass(frozen=True, slots=True)
class Case:
    """One labelled case of a fold: what the pack said, and the lines the learned tier would try."""

    outcome: Outcome
    candidates: tuple[tuple[int, str], ...]  # empty when the pack explained it or no likely cause was found
    alone: tuple[tuple[int, str], ...]  # the picker's line and tier candidates on the log, no rule at all


def collections_of_cases() -> dict[str, str]:
    """Case file → its collection, from the labels file that names it."""
    found = {}
    for labels_file in sorted(TRAIN.glob("labels*.toml")):
        for entry in tomllib.loads(labels_file.read_text(encoding="utf-8")).get("log", []):
            found[entry.get("file") or entry["results"]] = collection_of(labels_file.name)
    return found


def retired_holdouts() -> tuple[str, ...]:
    """The folds: every collection of train but the original files, in their order (holdout-r2 before r10)."""
    found = set(collections_of_cases().values()) - {"train"}
    return tuple(sorted(found, key=lambda name: int(name.removeprefix("holdout-r"))))


@contextmanager
def _patched(name: str, value: Any) -> Iterator[None]:
    """Swap one name of engine/learned.py for the measurement (never done by the product)."""
    original = getattr(learned, name)
    setattr(learned, name, value)
    try:
        yield
    finally:
        setattr(learned, name, original)


def record(chosen: Sequence[Label]) -> list[Case]:
    """Analyse each case with the pack as it is, the learned tier silent, keeping the lines the tier would try."""
    rules = load_rules()
    seen: list[tuple[tuple[int, str], ...]] = []
    original: Callable[..., tuple[tuple[int, str], ...]] = candidate_lines

    def recording(picked: LikelyLine, **options: Any) -> tuple[tuple[int, str], ...]:
        lines = original(picked, **options)
        seen.append(lines)
        return lines

    silent = CauseGate(class_lines=(1, 1), class_features=(1, 1), rows=(), alpha=1.0, threshold=2.0)
    cases = []
    with _patched("candidate_lines", recording), _patched("shipped_gate", lambda _pack: silent):
        for label in chosen:
            seen.clear()
            [outcome] = evaluate(rules, "train", chosen=[label])
            text = label.path.read_text(encoding="utf-8", errors="replace")
            picked = pick_likely_cause(text.split("\n"))
            alone = original(picked) if picked is not None else ()
            cases.append(Case(outcome, seen[0] if seen else (), alone))
    return cases


@dataclass(frozen=True, slots=True)
class Models:
    """A fold's models: the gate at its threshold and the family model."""

    gate: CauseGate
    family: FamilyModel

    def gated(self, lines: Sequence[tuple[int, str]]) -> Named:
        """The tier with the gate: the most likely family of the first line the gate passes."""
        for number, text in lines:
            features = line_features(text)
            if self.gate.passes(features):
                return number, self.family.family_of(features).family
        return None

    def baseline(self, lines: Sequence[tuple[int, str]]) -> Named:
        """The tier before the gate: the first line the family model alone names a family on at BASELINE."""
        for number, text in lines:
            judgement = self.family.judge(text)
            if judgement.family != NONE and judgement.probability >= BASELINE:
                return number, judgement.family
        return None


@dataclass(frozen=True, slots=True)
class Score:
    """A fold's figures at one threshold ("tier": in the pipeline, where the pack named nothing; "alone": no rule)."""

    cases: int
    causes: int
    unexplained: int
    pack_right: int
    pack_false: int
    right: int
    wrong: int
    false: int
    baseline_right: int
    baseline_wrong: int
    baseline_false: int
    alone_right: int
    alone_wrong: int
    alone_false: int
    alone_baseline_right: int
    alone_baseline_wrong: int
    alone_baseline_false: int


def _judged(outcome: Outcome, named: Named) -> str | None:
    """What naming `named` on this case is: "false" (on an unexplained case), "right" or "wrong"; None: nothing named."""
    if named is None:
        return None
    if outcome.expected == UNEXPLAINED:
        return "false"
    right = named[1] == outcome.expected and named[0] == outcome.expected_line
    return "right" if right else "wrong"


def score(cases: Sequence[Case], models: Models) -> Score:
    """Replay the tier, with the gate and before it, on the recorded lines and on the picker's lines alone."""
    counted: dict[str, Counter[str | None]] = {
        name: Counter() for name in ("", "baseline_", "alone_", "alone_baseline_")
    }
    for case in cases:
        outcome = case.outcome
        tried = case.candidates if outcome.got_rule is None else ()
        counted[""][_judged(outcome, models.gated(tried))] += 1
        counted["baseline_"][_judged(outcome, models.baseline(tried))] += 1
        counted["alone_"][_judged(outcome, models.gated(case.alone))] += 1
        counted["alone_baseline_"][_judged(outcome, models.baseline(case.alone))] += 1
    causes = [case for case in cases if case.outcome.expected != UNEXPLAINED]
    return Score(
        cases=len(cases),
        causes=len(causes),
        unexplained=len(cases) - len(causes),
        pack_right=sum(case.outcome.correct for case in causes),
        pack_false=sum(case.outcome.false_cause for case in cases),
        **{
            f"{prefix}{verdict}": counter[verdict]
            for prefix, counter in counted.items()
            for verdict in ("right", "wrong", "false")
        },
    )


def fold_models(exclude: set[str], threshold: float, lines: Sequence[Any]) -> Models:
    """Both models learned from every train collection but `exclude` (`lines`: the gate's examples of train)."""
    examples = [
        example
        for example in labelled_lines(TRAIN, CORPUS / "families.toml")
        if example.collection not in exclude
    ]
    chosen = [line for line in lines if line.collection not in exclude]
    gate = gate_from_text(gate_text(learn_gate(chosen, threshold=threshold)))
    return Models(gate, model_from_json(learn(examples)))


def _with_threshold(models: Models, threshold: float) -> Models:
    gate = models.gate
    return Models(
        CauseGate(gate.class_lines, gate.class_features, gate.rows, gate.alpha, threshold), models.family
    )


def _row(name: str, threshold: float, result: Score) -> str:
    gain = result.right - result.baseline_right
    return (
        f"{name:<12} {threshold:<7} {result.cases:>5} {result.pack_right:>4}/{result.causes:<4} "
        f"{result.right:>4} {result.wrong:>4} {result.false:>4}/{result.unexplained:<3} "
        f"{result.baseline_right:>4} {result.baseline_wrong:>4} {result.baseline_false:>4}  {gain:>+4}   "
        f"{result.alone_right:>4} {result.alone_wrong:>4} {result.alone_false:>4}   "
        f"{result.alone_baseline_right:>4} {result.alone_baseline_wrong:>4} {result.alone_baseline_false:>4}"
    )


HEADER = (
    f"{'fold':<12} {'gate':<7} {'cases':>5} {'pack':>9} {'right':>4} {'wrong':>4} {'false':>8} "
    f"{'before: right wrong false':>14}  {'gain':>4}   {'alone: right wrong false':>14}   {'before alone':>14}"
)


def cross_validate(thresholds: Sequence[float], exclude: set[str], folds: Sequence[str]) -> None:
    """Every fold at every threshold, and the folds' totals per threshold."""
    where = collections_of_cases()
    lines = gate_lines(TRAIN)
    all_labels = list(labels("train"))
    print(HEADER)
    totals: dict[float, list[Score]] = {threshold: [] for threshold in thresholds}
    for fold in folds:
        cases = record([label for label in all_labels if where.get(label.name) == fold])
        models = fold_models(exclude | {fold}, thresholds[0], lines)
        for threshold in thresholds:
            result = score(cases, _with_threshold(models, threshold))
            totals[threshold].append(result)
            print(_row(fold, threshold, result))
        sys.stdout.flush()
    for threshold, results in totals.items():
        total = Score(*(sum(getattr(result, field.name) for result in results) for field in fields(Score)))
        print(_row("all folds", threshold, total))


def verify(threshold: float, exclude: set[str], folds: Sequence[str]) -> None:
    """Each fold through `analyze` itself with the fold's models shipped: top-1 and false causes."""
    where = collections_of_cases()
    rules = load_rules()
    lines = gate_lines(TRAIN)
    for fold in folds:
        models = fold_models(exclude | {fold}, threshold, lines)
        chosen = [label for label in labels("train") if where.get(label.name) == fold]
        with (
            _patched("shipped_model", lambda _pack, model=models.family: model),
            _patched("shipped_gate", lambda _pack, gate=models.gate: gate),
        ):
            result = figures(evaluate(rules, "train", chosen=chosen))
        print(
            f"{fold:<12} top-1 {result.top1:.1%} of {result.causes}, "
            f"false causes {result.false_cause:.1%} of {result.unexplained}"
        )


def main(argv: list[str]) -> int:
    def listed(name: str) -> list[str]:
        return argv[argv.index(name) + 1].split(",") if name in argv else []

    thresholds = tuple(float(value) for value in listed("--thresholds")) or SWEEP
    folds = listed("--folds") or list(retired_holdouts())
    exclude = set(listed("--exclude"))
    if "--verify" in argv:
        verify(thresholds[0], exclude, folds)
    else:
        cross_validate(thresholds, exclude, folds)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
