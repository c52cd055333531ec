"""Build small rule sets from TOML text for tests that must not depend on the shipped pack."""

from __future__ import annotations

from pathlib import Path

from forensics.rules.loader import load_rules
from forensics.rules.model import RuleSet


def rule_toml(
    rule_id: str,
    pattern: str,
    *,
    kind: str = "cause",
    priority: int = 50,
    extra: str = "",
    example: str | None = None,
) -> str:
    """One `[[rule]]` table with sensible defaults."""
    return f"""
[[rule]]
id = "{rule_id}"
title = "{rule_id} title"
category = "infrastructure"
kind = "{kind}"
priority = {priority}
patterns = ['''{pattern}''']
summary = "{rule_id} happened"
advice = "do something about {rule_id}"
{extra}
[[rule.examples]]
text = '''{example if example is not None else pattern}'''
"""


def rules_from(tmp_path: Path, *tables: str) -> RuleSet:
    """Write the tables to one file and load only it."""
    path = tmp_path / "rules.toml"
    path.write_text("\n".join(tables))
    return load_rules([path], include_shipped=False)
