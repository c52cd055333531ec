"""The README is a first screen and the manual lives in docs/: short paths for users and contributors, the
quick start as CI runs it, the example workflow as it is, and every relative link and anchor resolving."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
DOCUMENTS = sorted([ROOT / "README.md", ROOT / "CONTRIBUTING.md", *(ROOT / "docs").glob("*.md")])
LINK = re.compile(r"(?<!!)\[(?:[^\]`]|`[^`]*`)*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", flags=re.S | re.M)


def _first_screen() -> str:
    """What a reader sees before the first scroll: everything above the quick start for contributors."""
    return README.split("## Quick start", 1)[0]


def test_the_readme_stays_short() -> None:
    assert len(README.encode("utf-8")) <= 15 * 1024


def test_the_first_screen_says_what_it_does_how_to_install_one_demo_and_one_real_command() -> None:
    screen = _first_screen()
    assert "Tells a CI team *why* each test in a failed run really failed." in screen
    assert "pip install ." in screen and "pipx install ." in screen
    assert re.search(r"pipx install git\+https://github\.com/OWNER/ci-forensics@v\d+\.\d+\.\d+", screen)
    assert "ci-forensics analyze --demo" in screen
    assert re.search(r"ci-forensics fetch --run \d+ --repo \S+", screen)
    assert max(len(line) for line in screen.splitlines()) <= 120  # no 110-column box on the first screen


def test_the_quick_start_is_the_two_make_targets_ci_runs() -> None:
    quick_start = README.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    (block,) = re.findall(r"```\n(.*?)```", quick_start, flags=re.S)
    commands = [line.split("#", 1)[0].strip() for line in block.strip().splitlines()]
    assert commands == ["make demo", "make test"]
    assert "make test" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def test_make_demo_installs_only_the_pinned_runtime_and_make_test_the_dev_tools() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    targets = dict(re.findall(r"^([\w$()-]+):(.*)$", makefile, flags=re.M))
    assert targets["demo"].split() == ["$(RUNTIME_STAMP)"]
    runtime = makefile.split("$(RUNTIME_STAMP): ", 1)[1].split("\n\n", 1)[0]
    assert "--require-hashes -r requirements/action.lock" in runtime
    assert "[dev]" not in runtime and "playwright" not in runtime.lower()
    assert "'.[dev]'" in makefile.split("$(DEV_STAMP): ", 1)[1].split("\n\n", 1)[0]
    assert targets["test"].split() == ["lint"] and targets["lint"].split() == ["$(DEV_STAMP)"]


def test_the_action_docs_show_the_example_workflow_exactly() -> None:
    action = (ROOT / "docs" / "action.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```yaml\n(.*?)```", action, flags=re.S)
    example = (ROOT / "examples" / "nightly-forensics.yml").read_text(encoding="utf-8")
    assert example in blocks  # actionlint checks the file (tests/test_action.py); readers copy the docs


def _anchors(text: str) -> set[str]:
    """The anchors GitHub gives a Markdown file's headings (code blocks hold no headings)."""
    anchors: set[str] = set()
    for heading in re.findall(r"^#{1,6} (.+)$", FENCE.sub("", text), flags=re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        candidate, number = slug, 0
        while candidate in anchors:
            number += 1
            candidate = f"{slug}-{number}"
        anchors.add(candidate)
    return anchors


def _links(path: Path) -> list[str]:
    return LINK.findall(FENCE.sub("", path.read_text(encoding="utf-8")))


def test_the_documents_are_found() -> None:
    names = {path.relative_to(ROOT).as_posix() for path in DOCUMENTS}
    assert {"README.md", "CONTRIBUTING.md", "docs/action.md", "docs/cli.md", "docs/rules.md"} <= names


@pytest.mark.parametrize("document", DOCUMENTS, ids=[path.relative_to(ROOT).as_posix() for path in DOCUMENTS])
def test_every_relative_link_and_anchor_resolves(document: Path) -> None:
    broken = []
    for target in _links(document):
        if re.match(r"[a-z]+:", target):  # https:, mailto: — not this repository's
            continue
        file_part, _, anchor = target.partition("#")
        linked = (document.parent / file_part).resolve() if file_part else document
        if not linked.exists() or not linked.is_relative_to(ROOT):
            broken.append(f"{target}: no such file")
        elif anchor and linked.suffix == ".md" and anchor not in _anchors(linked.read_text(encoding="utf-8")):
            broken.append(f"{target}: no heading with anchor #{anchor}")
    assert broken == []


def test_the_link_check_catches_a_missing_file_and_a_missing_anchor(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# Title\n\n## Exit codes\n\n[x](b.md) [y](#exit-codes) [z](#nope)\n")
    assert _links(tmp_path / "a.md") == ["b.md", "#exit-codes", "#nope"]
    assert _anchors((tmp_path / "a.md").read_text()) == {"title", "exit-codes"}
    assert _anchors("## `ci-forensics history`\n## A, b: c\n## A, b: c\n```\n# not a heading\n```\n") == {
        "ci-forensics-history",
        "a-b-c",
        "a-b-c-1",
    }
