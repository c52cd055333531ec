"""Measure the fatal-line tier (engine/fatal_line.py) on the labelled corpus: aggregate counts only, never a case.

The tier names a cause only on the likely-cause line of a failing test no ordinary rule explains, so its reach is
the product of three things, counted here per folder of a split (train's folders are its collections):

- `gap`: cases labelled with a cause that no ordinary rule explains (the tier's whole field in a real run);
- `on line`: of those, how many have the likely-cause picker on the labelled line (the tier can only help there);
- `named` right / wrong family: of those, what the tier names;
- `missed`: the gap's cases the tier does not name right, split as `bottleneck` below (`picker`: the picker chose
  another line though the tier's words name the labelled one; `words`: the picker is right and the tier silent or
  wrong; `both`).

Then the same with the ordinary rules switched off (`tier alone`: the pack's symptom rules stay, so the picker
still passes over wrapper lines as it does in a real run, but no ordinary cause fires): the tier's recall on every
cause case whose picker line is right, and its false causes on `unexplained` cases. On logs the ordinary rules were
fitted to, the tier-alone recall is the honest measure of how general the tier's words are; its false causes must
stay 0. `bottleneck` splits the tier-alone cause cases it misses: `picker` (the picker chose another line, yet the
tier's words name the right family on the labelled line), `words` (the picker is right, the tier is silent or wrong
there), `both` (another line chosen, and the labelled line's words unknown to the tier too).

Run `python -m tests.tier_coverage` (train and gpu), `--splits train` or `--folders holdout-r7` (train's folders
only: holdout cases are only ever scored by tests/corpus_accuracy.py); `--by-family` adds the `words` misses per
labelled family (counts, never a case), which tells where widening the tier's words would pay.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Iterable

from forensics.engine.fatal_line import fatal_line_rules, match_fatal_line
from forensics.engine.scanner import CompiledRules
from forensics.model import RuleKind, RuleScope
from forensics.rules.model import Rule, RuleSet
from tests.corpus_accuracy import UNEXPLAINED, Label, Outcome, evaluate, labels, load_families

SPLITS = ("train", "gpu")
TIER = "fatal-line."
FAMILY = "words missed in the gap: "  # per labelled family, the `words` misses (`--by-family` prints them)
ALONE_FAMILY = "words missed alone: "


def tier_alone(rules: RuleSet) -> RuleSet:
    """The pack with its ordinary causes switched off: symptom rules (the picker's wrapper test) and the tier."""
    return RuleSet(
        tuple(rule for rule in rules if rule.scope is RuleScope.LIKELY_CAUSE or rule.kind is RuleKind.SYMPTOM)
    )


def _folder(label: Label) -> str:
    return label.name.split("/", 1)[0] if "/" in label.name else label.split


def _picker_on_line(outcome: Outcome) -> bool:
    """The likely-cause line is the labelled one (a tier cause stands on that line, so its evidence says it)."""
    if outcome.got_rule is not None and outcome.got_rule.startswith(TIER):
        if outcome.label.test is not None:
            return outcome.got_text is not None and (outcome.label.evidence or "") in outcome.got_text
        return outcome.got_line == outcome.expected_line
    return outcome.likely_correct


def _labelled_text(outcome: Outcome) -> str:
    """The labelled line's text (for allure attachments, the label's evidence substring)."""
    if outcome.label.test is not None or outcome.expected_line is None:
        return outcome.label.evidence or ""
    lines = outcome.label.path.read_text(encoding="utf-8", errors="replace").split("\n")
    return lines[outcome.expected_line - 1]


def _bottleneck(outcome: Outcome, on_line: bool, tier: tuple[Rule, ...], families: dict[str, str]) -> str:
    """Why the tier missed a cause case: `words` (the picker is on the labelled line), `picker` (it is not, yet the
    tier's words name the labelled line's family) or `both`."""
    if on_line:
        return "words"
    matched = match_fatal_line(_labelled_text(outcome), tier)
    return "picker" if matched is not None and families.get(matched[0].id) == outcome.expected else "both"


def count(full: Iterable[Outcome], alone: Iterable[Outcome], tier: tuple[Rule, ...]) -> Counter[str]:
    """The aggregate counts of one folder: the full pack's gap, then the tier alone."""
    families = load_families()
    counts: Counter[str] = Counter()
    for outcome in full:
        if outcome.expected == UNEXPLAINED or not outcome.label.evidence:
            continue
        if outcome.got_rule is not None and not outcome.got_rule.startswith(TIER):
            continue  # an ordinary rule explains it
        counts["gap"] += 1
        on_line = _picker_on_line(outcome)
        if on_line:
            counts["gap on line"] += 1
            if outcome.got_rule is not None:
                counts[
                    "gap named right" if outcome.got_family == outcome.expected else "gap named wrong"
                ] += 1
        if on_line and outcome.got_family == outcome.expected:
            continue
        counts["gap missed " + _bottleneck(outcome, on_line, tier, families)] += 1
        if on_line:
            counts[f"{FAMILY}{outcome.expected}"] += 1
    for outcome in alone:
        if outcome.expected == UNEXPLAINED:
            counts["unexplained"] += 1
            counts["false causes"] += outcome.got_rule is not None
            continue
        if not outcome.label.evidence:
            continue
        counts["causes"] += 1
        on_line = _picker_on_line(outcome)
        right = on_line and outcome.got_family == outcome.expected
        counts["on line"] += on_line
        if on_line and outcome.got_rule is not None:
            counts["named right" if right else "named wrong"] += 1
        if right:
            continue
        counts["bottleneck " + _bottleneck(outcome, on_line, tier, families)] += 1
        if on_line:
            counts[f"{ALONE_FAMILY}{outcome.expected}"] += 1
    return counts


def _ratio(part: int, whole: int) -> str:
    return f"{part}/{whole} ({part / whole:.0%})" if whole else "0/0"


def render(name: str, counts: Counter[str]) -> str:
    """One folder's line."""
    return (
        f"{name:<16} gap {counts['gap']:>3}: on line {counts['gap on line']:>3}, named "
        f"{counts['gap named right']:>2} right {counts['gap named wrong']:>2} wrong, missed picker "
        f"{counts['gap missed picker']} words {counts['gap missed words']} both {counts['gap missed both']} | tier alone: "
        f"recall {_ratio(counts['named right'], counts['on line']):>14} of causes on line "
        f"({counts['on line']}/{counts['causes']}), wrong family {counts['named wrong']}, "
        f"false causes {counts['false causes']} of {counts['unexplained']} | missed: picker "
        f"{counts['bottleneck picker']}, words {counts['bottleneck words']}, both {counts['bottleneck both']}"
    )


def main(argv: list[str]) -> int:
    """Print the aggregate counts per folder and per split."""
    from forensics.rules.loader import load_rules

    chosen = argv[argv.index("--splits") + 1].split(",") if "--splits" in argv else list(SPLITS)
    folders = set(argv[argv.index("--folders") + 1].split(",")) if "--folders" in argv else None
    if "holdout" in chosen:
        print("holdout cases are only scored by tests/corpus_accuracy.py", file=sys.stderr)
        return 2
    rules = load_rules()
    alone_rules = tier_alone(rules)
    tier = fatal_line_rules(CompiledRules(rules))
    for split in (split for split in SPLITS if split in chosen):
        if folders is not None and split != "train":
            continue
        total: Counter[str] = Counter()
        wanted = [label for label in labels(split) if folders is None or _folder(label) in folders]
        by_folder: dict[str, list[Label]] = {}
        for label in wanted:
            by_folder.setdefault(_folder(label), []).append(label)
        for folder, chosen_labels in sorted(by_folder.items()):
            full = evaluate(rules, split, chosen_labels)
            alone = evaluate(alone_rules, split, chosen_labels)
            counts = count(full, alone, tier)
            total += counts
            print(render(f"{split}/{folder}", counts))
        print(render(f"{split} (all)", total))
        if "--by-family" in argv:
            for key, value in sorted(total.items()):
                if key.startswith((FAMILY, ALONE_FAMILY)):
                    print(f"  {key}{'':<4}{value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
