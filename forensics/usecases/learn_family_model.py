"""Learn the family model (engine/learned.py) from a labelled corpus, deterministically: the shipped
rules/learned/family-model.json is what `python -m forensics.usecases.learn_family_model` makes from
tests/corpus/train today (tests/test_learned_model.py checks it). The same command writes the cause gate that the
learned tier asks first (rules/learned/cause-gate.txt, usecases/learn_cause_gate.py), so that one command
regenerates both after the corpus or its labels change.

Its examples are the corpus' labelled lines (tests/corpus_accuracy.py reads the same labels): a case labelled with a
family that has a fatal-line rule gives its evidence line (the first line of its log holding the label's
`evidence`) to that family; a case labelled "unexplained" gives its labelled line, when it has one, to "none".
Families without a fatal-line rule (the model could name nothing for them) and cases without a line are left out.
Each labels file belongs to a collection (`labels-holdout-r3a.toml` to holdout-r3, the original files to "train"),
so that a measurement can learn from some collections and score another (tests/learned_family_cv.py).
"""

from __future__ import annotations

import json
import re
import sys
import tomllib
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from forensics.engine.learned import NONE, line_features

UNEXPLAINED = "unexplained"
ALPHA = 0.1  # additive smoothing of each feature's count per class
_COLLECTION = re.compile(r"labels-(?P<name>holdout-r\d+)[a-z]?\.toml")


@dataclass(frozen=True, slots=True)
class LabelledLine:
    """One example: the line a label points at, the class it teaches, and where it comes from."""

    collection: str
    label_file: str
    case: str
    family: str  # a family id, or NONE
    text: str


def collection_of(label_file: str) -> str:
    """`labels-holdout-r3a.toml` → holdout-r3; the original labels files → train."""
    found = _COLLECTION.fullmatch(label_file)
    return found.group("name") if found else "train"


def learnable_families(families_file: Path) -> dict[str, str]:
    """Rule id → family id from tests/corpus/families.toml, and which families have a fatal-line rule to name."""
    families = tomllib.loads(families_file.read_text(encoding="utf-8"))["family"]
    return {rule_id: family["id"] for family in families for rule_id in family.get("rules", [])}


def labelled_lines(corpus: Path, families_file: Path) -> list[LabelledLine]:
    """Every example of a corpus split, in labels-file order then case order."""
    families = learnable_families(families_file)
    with_rule = {family for rule_id, family in families.items() if rule_id == f"fatal-line.{family}"}
    examples = []
    for labels_file in sorted(corpus.glob("labels*.toml")):
        for entry in tomllib.loads(labels_file.read_text(encoding="utf-8")).get("log", []):
            cause = entry.get("family") or entry["cause"]
            family = cause if cause == UNEXPLAINED or "cause" not in entry else families.get(cause, cause)
            evidence = entry.get("evidence")
            if "file" not in entry or not evidence or (family != UNEXPLAINED and family not in with_rule):
                continue
            lines = (corpus / entry["file"]).read_text(encoding="utf-8", errors="replace").split("\n")
            text = evidence_line(lines, evidence)
            if text is None:
                continue
            examples.append(
                LabelledLine(
                    collection=collection_of(labels_file.name),
                    label_file=labels_file.name,
                    case=entry["file"],
                    family=NONE if family == UNEXPLAINED else family,
                    text=text,
                )
            )
    return examples


def evidence_line(lines: Sequence[str], evidence: str) -> str | None:
    """The first line of a log (split as the accuracy script numbers lines) that holds a label's evidence."""
    return next((line for line in lines if evidence in line), None)


def learn(examples: Sequence[LabelledLine], *, alpha: float = ALPHA, header: str = "") -> dict[str, object]:
    """The model's data (engine/learned.py `model_from_json` reads it): per class its lines and feature total, per
    feature its count in each class; classes are "none" then the families in sorted order."""
    classes = [NONE, *sorted({example.family for example in examples} - {NONE})]
    index = {name: number for number, name in enumerate(classes)}
    lines = Counter(example.family for example in examples)
    totals: Counter[str] = Counter()
    counts: dict[str, Counter[int]] = {}
    for example in examples:
        features = line_features(example.text)
        totals[example.family] += len(features)
        for feature in features:
            counts.setdefault(feature, Counter())[index[example.family]] += 1
    return {
        "header": header,
        "alpha": alpha,
        "classes": classes,
        "class_lines": [lines[name] for name in classes],
        "class_features": [totals[name] for name in classes],
        "features": {
            feature: " ".join(f"{index}:{count}" for index, count in sorted(counts[feature].items()))
            for feature in sorted(counts)
        },
    }


def model_text(data: dict[str, object]) -> str:
    """The model file's text: one feature a line, so that a change reads in a diff."""
    header = {key: value for key, value in data.items() if key != "features"}
    features = data["features"]
    assert isinstance(features, dict)
    lines = [json.dumps(header, sort_keys=True)[:-1] + ', "features": {']
    rows = [f"  {json.dumps(feature)}: {json.dumps(per_class)}" for feature, per_class in features.items()]
    lines.append(",\n".join(rows))
    lines.append("}}")
    return "\n".join(lines) + "\n"


def build_model_text(
    corpus: Path, families_file: Path, *, exclude: Iterable[str] = (), corpus_name: str | None = None
) -> str:
    """What the command writes: the model learned from every collection of `corpus` but `exclude`, with a header
    naming how and from what it was made (`corpus_name`: how the header names the corpus, by default as given)."""
    name = corpus.as_posix() if corpus_name is None else corpus_name
    left_out = sorted(set(exclude))
    examples = [
        example for example in labelled_lines(corpus, families_file) if example.collection not in left_out
    ]
    collections = sorted({example.collection for example in examples})
    command = f"python -m forensics.usecases.learn_family_model --corpus {name}"
    command += "".join(f" --exclude {name}" for name in left_out)
    header = (
        f"made by `{command}` from {len(examples)} labelled lines of {name} "
        f"(collections: {', '.join(collections)}): each family's evidence line teaches that family, each "
        f"unexplained case's labelled line teaches {NONE!r}; a multinomial naive Bayes over engine/learned.py's "
        "line_features; do not edit, regenerate"
    )
    return model_text(learn(examples, header=header))


def main(argv: Sequence[str]) -> int:
    """`--corpus DIR` (tests/corpus/train), `--families FILE` (DIR/../families.toml), `--exclude COLLECTION` (any
    number), `--out FILE` (rules/learned/family-model.json; `-` prints it), `--gate-out FILE` (the cause gate,
    rules/learned/cause-gate.txt), `--check` (exit 1 if either file differs from what the corpus makes)."""
    # imported here: the gate's learning reads this module's label helpers
    from forensics.usecases.learn_cause_gate import build_gate_text

    arguments = list(argv)

    def option(name: str, default: str) -> str:
        return arguments[arguments.index(name) + 1] if name in arguments else default

    corpus = Path(option("--corpus", "tests/corpus/train"))
    families_file = Path(option("--families", str(corpus.parent / "families.toml")))
    exclude = [arguments[number + 1] for number, value in enumerate(arguments) if value == "--exclude"]
    made = {
        option("--out", "rules/learned/family-model.json"): build_model_text(
            corpus, families_file, exclude=exclude
        ),
        option("--gate-out", "rules/learned/cause-gate.txt"): build_gate_text(corpus, exclude=exclude),
    }
    if "--check" in arguments:
        stale = [
            out
            for out, text in made.items()
            if not Path(out).is_file() or Path(out).read_text("utf-8") != text
        ]
        for out in stale:
            print(f"{out} is not what the corpus makes today: regenerate it", file=sys.stderr)
        return 1 if stale else 0
    for out, text in made.items():
        if out == "-":
            sys.stdout.write(text)
        else:
            Path(out).parent.mkdir(parents=True, exist_ok=True)
            Path(out).write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
