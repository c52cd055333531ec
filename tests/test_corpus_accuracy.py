"""Accuracy of the rule pack on the labelled corpus of real logs, per split (see tests/corpus_accuracy.py).

The figures are printed (run `python -m tests.corpus_accuracy`) and kept above floors so a rule change that
loses ground fails CI. Holdout cases are only scored: their names never appear in a failure message.
"""

from __future__ import annotations

import pytest

from forensics.rules.model import RuleSet
from tests.corpus_accuracy import SPLITS, evaluate, family_ids, figures, labels

# Floors a little under today's figures. Train holds the eight retired holdouts. The eighth blind collection (189 cases in
# three sets, scored once with the pack of 198 rules: 80.4 % top-1, 2 false causes of 46, likely cause 80.6 % of 62) was
# just retired to train to be studied; with it, train reads 96.9 % top-1, 2 false causes of 362 (the eighth set's two,
# now studiable) and likely cause 95.8 % of 311, until the twelfth rules round studies its misses. gpu 100 %. The
# holdout folder waits for the ninth blind collection; its false-cause ceiling is back at 0. A rule change that loses
# ground, or names a cause where there is none, fails CI.
MIN_TOP1 = {"train": 0.96, "holdout": 0.80, "gpu": 0.95}
MAX_FALSE_CAUSE_RATE = {"train": 0.006, "holdout": 0.0, "gpu": 0.0}
MIN_LIKELY = {"holdout": 0.80, "train": 0.95}  # the likely cause on failures no rule explains


@pytest.mark.parametrize("split", SPLITS)
def test_corpus_accuracy(rule_pack: RuleSet, split: str, capsys) -> None:  # type: ignore[no-untyped-def]
    outcomes = evaluate(rule_pack, split)
    if split == "train":
        assert len(outcomes) >= 48
    if not outcomes:
        pytest.skip(f"tests/corpus/{split} holds no labelled case yet")
    result = figures(outcomes)
    with capsys.disabled():
        print(
            f"\n{split}: top-1 {result.top1:.1%} on {result.causes} cases, "
            f"false causes {result.false_cause:.1%} of {result.unexplained}, "
            f"likely cause {result.likely:.1%} of {result.likely_cases}"
        )
    misses = [o.label.name for o in outcomes if not o.correct] if split != "holdout" else "(not shown)"
    assert result.top1 >= MIN_TOP1[split], misses
    assert result.false_cause <= MAX_FALSE_CAUSE_RATE[split], misses
    assert result.likely >= MIN_LIKELY.get(split, 0.0)


@pytest.mark.parametrize("split", SPLITS)
def test_labels_name_known_families_and_lines(split: str) -> None:
    known = family_ids()
    for label in labels(split):
        assert label.path.exists(), label.name
        assert label.family in known or "." in label.family, label.name  # a rule id counts as its own family
        if label.test is None and label.family != "unexplained":
            text = label.path.read_text(encoding="utf-8", errors="replace")
            assert label.evidence and label.evidence in text, label.name
