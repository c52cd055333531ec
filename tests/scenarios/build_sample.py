"""Build the bundled sample artifact: run the nightly scenarios (plus a retry) and zip their Allure results.

Usage: ``python tests/scenarios/build_sample.py [OUT.zip]``; default output is
``forensics/samples/nightly-allure-results.zip``. uuids, timestamps and host labels change on every build;
the logs themselves are seeded and identical each time. ``ALLURE_INDENT_OUTPUT`` is removed from the
environment of the runs, so the JSON is compact, one line per file, as CI writes it.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

SCENARIOS_DIRECTORY = Path(__file__).resolve().parent
REPOSITORY_ROOT = SCENARIOS_DIRECTORY.parents[1]
DEFAULT_OUTPUT = REPOSITORY_ROOT / "forensics" / "samples" / "nightly-allure-results.zip"
NIGHTLY_SCENARIOS = ("scenario_nightly_vllm.py", "scenario_nightly_multigpu.py", "scenario_nightly_retry.py")
RETRIED_SCENARIO = "scenario_nightly_retry.py"

sys.path.insert(0, str(REPOSITORY_ROOT / "tests" / "support"))

from allure_runner import run_scenarios, zip_results  # noqa: E402


def build_sample(output: Path) -> Path:
    """Run every nightly scenario, re-run the retry scenario into the same directory, and zip the result."""
    with tempfile.TemporaryDirectory(prefix="nightly-allure-") as temporary:
        results = Path(temporary) / "allure-results"
        results.mkdir()
        run_scenarios([SCENARIOS_DIRECTORY / name for name in NIGHTLY_SCENARIOS], results)
        run_scenarios([SCENARIOS_DIRECTORY / RETRIED_SCENARIO], results)
        zip_results(results, output)
    return output


def main(arguments: list[str]) -> int:
    """Build the sample at the path given on the command line, or at the default location."""
    output = Path(arguments[0]).resolve() if arguments else DEFAULT_OUTPUT
    build_sample(output)
    print(f"wrote {output} ({output.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
