"""The learned family model (engine/learned.py): the third tier, tried where no rule and no fatal-line rule has words,
naming the most likely family of the first line the cause gate passes (engine/cause_gate.py, tests/test_cause_gate.py).

Its weights are data learned from the labelled corpus (rules/learned/family-model.json, made by
forensics/usecases/learn_family_model.py); its honest measure is tests/learned_family_cv.py (docs/accuracy.md).
"""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import pytest
from rich.console import Console

from forensics.annotate.compose import ComposeOptions, compose_comment
from forensics.annotate.targets import LinkedTarget
from forensics.engine.cause_gate import shipped_gate
from forensics.engine.learned import MODEL_FILE, NONE, line_features, model_from_json, shipped_model
from forensics.model import LEARNED_WORDS, FoundBy
from forensics.render.github import render_github
from forensics.render.json_report import render_json
from forensics.render.markdown import render_markdown
from forensics.render.text import render_text
from forensics.report.build import analyze
from forensics.report.saved import report_from_dict
from forensics.rules.loader import shipped_rules_path
from forensics.rules.model import RuleSet
from forensics.sinks.base import Target
from forensics.usecases.learn_family_model import (
    build_model_text,
    collection_of,
    labelled_lines,
    learn,
    model_text,
)
from tests.support.rulebook import causes_found, unexplained_train_report, without_ordinary_explainers

TRAIN = Path(__file__).resolve().parent / "corpus" / "train"
FAMILIES = TRAIN.parent / "families.toml"
# A real log (the tenth holdout, studied after its one score) whose last line is requests' `ConnectionError: …
# Max retries exceeded … (Caused by NewConnectionError(…` with no "Connection refused" the fatal-line rule knows:
# only the learned model names it.
CONNECTION = TRAIN / "holdout-r10/connection-refused/s-sglang-sm75-warmup-new-connection-error.log"
FOUND = FoundBy.LEARNED.value


@pytest.fixture(scope="module")
def examples() -> list:  # type: ignore[type-arg]
    return labelled_lines(TRAIN, FAMILIES)


def test_the_shipped_model_is_what_train_makes_today() -> None:
    made = build_model_text(TRAIN, FAMILIES, corpus_name="tests/corpus/train")
    shipped = (shipped_rules_path() / MODEL_FILE).read_text(encoding="utf-8")
    assert made == shipped, "regenerate it: python -m forensics.usecases.learn_family_model"
    data = json.loads(shipped)
    assert "threshold" not in data and "python -m forensics.usecases.learn_family_model" in data["header"]


def test_learning_does_not_depend_on_the_order_of_its_examples(examples: list) -> None:  # type: ignore[type-arg]
    assert model_text(learn(examples)) == model_text(learn(list(reversed(examples))))


def test_each_labels_file_belongs_to_its_collection() -> None:
    assert collection_of("labels-holdout-r10b.toml") == "holdout-r10"
    assert collection_of("labels-holdout-r1.toml") == "holdout-r1"
    assert collection_of("labels-dev-engines.toml") == collection_of("labels.toml") == "train"


def test_a_line_is_judged_by_its_normalised_masked_words() -> None:
    features = line_features(
        "[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB"
    )
    assert {"outofmemoryerror", "out", "memory", "cuda out", "<num>"} <= set(features)
    assert "#-9" in line_features("failed (exitcode: -9) local_rank: 0") and "#1" in line_features(
        "exitcode: 1"
    )
    assert not any(feature.startswith("#20") for feature in line_features("at 2024-05-08 08:47:31,877"))


@pytest.mark.parametrize(
    ("case", "family"),
    [
        ("dev-engines/serving-gpu-memory/tgi-prefill-runtimeerror-2301.log", "serving-gpu-memory"),
        ("dev-lower/filesystem/eacces-windows-hub-refs-deepke-537.log", "filesystem"),
        ("dev-lower/runner/shutdown-signal-single-hash-runner-2468.log", "runner-infrastructure"),
        ("dev/nccl/nccl-system-error-old-runtimeerror-changestar-5.log", "nccl-error"),
        (
            "holdout-r10/connection-refused/s-sglang-sm75-warmup-new-connection-error.log",
            "connection-refused",
        ),
    ],
)
def test_the_model_names_the_family_of_real_labelled_lines(
    examples: list,  # type: ignore[type-arg]
    case: str,
    family: str,
) -> None:
    model, gate = shipped_model(shipped_rules_path()), shipped_gate(shipped_rules_path())
    assert model is not None and gate is not None
    (example,) = [example for example in examples if example.case == case]
    features = line_features(example.text)
    judgement = model.family_of(features)
    assert gate.passes(features) and judgement.family == family and judgement.words


def test_no_labelled_line_of_an_unexplained_train_case_gets_a_family(examples: list) -> None:  # type: ignore[type-arg]
    gate = shipped_gate(shipped_rules_path())
    assert gate is not None
    unexplained = [example.text for example in examples if example.family == NONE]
    assert len(unexplained) >= 350
    assert [text for text in unexplained if gate.passes(line_features(text))] == []
    # the torch launcher's wrapper for an ordinary failure (exit code 1) is "none", though a kill's reads alike
    wrapper = "[ERROR] failed (exitcode: 1) local_rank: 2 (pid: 5939) of binary: /usr/bin/python3"
    assert not gate.passes(line_features(wrapper))


def test_no_unexplained_train_case_gets_a_learned_cause(rule_pack: RuleSet) -> None:
    report = unexplained_train_report(rule_pack)
    assert len(report.verdicts) >= 450
    assert causes_found(report, FoundBy.LEARNED) == []


def test_a_model_must_put_none_first() -> None:
    with pytest.raises(ValueError, match="first class must be 'none'"):
        model_from_json(
            {
                "classes": ["gpu-oom"],
                "class_lines": [1],
                "class_features": [1],
                "features": {},
                "alpha": 1,
            }
        )


def test_a_learned_cause_names_the_family_rule_and_every_format_shows_the_words(rule_pack: RuleSet) -> None:
    # the pack less the ordinary rule a later round widened over this log (rules-v: urllib3's loopback refusal)
    report = analyze([str(CONNECTION)], rules=without_ordinary_explainers(CONNECTION, rule_pack))
    (verdict,) = report.verdicts
    cause = verdict.root_cause
    assert cause is not None and cause.found_by is FoundBy.LEARNED
    assert cause.rule_id == "fatal-line.connection-refused" and cause.evidence.line == 20
    assert verdict.likely_cause is None and verdict.fingerprint is None
    words = dict(cause.fields)[LEARNED_WORDS]
    assert isinstance(words, str) and "host" in words.split(", ")
    document = json.loads(render_json(report))
    (test,) = document["tests"]
    assert test["root_cause"]["found_by"] == FOUND and test["root_cause"]["fields"][LEARNED_WORDS] == words
    assert report_from_dict(document).verdicts[0].root_cause == cause  # found_by read back
    place = f"{CONNECTION.name} line 20; {FOUND} (words: {words})"
    escaped = place.replace("<", "\\<").replace(
        ">", "\\>"
    )  # Markdown's prose escapes the masked words' brackets
    assert f"**Evidence** ({escaped}, test `{CONNECTION.name}`)" in render_markdown(report)
    assert f"Evidence ({place}): " in render_github(report)
    console = Console(file=StringIO(), width=400)
    console.print(render_text(report))
    assert f"Evidence ({place}):" in console.file.getvalue()  # type: ignore[attr-defined]
    linked = LinkedTarget(Target("github", "owner/repo#1"), (verdict.test.uuid,))
    comment = compose_comment(report, linked, options=ComposeOptions()).text
    shown = words.replace("<", "\\<").replace(">", "\\>")
    assert f"**Evidence ({FOUND}; words: {shown})**" in comment and f"`{LEARNED_WORDS} = {words}`" in comment
