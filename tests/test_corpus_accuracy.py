"""Accuracy of the rule pack on the labelled corpus of real logs, per split (see tests/corpus_accuracy.py).

The figures are printed (run `python -m tests.corpus_accuracy`) and kept above floors so a rule change that
loses ground fails CI. Holdout cases are only scored: their names never appear in a failure message.
"""

from __future__ import annotations

import pytest

from forensics.rules.model import RuleSet
from tests.corpus_accuracy import SPLITS, evaluate, family_ids, figures, labels

# Floors a little under today's figures. Train holds the nine retired holdouts; after the thirteenth rules round (two rule
# authors, the fatal-line tier widened across stacks and tried on the excerpt's failure lines, the likely-cause picker)
# it reads 99.3 % top-1, 0 false causes of 419, likely cause 100 % of 352 (97.3 %, 0 of 419 and 97.0 % of 368 when the
# ninth holdout had just been retired into it). gpu 100 %. The holdout is the tenth blind collection (185 cases in three
# sets, audited blind against their sources, scored once after every rule of the round was merged, never studied):
# 76.3 % top-1, 1 false cause of 54, likely cause 85.1 % of 74.
# The tenth holdout has since been retired into train (97.2 % top-1, 1 false cause of 473, likely 97.4 % of 426); after
# the fourteenth round (two rule authors, the likely-cause picker, a learned family model) train reads 99.1 %, 0 false
# causes of 474, likely 99.8 % of 407. The holdout is now the eleventh blind collection (178 cases in three sets,
# audited blind, scored once after every branch of the round was merged, never studied): 74.2 % top-1, 3 false causes
# of 46 (all from ordinary rules), likely cause 78.8 % of 66. It has since been retired into train (97.0 %, 3 false
# causes of 520); after the fifteenth round (two rule authors, the picker, a cause gate before the learned model, the
# parent's serial part) train reads 99.0 %, 0 false causes of 519, likely 98.5 % of 452. The holdout is now the twelfth
# blind collection (195 cases in three sets, audited blind, scored once after every branch of the round was merged,
# never studied): 80.7 % top-1, 0 false causes of 45, likely cause 81.0 % of 58. It has since been retired into train
# (97.4 %, 0 false causes of 564); after the sixteenth round (two rule authors, the picker) train reads 99.1 %, 0 of
# 564, likely 98.4 % of 498. The holdout is now the thirteenth blind collection (167 cases in three sets, audited
# blind, scored once after every branch of the round was merged, never studied): 77.0 % top-1, 2 false causes of 41
# (both from ordinary rules), likely cause 73.6 % of 53. The floors hold that score; they are not a target.
# A rule change that loses ground, or names a cause where there is none, fails CI.
MIN_TOP1 = {
    "train": 0.99,
    "holdout": 0.76,
    "gpu": 0.95,
}
MAX_FALSE_CAUSE_RATE = {
    "train": 0.0,
    "holdout": 0.05,
    "gpu": 0.0,
}  # the thirteenth holdout: 2 of 41
MIN_LIKELY = {"holdout": 0.73, "train": 0.98}  # the likely cause on failures no rule explains


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
