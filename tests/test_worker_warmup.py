"""What forked workers inherit: the parent compiles, before forking, every pattern a worker would otherwise compile
for itself on its first lines (report/session.py `_prepare_workers`). With 16 workers, each compiling the
likely-cause picker's ~70 patterns and the normaliser's prefix alternation was ~1 CPU s of the same work done 16
times at 1 GiB (docs/performance.md). Checked in a fresh interpreter, where nothing is compiled yet."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "corpus" / "train"

# Re-reads a few real logs for their likely cause (normalising every line on the way, the scanner's way) and
# prints which modules compiled a `regex` pattern while doing it (with `regex.compile`, or through
# forensics/regex_code.py, whose table may hold the compiler's output); with "prepare", after what the parent runs
# before forking.
_CODE = """
import json, sys, regex
from forensics.engine import likely_reader, normalize
if sys.argv[1] == "prepare":
    likely_reader.compile_for_workers()
    normalize.compile_for_many_lines()
from forensics import regex_code
compiled = []
original = regex.compile
def compile(pattern, flags=0, *args, **kwargs):
    caller = sys._getframe(1).f_globals.get("__name__", "")
    if caller != "forensics.regex_code":
        compiled.append(caller)
    return original(pattern, flags, *args, **kwargs)
regex.compile = compile
kept = regex_code._PATTERNS
build = kept.compile
def build_or_keep(pattern, flags):
    if (pattern, int(flags)) not in kept.compiled:  # built in this process (from the table, or compiled)
        compiled.append(sys._getframe(2).f_globals.get("__name__", ""))
    return build(pattern, flags)
kept.compile = build_or_keep
for path in sys.argv[2:]:
    data = open(path, "rb").read()
    likely_reader.pick_likely_cause_in_blocks([data])
    for line in data.decode("utf-8", "replace").splitlines():
        normalize.normalize_line(line)
print(json.dumps(sorted(set(compiled))))
"""


def _compiling(mode: str) -> list[str]:
    logs = sorted(str(path) for path in CORPUS.rglob("*.log"))[:30]
    assert len(logs) == 30
    run = subprocess.run(
        [sys.executable, "-c", _CODE, mode, *logs], capture_output=True, text=True, check=True, cwd=ROOT
    )
    return list(json.loads(run.stdout.strip().splitlines()[-1]))


@pytest.mark.parametrize("mode", ["prepare", "cold"])
def test_a_worker_re_reading_logs_compiles_no_pattern_the_parent_compiled_before_forking(mode: str) -> None:
    """Prepared, re-reading 30 real logs compiles nothing; cold, the same reading compiles the picker's and the
    normaliser's patterns (what every worker did on its own before)."""
    compiling = _compiling(mode)
    if mode == "prepare":
        assert compiling == []
    else:
        assert {"forensics.lazy_regex"} <= set(compiling)
