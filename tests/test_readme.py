"""The README shows what the repository holds: the example workflow as it is, the quick start as CI runs it."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_readme_shows_the_example_workflow_exactly() -> None:
    blocks = re.findall(r"```yaml\n(.*?)```", README, flags=re.S)
    example = (ROOT / "examples" / "nightly-forensics.yml").read_text(encoding="utf-8")
    assert example in blocks  # actionlint checks the file (tests/test_action.py); readers copy the README


def test_the_quick_start_is_the_two_make_targets_ci_runs() -> None:
    quick_start = README.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    (block,) = re.findall(r"```\n(.*?)```", quick_start, flags=re.S)
    commands = [line.split("#", 1)[0].strip() for line in block.strip().splitlines()]
    assert commands == ["make demo", "make test"]
    assert "make test" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")
