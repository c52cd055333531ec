"""The step summary's size: the GPU corpus and 1,500 distinct errors (made by the real allure-pytest plugin).

    python benchmarks/bench_summary.py [--errors 1500] [--max-bytes 921600]

Prints, per case, the groups, the summary's size in bytes, how many groups kept their section and their
log excerpts, and the note on what was left out. Never asserts: the tests do (tests/test_step_summary.py).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from forensics.render.markdown import DEFAULT_MAX_BYTES, render_markdown  # noqa: E402
from forensics.report.build import analyze  # noqa: E402
from forensics.rules.loader import load_rules  # noqa: E402
from tests.support.allure_runner import SCENARIOS_DIRECTORY, run_scenarios  # noqa: E402

_LEFT_OUT = "log excerpt left out to keep the summary under its size cap"


def _measure(name: str, results: Path, max_bytes: int) -> None:
    started = time.perf_counter()
    report = analyze([str(results)], rules=load_rules(()))
    analysed = time.perf_counter()
    markdown = render_markdown(report, max_bytes=max_bytes)
    rendered = time.perf_counter()
    size = len(markdown.encode("utf-8"))
    note = next(
        (line for line in markdown.splitlines() if line.startswith("_Left out")), "(nothing left out)"
    )
    print(f"{name}: {len(report.failing)} failing tests, {len(report.groups)} groups")
    print(f"  summary {size:,} bytes ({size / 1024:.1f} KiB) under a cap of {max_bytes:,}")
    print(f"  sections {markdown.count('<details>')}, without their log excerpt {markdown.count(_LEFT_OUT)}")
    print(f"  analyse {analysed - started:.1f} s, render {rendered - analysed:.2f} s")
    print(f"  {note}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--errors", type=int, default=1500, help="distinct errors in the generated case")
    parser.add_argument("--max-bytes", type=int, default=DEFAULT_MAX_BYTES)
    options = parser.parse_args()
    _measure("GPU corpus", ROOT / "tests" / "corpus" / "gpu" / "allure-results", options.max_bytes)
    os.environ["MANY_ERRORS"] = str(options.errors)  # read by the scenario, in the pytest it starts
    with tempfile.TemporaryDirectory() as folder:
        results = run_scenarios([SCENARIOS_DIRECTORY / "scenario_many_errors.py"], Path(folder) / "results")
        _measure(f"{options.errors:,} distinct errors", results, options.max_bytes)


if __name__ == "__main__":
    main()
