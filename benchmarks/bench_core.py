"""Benchmark: scan throughput on one core against ripgrep on one thread, same patterns, same uncompressed lines.

The lines are healthy serving traffic (benchmarks/healthy_mix.py) with a few of the planted root causes of the
speed benchmark mixed in, generated at run time and written once to a temporary file (read from the page
cache by both). ci-forensics runs `scan_stream` in this process (rules loaded and compiled before timing);
ripgrep runs `rg -j1 --no-unicode -c -f PATTERNS FILE`. Also prints how many lines per MiB reach Python
(the pre-filter's candidates) and the pre-filter's own speed. Prints figures; asserts nothing.

Usage: python benchmarks/bench_core.py [--size-mib 64] [--repeat 3] [--profile]
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from artifacts import CAUSES, MIB
from bench_speed import RIPGREP_PROBE_MIB, RipgrepPlan, ripgrep_plan
from healthy_mix import healthy_bytes

from forensics.engine.scanner import CompiledRules, LogScan, scan_stream
from forensics.rules.loader import load_rules
from forensics.rules.model import RuleSet


def mixed_log(size_mib: float) -> bytes:
    """Healthy traffic with each planted cause's lines inserted once, at a random place."""
    lines = healthy_bytes(size_mib).split(b"\n")
    rng = random.Random(11)
    for cause in CAUSES:
        at = rng.randrange(len(lines))
        block = [line.format(pid=4242, vdate="11-28 08:14:19").encode() for line in cause.lines]
        lines[at:at] = block
    return b"\n".join(lines)


def candidate_lines(data: bytes, compiled: CompiledRules) -> int:
    """Lines the pre-filter hands to Python (those holding some rule's literal)."""
    prefilter = compiled.prefilter.pattern
    if prefilter is None:
        return data.count(b"\n")
    count = 0
    position = 0
    while True:
        match = prefilter.search(data, position)
        if match is None:
            return count
        count += 1
        end = data.find(b"\n", match.start())
        if end < 0:
            return count
        position = end + 1


def time_ripgrep(
    rules: RuleSet, log: Path, scratch: Path, repeat: int, plan: RipgrepPlan | None = None
) -> tuple[list[float], str]:
    """`rg -j1 -c -f PATTERNS LOG` wall times (after one warm-up run), and a note on the patterns; with the
    patterns rg searches apart (the plan given, or one made here), one more `rg -j1` per pattern, summed."""
    rg = shutil.which("rg")
    if rg is None:
        return [], "ripgrep not found (apt-get install -y ripgrep): no comparison"
    if plan is None:
        probe = scratch / "probe.log"
        probe.write_bytes(healthy_bytes(RIPGREP_PROBE_MIB))
        plan = ripgrep_plan(rules, rg, probe)
    patterns_file = scratch / "patterns.txt"
    patterns_file.write_text("\n".join(plan.together) + "\n", encoding="utf-8")
    commands = plan.commands(rg, patterns_file, log, "-j1")
    for command in commands:  # warm-up
        subprocess.run(command, capture_output=True, check=False)
    walls = []
    for _ in range(repeat):
        start = time.perf_counter()
        for command in commands:
            subprocess.run(command, capture_output=True, check=False)
        walls.append(time.perf_counter() - start)
    return (
        walls,
        f"rg: {plan.count} patterns ({sum(plan.skipped.values())} skipped: look-around Rust regex lacks; "
        f"{len(plan.alone)} searched in a pass of their own, times summed)",
    )


def time_scan(compiled: CompiledRules, log: Path, repeat: int) -> tuple[list[float], LogScan]:
    """`scan_stream` wall times over the file (after one warm-up run that compiles the patterns it needs)."""
    with log.open("rb") as stream:
        scan = scan_stream(stream, compiled, name="warm-up")
    walls = []
    for _ in range(repeat):
        start = time.perf_counter()
        with log.open("rb") as stream:
            scan = scan_stream(stream, compiled, name=log.name)
        walls.append(time.perf_counter() - start)
    return walls, scan


def main() -> None:
    """Generate the lines, time both tools on them, print the figures."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--size-mib", type=float, default=64)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--profile", action="store_true", help="print a cProfile of one scan")
    options = parser.parse_args()
    rules = load_rules()
    compiled = CompiledRules(rules)
    data = mixed_log(options.size_mib)
    size_mib = len(data) / MIB
    with tempfile.TemporaryDirectory(prefix="bench-core-") as scratch:
        log = Path(scratch) / "healthy.log"
        log.write_bytes(data)
        ours, scan = time_scan(compiled, log, options.repeat)
        theirs, note = time_ripgrep(rules, log, Path(scratch), options.repeat)
        if options.profile:
            profiler = cProfile.Profile()
            with log.open("rb") as stream:
                profiler.runcall(scan_stream, stream, compiled, name=log.name)
            pstats.Stats(profiler, stream=sys.stdout).sort_stats("tottime").print_stats(15)
    start = time.perf_counter()
    candidates = candidate_lines(data, compiled)
    prefilter_only = time.perf_counter() - start
    found = sorted({compiled.rules[compiled.probes[probe].rule_index].id for probe in scan.hits})
    lines = data.count(b"\n")
    print(
        f"{size_mib:.0f} MiB, {lines} lines ({lines / size_mib:.0f}/MiB), {len(rules)} rules, median of {options.repeat}"
    )
    print(f"ci-forensics scan_stream, 1 core   {size_mib / statistics.median(ours):7.0f} MiB/s")
    if theirs:
        print(f"rg -j1 -c -f PATTERNS             {size_mib / statistics.median(theirs):7.0f} MiB/s")
        print(f"ratio ci-forensics / rg (speed)   {statistics.median(theirs) / statistics.median(ours):7.2f}")
    print(f"pre-filter alone (RE2 over bytes) {size_mib / prefilter_only:7.0f} MiB/s")
    print(f"lines reaching Python             {candidates} ({candidates / size_mib:.1f}/MiB)")
    print(f"rules found: {', '.join(found)}")
    print(note)


if __name__ == "__main__":
    main()
