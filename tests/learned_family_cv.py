"""Measure the learned family model (engine/learned.py) honestly: cross-validation by collection, then one look at a
collection it never learned from.

Train holds eleven collections (the original labels files, then holdout-r1 … holdout-r10, each gathered blind by
other people). For a fold K the model is learned from every collection but K and those named by --exclude (the
tenth set, while it is the first-look set), and K is scored through the whole pipeline as it is (the pack's rules
and fatal-line tier first; the model only where neither explains) and by the model alone (the picker's line and
its tier candidates, no rule at all).

    python -m tests.learned_family_cv                       # folds r1..r9, learning without holdout-r10
    python -m tests.learned_family_cv --first-look holdout-r10   # score r10 once: figures only, no case shown
    python -m tests.learned_family_cv --thresholds 0.99,0.999   # the thresholds to compare (default: a sweep)

Per fold and threshold: the cases the model named right that nothing else named, the wrong families (or lines) it
named on cases with a cause, and the false causes it named on K's unexplained cases. The pipeline run for each
case records the lines the learned tier would try (the tier's own `candidate_lines`), so every threshold is scored
from one pass; `--verify` then scores each fold again through `analyze` with the fold's model at the chosen
threshold, to check the replay.
"""

from __future__ import annotations

import sys
import tomllib
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from forensics.engine import learned
from forensics.engine.learned import FamilyModel, model_from_json
from forensics.engine.likely import LikelyLine, pick_likely_cause
from forensics.rules.loader import load_rules
from forensics.usecases.learn_family_model import THRESHOLD, collection_of, labelled_lines, learn
from tests.corpus_accuracy import CORPUS, UNEXPLAINED, Label, Outcome, evaluate, figures, labels

TRAIN = CORPUS / "train"
FOLDS = tuple(f"holdout-r{number}" for number in range(1, 10))
SWEEP = (0.99, 0.999, 0.9999, 0.99995, 0.99999)


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


def _silent_model() -> FamilyModel:
    """Stands in for the shipped model while recording: it names nothing, so the tier tries every line."""
    return FamilyModel(
        classes=("none",), class_lines=(1,), class_features=(1,), counts={}, alpha=1.0, threshold=2.0
    )


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
    original: Callable[..., tuple[tuple[int, str], ...]] = learned.candidate_lines

    def recording(picked: LikelyLine, **options: Any) -> tuple[tuple[int, str], ...]:
        lines = original(picked, **options)
        seen.append(lines)
        return lines

    silent = _silent_model()
    cases = []
    with _patched("candidate_lines", recording), _patched("shipped_model", lambda _pack: silent):
        for label in chosen:
            seen.clear()
            [outcome] = evaluate(rules, "train", chosen=[label])
            text = label.path.read_text(encoding="utf-8", errors="replace")
            picked = pick_likely_cause(text.split("\n"))
            alone = original(picked) if picked is not None else ()
            cases.append(Case(outcome, seen[0] if seen else (), alone))
    return cases


@dataclass(frozen=True, slots=True)
class Score:
    """A fold's figures at one threshold."""

    cases: int
    causes: int
    unexplained: int
    pack_right: int
    pack_false: int
    new_right: int  # named right by the model, by nothing else
    wrong: int  # a family named on a case with a cause, wrong family or wrong line
    false: int  # a family named on an unexplained case
    alone_right: int
    alone_wrong: int
    alone_false: int


def _named(model: FamilyModel, lines: Sequence[tuple[int, str]]) -> tuple[int, str] | None:
    for number, text in lines:
        judgement = model.names(text)
        if judgement is not None:
            return number, judgement.family
    return None


def _right(outcome: Outcome, named: tuple[int, str]) -> bool:
    return named[1] == outcome.expected and named[0] == outcome.expected_line


def _judged(outcome: Outcome, named: tuple[int, str] | None) -> str | None:
    """What naming `named` on this case is: "false" (on an unexplained case), "right" or "wrong"; None: nothing named."""
    if named is None:
        return None
    if outcome.expected == UNEXPLAINED:
        return "false"
    return "right" if _right(outcome, named) else "wrong"


def score(cases: Sequence[Case], model: FamilyModel) -> Score:
    """Replay the learned tier on the recorded lines, and the model alone on the picker's lines."""
    tier: Counter[str | None] = Counter()
    alone: Counter[str | None] = Counter()
    for case in cases:
        outcome = case.outcome
        tier[_judged(outcome, _named(model, case.candidates) if outcome.got_rule is None else None)] += 1
        alone[_judged(outcome, _named(model, case.alone))] += 1
    causes = [case for case in cases if case.outcome.expected != UNEXPLAINED]
    return Score(
        cases=len(cases),
        causes=len(causes),
        unexplained=len(cases) - len(causes),
        pack_right=sum(case.outcome.correct for case in causes),
        pack_false=sum(case.outcome.false_cause for case in cases),
        new_right=tier["right"],
        wrong=tier["wrong"],
        false=tier["false"],
        alone_right=alone["right"],
        alone_wrong=alone["wrong"],
        alone_false=alone["false"],
    )


def fold_model(exclude: set[str], threshold: float) -> FamilyModel:
    """The model learned from every train collection but `exclude`."""
    examples = [
        example
        for example in labelled_lines(TRAIN, CORPUS / "families.toml")
        if example.collection not in exclude
    ]
    return model_from_json(learn(examples, threshold=threshold))


def _with_threshold(model: FamilyModel, threshold: float) -> FamilyModel:
    return FamilyModel(
        model.classes, model.class_lines, model.class_features, model.counts, model.alpha, threshold
    )


def _row(name: str, threshold: float, result: Score) -> str:
    with_model = result.pack_right + result.new_right
    return (
        f"{name:<12} {threshold:<9} {result.cases:>5} {result.pack_right:>4}/{result.causes:<4} "
        f"{with_model:>4}/{result.causes:<4} {result.pack_right / result.causes:>6.1%} -> "
        f"{with_model / result.causes:>6.1%} {result.new_right:>5} {result.wrong:>5} "
        f"{result.pack_false + result.false:>3}/{result.unexplained:<3} {result.false:>5}   "
        f"{result.alone_right:>4} {result.alone_wrong:>5} {result.alone_false:>5}"
    )


HEADER = (
    f"{'fold':<12} {'threshold':<9} {'cases':>5} {'pack':>9} {'pack+model':>9} {'top-1':>16} "
    f"{'new':>5} {'wrong':>5} {'false':>7} {'model':>5}   {'alone right/wrong/false':>23}"
)


def cross_validate(thresholds: Sequence[float], exclude: set[str]) -> None:
    """Every fold at every threshold, and the folds' totals per threshold."""
    where = collections_of_cases()
    all_labels = [label for label in labels("train") if where.get(label.name) in FOLDS]
    print(HEADER)
    totals: dict[float, list[Score]] = {threshold: [] for threshold in thresholds}
    for fold in FOLDS:
        cases = record([label for label in all_labels if where[label.name] == fold])
        base = fold_model(exclude | {fold}, THRESHOLD)
        for threshold in thresholds:
            result = score(cases, _with_threshold(base, threshold))
            totals[threshold].append(result)
            print(_row(fold, threshold, result))
        sys.stdout.flush()
    for threshold, results in totals.items():
        total = Score(*(sum(getattr(result, name) for result in results) for name in Score.__slots__))
        print(_row("all folds", threshold, total))


def verify(threshold: float, exclude: set[str], folds: Sequence[str]) -> None:
    """Each fold through `analyze` itself with the fold's model shipped: top-1 and false causes."""
    where = collections_of_cases()
    rules = load_rules()
    for fold in folds:
        model = fold_model(exclude | {fold}, threshold)
        chosen = [label for label in labels("train") if where.get(label.name) == fold]
        with _patched("shipped_model", lambda _pack, model=model: model):
            result = figures(evaluate(rules, "train", chosen=chosen))
        print(
            f"{fold:<12} top-1 {result.top1:.1%} of {result.causes}, false causes {result.false_cause:.1%} of {result.unexplained}"
        )


def first_look(collection: str, threshold: float) -> None:
    """Score one collection once, the model learned from every other: figures only, with and without the model."""
    where = collections_of_cases()
    chosen = [label for label in labels("train") if where.get(label.name) == collection]
    cases = record(chosen)
    model = fold_model({collection}, threshold)
    result = score(cases, model)
    print(HEADER)
    print(_row(collection, threshold, result))
    with_model = result.pack_right + result.new_right
    print(
        f"{collection}: without the model {result.pack_right / result.causes:.1%} top-1, {result.pack_false} false "
        f"causes of {result.unexplained}; with it {with_model / result.causes:.1%} top-1, "
        f"{result.pack_false + result.false} false causes of {result.unexplained}"
    )


def main(argv: list[str]) -> int:
    thresholds = (
        tuple(float(value) for value in argv[argv.index("--thresholds") + 1].split(","))
        if "--thresholds" in argv
        else SWEEP
    )
    if "--first-look" in argv:
        first_look(
            argv[argv.index("--first-look") + 1], thresholds[0] if "--thresholds" in argv else THRESHOLD
        )
        return 0
    exclude = {"holdout-r10"}
    if "--verify" in argv:
        verify(thresholds[0] if "--thresholds" in argv else THRESHOLD, exclude, FOLDS)
        return 0
    cross_validate(thresholds, exclude)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
