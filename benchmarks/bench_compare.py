"""Benchmark: this checkout's `analyze` against an earlier commit's, and both against the inflate floor.

CPU seconds (user + sys of `analyze` and its worker processes) are the figure to read on a shared machine:
wall time there moves with other work, CPU time much less. Each round runs the floor, then each tree, on the
same cached artifact (benchmarks/artifacts.py); medians of --repeat rounds. The earlier tree is taken with
`git archive REV forensics rules` into a temporary folder and run from there.

Usage: python benchmarks/bench_compare.py --rev 5b0a9e0 [--sizes 256,1024] [--jobs 2] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

from artifacts import ArtifactSpec, ensure_artifact
from bench_speed import FLOOR_CHILD, size_mib

ROOT = Path(__file__).resolve().parent.parent


def extract_tree(rev: str, target: Path) -> Path:
    """The package and rule pack of commit `rev`, extracted into `target` (a temporary folder)."""
    with tempfile.TemporaryFile() as archive:
        subprocess.run(["git", "archive", rev, "forensics", "rules"], cwd=ROOT, stdout=archive, check=True)
        archive.seek(0)
        with tarfile.open(fileobj=archive) as tar:
            tar.extractall(target, filter="data")
    return target


def run(argv: list[str], python_path: str) -> tuple[float, float]:
    """Wall and CPU seconds of a command (and its children), run from the temp folder so that `-m forensics`
    imports the tree on PYTHONPATH, not the current directory's."""
    env = {**os.environ, "PYTHONPATH": python_path}
    start = time.perf_counter()
    process = subprocess.Popen(
        argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=tempfile.gettempdir()
    )
    _pid, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) not in (0, 1):
        raise SystemExit(f"failed ({os.waitstatus_to_exitcode(status)}): {' '.join(argv)}")
    return wall, usage.ru_utime + usage.ru_stime


def main() -> None:
    """Measure round by round, print one line per size."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rev", required=True, help="the earlier commit to compare with")
    parser.add_argument("--sizes", default="256,1024", help="MiB of logs, or 256mib,1gib")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-compare-") as scratch:
        earlier = extract_tree(options.rev, Path(scratch))
        compare(options, {"this checkout": str(ROOT), options.rev: str(earlier)})


def compare(options: argparse.Namespace, trees: dict[str, str]) -> None:
    """Each size: floor and each tree, round by round; one line of medians."""
    for size in (size_mib(text) for text in options.sizes.split(",")):
        artifact = ensure_artifact(ArtifactSpec(size_mib=size))
        artifact.path.read_bytes()  # into the page cache
        samples: dict[str, list[tuple[float, float]]] = {}
        for _ in range(options.repeat):
            floor = [sys.executable, "-c", FLOOR_CHILD, str(artifact.path), str(options.jobs)]
            samples.setdefault("floor", []).append(run(floor, ""))
            for name, tree in trees.items():
                analyze = [sys.executable, "-m", "forensics", "analyze", str(artifact.path)]
                analyze += ["--format", "json", "--output", os.devnull, "--jobs", str(options.jobs)]
                samples.setdefault(name, []).append(run(analyze, tree))
        medians = {
            name: (statistics.median(w for w, _ in runs), statistics.median(c for _, c in runs))
            for name, runs in samples.items()
        }
        floor_wall, floor_cpu = medians["floor"]
        parts = [
            f"{name}: wall {wall:.2f} s (×{wall / floor_wall:.2f} floor), CPU {cpu:.2f} s (×{cpu / floor_cpu:.2f})"
            for name, (wall, cpu) in medians.items()
        ]
        print(f"{artifact.log_mib:.0f} MiB, --jobs {options.jobs}: " + "; ".join(parts), flush=True)


if __name__ == "__main__":
    main()
