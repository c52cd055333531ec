"""Scratch experiment: a gate (is this line a cause at all?) then the family model's argmax. Not shipped."""

from __future__ import annotations

import math
import pickle
import random
import re
import sys
import tomllib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from forensics.engine.fatal_line import candidate_lines
from forensics.engine.learned import NONE, FamilyModel, line_features
from forensics.engine.likely import pick_likely_cause
from forensics.usecases.learn_family_model import collection_of, labelled_lines
from tests.corpus_accuracy import CORPUS, UNEXPLAINED, labels
from tests.learned_family_cv import Case, collections_of_cases, fold_model, record

TRAIN = CORPUS / "train"
FOLDS = tuple(f"holdout-r{number}" for number in range(1, 12))
CACHE = Path("/tmp/tier2w-gate-cache.pkl")


@dataclass(frozen=True, slots=True)
class GateLine:
    collection: str
    case: str
    cause: bool
    text: str


def gate_lines() -> list[GateLine]:
    """Positives: every cause case's evidence line; negatives: the labelled line and the picker's lines of every
    unexplained case (the lines the tier would try on it)."""
    where = collections_of_cases()
    found: list[GateLine] = []
    for label in labels("train"):
        collection = where.get(label.name, "train")
        if label.test is not None:
            continue
        lines = label.path.read_text(encoding="utf-8", errors="replace").split("\n")
        if label.family != UNEXPLAINED:
            if label.evidence:
                text = next((line for line in lines if label.evidence in line), None)
                if text is not None:
                    found.append(GateLine(collection, label.name, True, text))
            continue
        texts = set()
        if label.evidence:
            text = next((line for line in lines if label.evidence in line), None)
            if text is not None:
                texts.add(text)
        picked = pick_likely_cause(lines)
        if picked is not None:
            texts.update(text for _number, text in candidate_lines(picked))
        found.extend(GateLine(collection, label.name, False, text) for text in sorted(texts))
    return found


_EXIT = re.compile(r"(?:exit|return)(?:ed)?[ _]?(?:code|status|value)?\W{0,4}(-?\d+)|exitcode\W{0,3}(-?\d+)", re.I)


def features(text: str) -> tuple[str, ...]:
    found = set(line_features(text))
    if "--shape" in sys.argv:
        for match in _EXIT.finditer(text):
            code = match.group(1) or match.group(2)
            found.add(f"exit:{code}")
            found.add("exit:fail" if code in ("1", "2") else "exit:other")
    return tuple(sorted(found))


@dataclass(frozen=True, slots=True)
class Logistic:
    weights: dict[str, float]
    bias: float

    def probability(self, text: str) -> float:
        score = self.bias + sum(self.weights.get(feature, 0.0) for feature in features(text))
        return 1.0 / (1.0 + math.exp(-score)) if score > -700 else 0.0


def train_logistic(examples: Sequence[GateLine], *, l2: float = 1e-3, epochs: int = 30, rate: float = 0.5) -> Logistic:
    data = [(features(example.text), 1.0 if example.cause else 0.0) for example in examples]
    data.sort()
    random.Random(0).shuffle(data)
    positives = sum(y for _x, y in data)
    weight_of = {1.0: len(data) / (2 * positives), 0.0: len(data) / (2 * (len(data) - positives))}
    weights: dict[str, float] = {}
    squares: dict[str, float] = {}
    bias = 0.0
    bias_square = 0.0
    for _epoch in range(epochs):
        for x, y in data:
            score = bias + sum(weights.get(f, 0.0) for f in x)
            p = 1.0 / (1.0 + math.exp(-max(min(score, 30), -30)))
            gradient = (p - y) * weight_of[y]
            for f in x:
                g = gradient + l2 * weights.get(f, 0.0)
                squares[f] = squares.get(f, 0.0) + g * g
                weights[f] = weights.get(f, 0.0) - rate * g / math.sqrt(squares[f] + 1e-8)
            bias_square += gradient * gradient
            bias -= rate * gradient / math.sqrt(bias_square + 1e-8)
    return Logistic({f: round(w, 4) for f, w in weights.items() if abs(w) >= 1e-4}, round(bias, 4))


@dataclass(frozen=True, slots=True)
class NaiveGate:
    """Binary naive Bayes with the family model's square-root scaling."""

    counts: dict[str, tuple[int, int]]
    lines: tuple[int, int]
    totals: tuple[int, int]
    alpha: float

    def probability(self, text: str) -> float:
        known = [self.counts[f] for f in features(text) if f in self.counts]
        vocabulary = len(self.counts)
        scores = []
        for index in (0, 1):
            denominator = self.totals[index] + self.alpha * vocabulary
            likelihood = sum(math.log((c[index] + self.alpha) / denominator) for c in known)
            scale = 1.0 / math.sqrt(len(known)) if known else 1.0
            scores.append(math.log(self.lines[index] / sum(self.lines)) + likelihood * scale)
        return 1.0 / (1.0 + math.exp(scores[0] - scores[1]))


def train_naive(examples: Sequence[GateLine], *, alpha: float = 0.1) -> NaiveGate:
    counts: dict[str, list[int]] = {}
    lines = [0, 0]
    totals = [0, 0]
    for example in examples:
        index = int(example.cause)
        feats = features(example.text)
        lines[index] += 1
        totals[index] += len(feats)
        for f in feats:
            counts.setdefault(f, [0, 0])[index] += 1
    return NaiveGate({f: (c[0], c[1]) for f, c in counts.items()}, (lines[0], lines[1]), (totals[0], totals[1]), alpha)


def family_argmax(model: FamilyModel, text: str) -> tuple[str, float] | None:
    """The most likely family (never none) and its posterior among the families."""
    counts = {f: model.counts_of(f) for f in line_features(text) if f in model.counts}
    vocabulary = len(model.counts)
    total_lines = sum(model.class_lines)
    denominators = [total + model.alpha * vocabulary for total in model.class_features]
    likelihoods = [len(counts) * math.log(model.alpha / d) for d in denominators]
    for per_class in counts.values():
        for index, count in per_class.items():
            likelihoods[index] += math.log((count + model.alpha) / model.alpha)
    scale = 1.0 / math.sqrt(len(counts)) if counts else 1.0
    scores = [math.log(n / total_lines) + lk * scale for n, lk in zip(model.class_lines, likelihoods, strict=True)][1:]
    best = max(range(len(scores)), key=lambda i: (scores[i], -i))
    top = scores[best]
    return model.classes[best + 1], 1.0 / sum(math.exp(s - top) for s in scores)


def main(argv: list[str]) -> int:
    folds = argv[argv.index("--folds") + 1].split(",") if "--folds" in argv else [f for f in FOLDS if f != "holdout-r11"]
    exclude = set(argv[argv.index("--exclude") + 1].split(",")) if "--exclude" in argv else {"holdout-r11"}
    kind = argv[argv.index("--gate") + 1] if "--gate" in argv else "logistic"
    gates = [float(v) for v in argv[argv.index("--t") + 1].split(",")] if "--t" in argv else [0.5, 0.9, 0.99, 0.999, 0.9999]
    bars = [float(v) for v in argv[argv.index("--f") + 1].split(",")] if "--f" in argv else [0.0, 0.5, 0.9]
    cache: dict[str, object] = pickle.loads(CACHE.read_bytes()) if CACHE.exists() else {}
    if "lines" not in cache:
        cache["lines"] = gate_lines()
        CACHE.write_bytes(pickle.dumps(cache))
    all_lines: list[GateLine] = cache["lines"]  # type: ignore[assignment]
    where = collections_of_cases()
    all_labels = list(labels("train"))
    totals: Counter[tuple[float, float, str]] = Counter()
    for fold in folds:
        key = f"cases:{fold}"
        if key not in cache:
            cache[key] = record([label for label in all_labels if where.get(label.name) == fold])
            CACHE.write_bytes(pickle.dumps(cache))
        cases: list[Case] = cache[key]  # type: ignore[assignment]
        training = [line for line in all_lines if line.collection not in exclude | {fold}]
        gate = train_logistic(training) if kind == "logistic" else train_naive(training)
        family = fold_model(exclude | {fold}, 0.99995)
        judged: dict[str, tuple[float, str, float, str, float]] = {}

        def judge(text: str) -> tuple[float, str, float, str, float]:
            if text not in judged:
                name, posterior = family_argmax(family, text)
                old = family.judge(text)
                judged[text] = (gate.probability(text), name, posterior, old.family, old.probability)
            return judged[text]

        for t in gates:
            for bar in bars:
                counter: Counter[str] = Counter()
                for case in cases:
                    outcome = case.outcome
                    for mode, lines in (("tier", case.candidates if outcome.got_rule is None else ()), ("alone", case.alone)):
                        named = None
                        old_named = None
                        for number, text in lines:
                            p, name, posterior, old_family, old_p = judge(text)
                            if old_named is None and old_family != NONE and old_p >= 0.99995:
                                old_named = (number, old_family)
                            if named is None and p >= t and posterior >= bar:
                                named = (number, name)
                        for variant, choice in (("gate", named), ("old", old_named)):
                            if choice is None:
                                continue
                            if outcome.expected == UNEXPLAINED:
                                verdict = "false"
                                if "--show" in argv and variant == "gate" and fold != "holdout-r11":
                                    text = dict(lines)[choice[0]]
                                    print("   FALSE", mode, fold, t, bar, choice[1], round(judge(text)[0], 6), round(judge(text)[2], 3), text[:200])
                            elif choice[1] == outcome.expected and choice[0] == outcome.expected_line:
                                verdict = "right"
                            else:
                                verdict = "wrong"
                            counter[f"{mode}-{variant}-{verdict}"] += 1
                causes = sum(case.outcome.expected != UNEXPLAINED for case in cases)
                pack = sum(case.outcome.correct for case in cases if case.outcome.expected != UNEXPLAINED)
                row = " ".join(f"{k}={counter[k]}" for k in sorted(counter))
                print(f"{fold:<11} {kind} t={t:<7} f={bar:<4} causes={causes} pack={pack} {row}")
                for k, v in counter.items():
                    totals[(t, bar, k)] += v
        sys.stdout.flush()
    for t in gates:
        for bar in bars:
            keys = sorted({k for (tt, bb, k) in totals if tt == t and bb == bar})
            print(f"ALL {kind} t={t:<7} f={bar:<4} " + " ".join(f"{k}={totals[(t, bar, k)]}" for k in keys))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
