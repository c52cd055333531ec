"""Every shipped rule proves itself on its own examples: one test id per rule, so CI fails by name."""

from __future__ import annotations

import pytest

from forensics.model import RuleKind
from forensics.rules.loader import load_rules
from forensics.usecases.selftest import check_rule

PACK = load_rules(cache=False)  # validated in full, never from the user cache (read at collection)


@pytest.mark.parametrize("rule", PACK.rules, ids=[rule.id for rule in PACK.rules])
def test_rule_examples(rule) -> None:  # type: ignore[no-untyped-def]
    check = check_rule(rule)
    failures = [f"{r.kind} {r.number}: {r.detail}" for r in check.results if not r.passed]
    assert not failures, f"{rule.id} ({rule.path}): " + "; ".join(failures)


def test_the_pack_holds_the_seed_cause_and_the_common_wrappers() -> None:
    ids = {rule.id for rule in PACK}
    assert "vllm.startup-free-memory" in ids
    symptoms = {rule.id for rule in PACK if rule.kind is RuleKind.SYMPTOM}
    assert {
        "vllm.engine-core-init-failed",
        "vllm.workerproc-init-failed",
        "vllm.engine-dead",
        "harness.health-check-timeout",
        "distributed.torchrun-child-failed",
    } <= symptoms


def test_rule_files_live_in_their_folder_and_are_named_after_the_rule() -> None:
    for rule in PACK:
        assert rule.path.endswith(".toml")
        assert rule.id.split(".", 1)[1] in rule.path.rsplit("/", 1)[1], (rule.id, rule.path)
