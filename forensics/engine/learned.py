"""The third tier of root causes: a family model learned from the labelled corpus, tried where no rule has words.

The fatal-line rules (engine/fatal_line.py) name a family by words a person wrote down; every fresh set of logs
brings wordings nobody wrote. This tier asks two questions of a line, each answered by a model learned from the
corpus' labels (forensics/usecases/learn_family_model.py): is it a cause at all (the gate, engine/cause_gate.py, a very
conservative threshold: a family named on an ordinary failure is a false cause), and then which family (a multinomial
naive Bayes over the words of a line, its evidence scaled by one over the square root of the number of known words,
its most likely family: a wrong family on a line with a cause is a miss either way). It runs only on a failing test
that no ordinary rule and no fatal-line rule explains, on the lines the fatal-line tier tried (the likely-cause line,
then `tier_candidates`), and names the family of the first of them the gate passes: precision first, silence
otherwise.

The finding is the family's fatal-line rule (its title, summary and advice) with `FoundBy.LEARNED`, and the words
that decided the family in its values (model.LEARNED_WORDS), so every format that shows a finding shows how it was
found. The weights are data (rules/learned/family-model.json and cause-gate.txt: counts, not floats, so a rebuild is
byte-identical; each feature's counts a short string, read only when a judged line has that word, so each file loads
in a few milliseconds).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import pairwise
from pathlib import Path
from typing import TYPE_CHECKING, Any

from forensics.engine.cause_gate import CauseGate, shipped_gate
from forensics.engine.fatal_line import candidate_lines
from forensics.engine.fingerprint import mask
from forensics.engine.normalize import normalize_line
from forensics.engine.scanner import CompiledRules
from forensics.model import LEARNED_WORDS, Evidence, ExcerptLine, Finding, FoundBy

if TYPE_CHECKING:
    from forensics.engine.likely import LikelyLine

MODEL_FILE = Path("learned") / "family-model.json"  # under the rule pack's folder
NONE = "none"  # the class of lines that prove no family: the model says nothing on them
SHOWN_WORDS = 5

_WORD = re.compile(r"<[a-z]+>|[A-Za-z][A-Za-z0-9]*")
# a small whole number keeps its value as a word of its own (`exitcode: -9` is a signal, `exitcode: 1` is not), the
# masked line only says <num>
_SMALL_NUMBER = re.compile(r"(?<![\w.:/-])-?[0-9]{1,3}(?![\w.]|:[0-9])")
_CAMEL_PART = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")


def line_features(text: str) -> tuple[str, ...]:
    """The words a line is judged by, sorted: its normalised message (engine/normalize.py) with numbers, paths and
    hex masked (engine/fingerprint.py), each word lower-cased, the parts of a CamelCase or snake_case word
    (`OutOfMemoryError` also gives `out`, `of`, `memory`, `error`), each pair of neighbouring words, and each small
    whole number of the message as `#-9`."""
    message = normalize_line(text).text
    tokens = _WORD.findall(mask(message))
    words = [token.lower() for token in tokens]
    features = set(words)
    features.update(f"#{number}" for number in _SMALL_NUMBER.findall(message))
    for word in tokens:
        parts = _CAMEL_PART.findall(word)
        if len(parts) > 1:
            features.update(part.lower() for part in parts)
    features.update(f"{first} {second}" for first, second in pairwise(words))
    return tuple(sorted(features))


@dataclass(frozen=True, slots=True)
class Judgement:
    """What the model says of one line: the most likely class (or family), its posterior, and the words that favoured
    it over "none"."""

    family: str
    probability: float
    words: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class FamilyModel:
    """Per class (the first is "none"): the lines it was learned from and the total of their features' counts;
    per feature, its count in each class it occurs in; the smoothing."""

    classes: tuple[str, ...]
    class_lines: tuple[int, ...]
    class_features: tuple[int, ...]
    counts: Mapping[str, str]  # feature → "class:count class:count", read only for the words of a judged line
    alpha: float

    def counts_of(self, feature: str) -> dict[int, int]:
        """A known feature's count in each class it occurs in."""
        pairs = (pair.partition(":") for pair in self.counts[feature].split())
        return {int(index): int(count) for index, _, count in pairs}

    def judge(self, text: str) -> Judgement:
        """The most likely class of a line ("none" included), its posterior, and (for a family) its deciding words."""
        counts, denominators, scores = self._scores(line_features(text))
        best, probability = _most_likely(scores, range(len(scores)))
        if best == 0:
            return Judgement(NONE, probability, ())
        return Judgement(self.classes[best], probability, self._deciding_words(counts, best, denominators))

    def family_of(self, features: Sequence[str]) -> Judgement:
        """The most likely family of a line with these features (never "none": the gate said it is a cause), its
        posterior among the families, and the words that favoured it most."""
        counts, denominators, scores = self._scores(features)
        best, probability = _most_likely(scores, range(1, len(scores)))
        return Judgement(self.classes[best], probability, self._deciding_words(counts, best, denominators))

    def _scores(self, features: Sequence[str]) -> tuple[dict[str, dict[int, int]], list[float], list[float]]:
        """The known features' counts, each class's denominator, and each class's log score for these features."""
        counts = {feature: self.counts_of(feature) for feature in features if feature in self.counts}
        vocabulary = len(self.counts)
        total_lines = sum(self.class_lines)
        denominators = [total + self.alpha * vocabulary for total in self.class_features]
        likelihoods = [len(counts) * math.log(self.alpha / denominator) for denominator in denominators]
        for per_class in counts.values():
            for index, count in per_class.items():
                likelihoods[index] += math.log((count + self.alpha) / self.alpha)
        # a line's words are far from independent (a bigram repeats its two words): naive Bayes' evidence grows with
        # their number and its posterior reads ~1.0 on most lines; dividing by the square root of that number keeps
        # the posterior a usable confidence (cross-validation by collection: docs/accuracy.md)
        scale = 1.0 / math.sqrt(len(counts)) if counts else 1.0
        scores = [
            math.log(lines / total_lines) + likelihood * scale
            for lines, likelihood in zip(self.class_lines, likelihoods, strict=True)
        ]
        return counts, denominators, scores

    def _deciding_words(
        self, counts: Mapping[str, Mapping[int, int]], best: int, denominators: Sequence[float]
    ) -> tuple[str, ...]:
        """The words that raise the family over "none" most, strongest first (ties in alphabetical order)."""
        weights = {
            feature: math.log(
                ((per_class.get(best, 0) + self.alpha) / denominators[best])
                / ((per_class.get(0, 0) + self.alpha) / denominators[0])
            )
            for feature, per_class in counts.items()
        }
        ranked = sorted(
            (feature for feature, weight in weights.items() if weight > 0), key=lambda f: (-weights[f], f)
        )
        return tuple(ranked[:SHOWN_WORDS])


def _most_likely(scores: Sequence[float], among: Iterable[int]) -> tuple[int, float]:
    """The best-scoring class among `among` (ties to the first) and its posterior among them."""
    chosen = list(among)
    best = max(chosen, key=lambda index: (scores[index], -index))
    top = scores[best]
    return best, 1.0 / sum(math.exp(scores[index] - top) for index in chosen)


def model_from_json(data: Mapping[str, Any]) -> FamilyModel:
    """The model kept in rules/learned/family-model.json (usecases/learn_family_model.py writes it)."""
    classes = tuple(str(name) for name in data["classes"])
    if not classes or classes[0] != NONE:
        raise ValueError(f"a family model's first class must be {NONE!r}, not {classes[:1]}")
    return FamilyModel(
        classes=classes,
        class_lines=tuple(int(count) for count in data["class_lines"]),
        class_features=tuple(int(count) for count in data["class_features"]),
        counts={str(feature): str(per_class) for feature, per_class in data["features"].items()},
        alpha=float(data["alpha"]),
    )


@cache
def shipped_model(pack: Path) -> FamilyModel | None:
    """The rule pack's learned model, or None when the pack has none (a pack of one's own rules)."""
    path = pack / MODEL_FILE
    if not path.is_file():
        return None
    return model_from_json(json.loads(path.read_text(encoding="utf-8")))


def learned_line(
    picked: LikelyLine,
    model: FamilyModel,
    gate: CauseGate,
    *,
    is_wrapper: Callable[[str], bool] = lambda _text: False,
) -> tuple[int, str, Judgement] | None:
    """The first of the lines the fatal-line tier tries (the likely cause, then `tier_candidates`) that the gate says
    is a cause: its number and text, and the family model's judgement of its family."""
    for number, text in candidate_lines(picked, is_wrapper=is_wrapper):
        features = line_features(text)
        if gate.passes(features):
            return number, text, model.family_of(features)
    return None


def learned_line_cause(
    picked: LikelyLine,
    evidence_at: Callable[[int, str, tuple[ExcerptLine, ...]], Evidence],
    compiled: CompiledRules,
    *,
    is_wrapper: Callable[[str], bool] = lambda _text: False,
) -> Finding | None:
    """The root cause the shipped models name for a likely cause no rule explains: the named family's fatal-line
    rule, on the line the gate passed, found by `FoundBy.LEARNED` with the family's deciding words as a value."""
    from forensics.rules.loader import shipped_rules_path

    pack = shipped_rules_path()
    model = shipped_model(pack)
    gate = shipped_gate(pack)
    if model is None or gate is None:
        return None
    found = learned_line(picked, model, gate, is_wrapper=is_wrapper)
    if found is None:
        return None
    number, text, judgement = found
    wanted = f"fatal-line.{judgement.family}"
    rule = next(
        (compiled.rules[index] for index in compiled.fatal_line_rules if compiled.rules[index].id == wanted),
        None,
    )
    if rule is None:  # a pack without that family's fatal-line rule has nothing to say about it
        return None
    words = ", ".join(judgement.words)
    return rule.finding(
        {LEARNED_WORDS: words}, evidence_at(number, text, picked.excerpt), found_by=FoundBy.LEARNED
    )
