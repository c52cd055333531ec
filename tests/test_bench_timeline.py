"""The parent's timeline benchmark runs `analyze` as the program does, with every phase it wraps still there.

`benchmarks/bench_timeline.py` wraps functions of the CLI and the report by name; when the quick parser replaced
click for a plain `analyze`, the function it wrapped for the output went away and every run failed before printing
a figure. This runs its child on a one-line log and checks that each phase's marks come back.
"""

from __future__ import annotations

import sys
from pathlib import Path

from tests.outside_reads import REPOSITORY_ROOT

sys.path.insert(0, str(REPOSITORY_ROOT / "benchmarks"))

import bench_timeline


def test_the_timeline_marks_every_phase_of_a_plain_analyze(tmp_path: Path) -> None:
    log = tmp_path / "job.log"
    log.write_text("RuntimeError: CUDA error: out of memory\n", encoding="utf-8")
    marks = bench_timeline.run_once(log, 1, REPOSITORY_ROOT)
    expected = {
        "start",
        "results",
        "results read",
        "verdicts",
        "redaction",
        "redacted",
        "output",
        "written",
        "end",
    }
    assert expected <= set(marks)
    assert (
        marks["start"][0]
        < marks["results"][0]
        < marks["verdicts"][0]
        < marks["written"][0]
        <= marks["end"][0]
    )
