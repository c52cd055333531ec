"""The three tests every rules catalogue module runs over its own data (tests/test_rules_catalogue_*.py).

A catalogue module holds three lists quoted from upstream sources and real logs, and binds the tests with
`test_reads, test_near_misses, test_real_logs = catalogue_tests(CATALOGUE, NEAR_MISSES, REAL_LOGS)`:

- CATALOGUE: (rule that must answer, a rendering or its lines, where it is quoted from); the rule answers on line 1.
- NEAR_MISSES: (rule, lines) or `pytest.param(rule, lines, id=…)`; lines that look alike but are not that cause.
- REAL_LOGS: (log under tests/corpus/train, rule that wins, its line or None when only the rule is checked).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from forensics.rules.model import RuleSet
from tests.support.rulebook import root_cause_of, write_log

TRAIN = Path(__file__).resolve().parents[1] / "corpus" / "train"

Catalogue = Sequence[tuple[str, str | Sequence[str], str]]
RealLogs = Sequence[tuple[str, str, int | None]]


def catalogue_tests(
    catalogue: Catalogue, near_misses: Sequence[Any], real_logs: RealLogs
) -> tuple[Callable[..., None], Callable[..., None], Callable[..., None]]:
    """The parametrized tests over one module's lists, to be bound to `test_*` names there."""

    @pytest.mark.parametrize(
        ("rule_id", "rendering", "source"),
        catalogue,
        ids=[f"{i}-{rule}" for i, (rule, _, _) in enumerate(catalogue)],
    )
    def reads_each_rendering(
        rule_id: str, rendering: str | Sequence[str], source: str, rule_pack: RuleSet, tmp_path: Path
    ) -> None:
        lines = [rendering] if isinstance(rendering, str) else list(rendering)
        assert root_cause_of(write_log(tmp_path, lines), rule_pack) == (rule_id, 1), source

    @pytest.mark.parametrize(("rule_id", "lines"), near_misses)
    def look_alikes_are_not_that_cause(
        rule_id: str, lines: list[str], rule_pack: RuleSet, tmp_path: Path
    ) -> None:
        assert root_cause_of(write_log(tmp_path, lines), rule_pack)[0] != rule_id

    @pytest.mark.parametrize(("name", "rule_id", "line"), real_logs, ids=[name for name, _, _ in real_logs])
    def rule_and_line_win_in_real_logs(name: str, rule_id: str, line: int | None, rule_pack: RuleSet) -> None:
        found_rule, found_line = root_cause_of(TRAIN / name, rule_pack)
        assert found_rule == rule_id
        if line is not None:
            assert found_line == line

    return reads_each_rendering, look_alikes_are_not_that_cause, rule_and_line_win_in_real_logs
