"""A rule whose literal is common in healthy logs makes every worker slower: the guard names it.

Every line holding one of the pack's literals goes to Python (~20 µs a line, against ~2 ms a MiB for the search
that finds it). On the benchmark's healthy serving traffic (benchmarks/healthy_mix.py) the shipped pack finds
~50 such lines a MiB, nearly all vLLM's `FlashInfer is not available` warning; one literal that every line of
some log holds (a model name such as `llama`, a logger's name) puts thousands there, as one rule once did.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

from forensics.engine.scanner import CompiledRules
from forensics.rules.loader import load_rules
from tests.outside_reads import REPOSITORY_ROOT

sys.path.insert(0, str(REPOSITORY_ROOT / "benchmarks"))

from healthy_mix import healthy_bytes

HEALTHY_MIB = 2
CANDIDATE_LINES_A_MIB = 75  # the shipped pack: 49.5 (December 2026); a common literal puts hundreds more


def healthy_candidates(compiled: CompiledRules, data: bytes) -> tuple[float, Counter[str]]:
    """Lines a MiB of `data` that hold a pack literal, and for each rule the lines a MiB holding its literals."""
    pattern = compiled.prefilter.pattern
    assert pattern is not None
    lines = 0
    by_rule: Counter[str] = Counter()
    position = 0
    while (match := pattern.search(data, position)) is not None:
        start = data.rfind(b"\n", 0, match.start()) + 1
        end = data.find(b"\n", match.start())
        end = len(data) if end < 0 else end
        line = data[start:end].decode("utf-8", "replace")
        lines += 1
        rules = {compiled.rules[compiled.rule_of(number)].id for number in compiled.selector.select(line)}
        by_rule.update(rules)
        position = end + 1
    mib = len(data) / (1024 * 1024)
    return lines / mib, Counter({rule: count / mib for rule, count in by_rule.items()})


def _guard(compiled: CompiledRules) -> str | None:
    """None when the pack's candidate lines over the healthy mix stay under the bound, else which rules hold them."""
    per_mib, by_rule = healthy_candidates(compiled, healthy_bytes(HEALTHY_MIB))
    if per_mib <= CANDIDATE_LINES_A_MIB:
        return None
    worst = ", ".join(f"{rule} ({lines:.0f} a MiB)" for rule, lines in by_rule.most_common(5))
    return (
        f"{per_mib:.0f} candidate lines a MiB of healthy logs (bound {CANDIDATE_LINES_A_MIB}); the rules whose "
        f"literals they hold, most first: {worst}. Anchor the rule on a rarer token (the error text, not a name "
        f"every log line carries)"
    )


def test_the_shipped_pack_sends_few_healthy_lines_to_python() -> None:
    problem = _guard(CompiledRules(load_rules()))
    assert problem is None, problem


def test_a_rule_with_a_common_literal_is_named(tmp_path: Path) -> None:
    (tmp_path / "common.toml").write_text(
        """[[rule]]
id = "test.common-literal"
title = "A rule anchored on vLLM's throughput metrics line"
category = "infrastructure"
kind = "cause"
patterns = ['''Avg prompt throughput: (?P<rate>\\S+) tokens/s''']
summary = "throughput {rate}"
advice = "none"

[[rule.examples]]
text = "INFO 11-28 08:14:19 Avg prompt throughput: 12.5 tokens/s"
fields = { rate = "12.5" }
""",
        encoding="utf-8",
    )
    problem = _guard(CompiledRules(load_rules([tmp_path], cache=False)))
    assert problem is not None, "the metrics line is in every few lines of the healthy mix"
    assert problem.split("most first: ")[1].startswith("test.common-literal (")


def test_the_healthy_mix_is_the_same_bytes_each_time() -> None:
    assert healthy_bytes(HEALTHY_MIB) == healthy_bytes(HEALTHY_MIB)  # the bound is a figure of fixed data
