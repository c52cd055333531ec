"""Top-1 root-cause accuracy and false-cause rate of the rule pack on the labelled corpus of real logs.

The figures are printed (run `python -m tests.corpus_accuracy` for the misses) and kept above floors so a
rule change that loses ground fails CI. The corpus is for measuring, not for tuning: a held-out set judges.
"""

from __future__ import annotations

from forensics.rules.model import RuleSet
from tests.corpus_accuracy import evaluate, figures

MIN_TOP1_ACCURACY = 0.88
MAX_FALSE_CAUSE_RATE = 0.125


def test_corpus_accuracy(rule_pack: RuleSet, capsys) -> None:  # type: ignore[no-untyped-def]
    outcomes = evaluate(rule_pack)
    top1, false_cause, causes, unexplained = figures(outcomes)
    assert causes >= 40 and unexplained >= 8
    with capsys.disabled():
        print(
            f"\ncorpus: top-1 accuracy {top1:.1%} on {causes} logs, false-cause rate {false_cause:.1%} on {unexplained}"
        )
    assert top1 >= MIN_TOP1_ACCURACY, [o for o in outcomes if not o.correct]
    assert false_cause <= MAX_FALSE_CAUSE_RATE
