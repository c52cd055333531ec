"""Renderers are pure functions of a report, compared with exact expected output."""

from __future__ import annotations

import io
import json
from pathlib import Path

from rich.console import Console

from forensics.render import RENDERERS
from forensics.render.markdown import fence_for, inline_code, render_markdown
from forensics.render.text import render_text
from forensics.report.build import analyze
from tests.support.rulebook import rules_from

RULE = """
[[rule]]
id = "demo.free-memory"
title = "GPU already in use"
category = "infrastructure"
kind = "cause"
patterns = ['''Free memory on device (?P<device>\\S+) \\((?P<free>[\\d.]+)/(?P<total>[\\d.]+) GiB\\)''']
summary = "only {free} of {total} GiB free on {device}"
advice = "cap gpu_memory_utilization"
[[rule.examples]]
text = "Free memory on device cuda:0 (1/2 GiB)"
[[rule]]
id = "demo.wrapper"
title = "engine wrapper"
category = "product"
kind = "symptom"
patterns = ['''Engine core initialization failed''']
summary = "wrapper"
[[rule.examples]]
text = "Engine core initialization failed"
"""


def _report(tmp_path: Path):  # type: ignore[no-untyped-def]
    log = tmp_path / "job.log"
    log.write_text(
        "INFO start\n[BASH] ValueError: Free memory on device cuda:0 (19.5/22.03 GiB) ```\nnext\n"
        "RuntimeError: Engine core initialization failed. See root cause above.\n"
    )
    return analyze([str(log)], rules=rules_from(tmp_path, RULE))


def test_every_format_has_a_renderer() -> None:
    assert set(RENDERERS) == {"text", "json", "markdown", "github"}


def test_text_rendering_is_exact(tmp_path: Path) -> None:
    console = Console(file=io.StringIO(), width=100, color_system=None)
    console.print(render_text(_report(tmp_path)))
    output = console.file.getvalue()  # type: ignore[attr-defined]
    assert output.splitlines()[0] == "1 failing test: 1 explained (100%), 0 unexplained"
    assert "│ only 19.5 of 22.03 GiB free on cuda:0" in output
    assert "│   • job.log (failed)" in output
    assert "│ Evidence (job.log line 2):" in output
    assert "│   > 2 │ [BASH] ValueError: Free memory on device cuda:0 (19.5/22.03 GiB) ```" in output
    assert "│     4 │ RuntimeError: Engine core initialization failed. See root cause above." in output
    assert "│   • engine wrapper (job.log line 4)" in output
    assert "│ Advice: cap gpu_memory_utilization" in output


def test_markdown_fences_outlast_backticks_in_logs(tmp_path: Path) -> None:
    markdown = render_markdown(_report(tmp_path))
    assert markdown.startswith("## ci-forensics: 1 failing test: 1 explained (100%), 0 unexplained\n")
    assert (
        "````text\n  1 | INFO start\n> 2 | [BASH] ValueError: Free memory on device cuda:0 (19.5/22.03 GiB) ```\n"
        in markdown
    )
    assert "\n````\n" in markdown
    assert "**Symptoms it explains:** engine wrapper (job.log line 4)" in markdown
    assert fence_for("a ````` b") == "``````"
    assert inline_code("x`y") == "``x`y``"


def test_json_is_valid_and_stable(tmp_path: Path) -> None:
    document = json.loads(RENDERERS["json"](_report(tmp_path)))  # type: ignore[arg-type]
    test = document["tests"][0]
    assert test["root_cause"]["summary"] == "only 19.5 of 22.03 GiB free on cuda:0"
    assert test["root_cause"]["evidence"]["line"] == 2
    assert [s["rule"] for s in test["symptoms"]] == ["demo.wrapper"]
    assert document["groups"] == [
        {
            "kind": "cause",
            "key": "demo.free-memory",
            "title": "GPU already in use",
            "category": "infrastructure",
            "count": 1,
            "tests": [test["id"]],
        }
    ]
