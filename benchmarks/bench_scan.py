"""Benchmark: analyse a generated nightly artifact with the literal pre-filter vs every line through every rule.

Prints figures; asserts nothing. Ratios measured in one run are what to compare (shared, noisy machines).
The artifact comes from benchmarks/artifacts.py (generated once, cached in benchmarks/.cache/).
Usage: python benchmarks/bench_scan.py [--size-mib 8] [--tests 10] [--repeat 3]
"""

from __future__ import annotations

import argparse
import resource
import statistics
import time
import zipfile
from collections.abc import Callable
from pathlib import Path

from artifacts import ArtifactSpec, ensure_artifact

from forensics.report.build import AnalyzeOptions, analyze
from forensics.rules.loader import load_rules


def measure(action: Callable[[], object], repeat: int) -> tuple[float, float]:
    """Median wall and CPU seconds over `repeat` runs."""
    walls, cpus = [], []
    for _ in range(repeat):
        cpu = time.process_time()
        wall = time.perf_counter()
        action()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return statistics.median(walls), statistics.median(cpus)


def inflate_only(path: Path) -> None:
    """The floor: decompress every entry and throw the bytes away."""
    with zipfile.ZipFile(path) as archive:
        for info in archive.infolist():
            with archive.open(info) as stream:
                while stream.read(1 << 20):
                    pass


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--size-mib", type=int, default=8)
    parser.add_argument("--tests", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args()
    rules = load_rules()
    artifact = ensure_artifact(ArtifactSpec(size_mib=options.size_mib, tests=options.tests)).path
    report = analyze([str(artifact)], rules=rules)
    floor = measure(lambda: inflate_only(artifact), options.repeat)
    fast = measure(lambda: analyze([str(artifact)], rules=rules), options.repeat)
    plain_options = AnalyzeOptions(use_literals=False)
    plain_report = analyze([str(artifact)], rules=rules, options=plain_options)
    plain = measure(lambda: analyze([str(artifact)], rules=rules, options=plain_options), 1)
    same = [v.root_cause.rule_id if v.root_cause else None for v in report.verdicts] == [
        v.root_cause.rule_id if v.root_cause else None for v in plain_report.verdicts
    ]
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"artifact: {options.size_mib} MiB of logs in {options.tests} tests, {len(rules)} rules, "
        f"median of {options.repeat} (plain path: 1 run)"
    )
    print(f"{'what':<34}{'wall s':>9}{'cpu s':>9}{'MiB/s':>9}{'× floor':>9}")
    for name, (wall, cpu) in (
        ("inflate only (floor)", floor),
        ("analyze, literal pre-filter", fast),
        ("analyze, every line × every rule", plain),
    ):
        print(f"{name:<34}{wall:>9.2f}{cpu:>9.2f}{options.size_mib / wall:>9.1f}{wall / floor[0]:>9.2f}")
    print(
        f"pre-filter speed-up: {plain[0] / fast[0]:.1f}×; same root causes on both paths: {same}; "
        f"explained {report.explained_count}/{len(report.failing)}; peak RSS {peak_mib:.0f} MiB"
    )


if __name__ == "__main__":
    main()
