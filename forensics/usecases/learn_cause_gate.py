"""Learn the cause gate (engine/cause_gate.py) from a labelled corpus, deterministically: the shipped
rules/learned/cause-gate.txt is what `python -m forensics.usecases.learn_family_model` makes from tests/corpus/train
today, with the family model (tests/test_cause_gate.py checks it).

Its examples: a case labelled with a cause (any family) gives its evidence line to "cause"; a case labelled
"unexplained" gives to "none" its labelled line, when it has one, and every line the learned tier would try on it
(the likely-cause picker's line and its `tier_candidates`, read with no rule), since those are the lines the gate
must stay silent on. Cases of allure-results folders (no single log to pick in) and lines not found are left out.
"""

from __future__ import annotations

import json
import tomllib
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from forensics.engine.cause_gate import CLASSES
from forensics.engine.fatal_line import candidate_lines
from forensics.engine.learned import line_features
from forensics.engine.likely import pick_likely_cause
from forensics.usecases.learn_family_model import UNEXPLAINED, collection_of, evidence_line

ALPHA = 0.1  # additive smoothing of each feature's count per class
# the probability of "cause" a line needs: the lowest swept with no false cause in any fold of the cross-validation
# by collection, pipeline and tier alone (tests/learned_family_cv.py; docs/accuracy.md, "A gate before the family")
THRESHOLD = 0.999


@dataclass(frozen=True, slots=True)
class GateLine:
    """One example of the gate: a line, whether it proves a cause, and the collection it comes from."""

    collection: str
    case: str
    cause: bool
    text: str


def gate_lines(corpus: Path) -> list[GateLine]:
    """Every example of a corpus split, in labels-file order then case order (a case's "none" lines sorted)."""
    examples = []
    for labels_file in sorted(corpus.glob("labels*.toml")):
        collection = collection_of(labels_file.name)
        for entry in tomllib.loads(labels_file.read_text(encoding="utf-8")).get("log", []):
            if "file" not in entry:
                continue
            lines = (corpus / entry["file"]).read_text(encoding="utf-8", errors="replace").split("\n")
            labelled = evidence_line(lines, entry["evidence"]) if entry.get("evidence") else None
            if (entry.get("family") or entry["cause"]) != UNEXPLAINED:
                if labelled is not None:
                    examples.append(GateLine(collection, entry["file"], True, labelled))
                continue
            texts = {labelled} if labelled is not None else set()
            picked = pick_likely_cause(lines)
            if picked is not None:
                texts.update(text for _number, text in candidate_lines(picked))
            examples.extend(GateLine(collection, entry["file"], False, text) for text in sorted(texts))
    return examples


def learn_gate(
    examples: Iterable[GateLine], *, alpha: float = ALPHA, threshold: float = THRESHOLD, header: str = ""
) -> dict[str, object]:
    """The gate's data (engine/cause_gate.py `gate_from_text` reads its text): per class ("none", "cause") its lines
    and feature total, per feature its count in each."""
    lines: Counter[bool] = Counter()
    totals: Counter[bool] = Counter()
    counts: dict[str, Counter[bool]] = {}
    for example in examples:
        features = line_features(example.text)
        lines[example.cause] += 1
        totals[example.cause] += len(features)
        for feature in features:
            counts.setdefault(feature, Counter())[example.cause] += 1
    return {
        "header": header,
        "alpha": alpha,
        "threshold": threshold,
        "classes": list(CLASSES),
        "class_lines": [lines[False], lines[True]],
        "class_features": [totals[False], totals[True]],
        "features": {feature: (counts[feature][False], counts[feature][True]) for feature in sorted(counts)},
    }


def gate_text(data: dict[str, object]) -> str:
    """The gate file's text: a JSON header line, then one feature a line (sorted, so that a change reads in a diff
    and a lookup can bisect), its counts in "none" and "cause" after a tab."""
    header = {key: value for key, value in data.items() if key != "features"}
    features = data["features"]
    assert isinstance(features, dict)
    rows = sorted(f"{feature}\t{none} {cause}" for feature, (none, cause) in features.items())
    return "\n".join([json.dumps(header, sort_keys=True), *rows]) + "\n"


def build_gate_text(corpus: Path, *, exclude: Sequence[str] = (), corpus_name: str | None = None) -> str:
    """The gate learned from every collection of `corpus` but `exclude`, with a header naming how it was made."""
    name = corpus.as_posix() if corpus_name is None else corpus_name
    left_out = sorted(set(exclude))
    examples = [example for example in gate_lines(corpus) if example.collection not in left_out]
    collections = sorted({example.collection for example in examples})
    command = f"python -m forensics.usecases.learn_family_model --corpus {name}"
    command += "".join(f" --exclude {collection}" for collection in left_out)
    causes = sum(example.cause for example in examples)
    header = (
        f"made by `{command}` from {len(examples)} lines of {name} (collections: {', '.join(collections)}): "
        f"{causes} evidence lines of cases with a cause teach 'cause', {len(examples) - causes} labelled and "
        "likely-cause lines of unexplained cases teach 'none'; a two-class naive Bayes over engine/learned.py's "
        "line_features; do not edit, regenerate"
    )
    return gate_text(learn_gate(examples, header=header))
