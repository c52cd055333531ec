"""Benchmark: where one worker's CPU goes, part by part, over a share of an artifact's logs.

Takes every --every-th log of a zip artifact (a `--jobs N` worker's share is about every N-th), compiles the
rules as `analyze` does before forking, and times each part of the scan alone over the same bytes, CPU seconds of
this process, best of --repeat, printed per GiB of logs: inflating (the floor's own work), the pre-filter's
search alone (the scanner's walk: the next line holding a literal, again and again), counting line breaks (as
the scanner counts them: StringZilla where installed), `scan_stream` over the inflated bytes held in memory,
`scan_stream` from the zip (a worker's whole scan), and the likely-cause re-read of every log of the share (an
upper bound: `analyze` re-reads only unexplained failures' logs), from the zip and from the logs in memory (what
inflating costs it: the re-read stops at the first fatal event, so it reads only part of most logs). What `scan_stream` costs beyond the search and
the counting is Python per block and per candidate line. Prints figures; asserts nothing.

Usage: python benchmarks/bench_worker.py ZIP [--every 8] [--repeat 2]
"""

from __future__ import annotations

import argparse
import io
import time
from collections.abc import Callable
from pathlib import Path

from artifacts import MIB

from forensics.engine.scanner import CompiledRules, ScanLimits, bytes_count, line_counter, scan_stream
from forensics.inputs.archive import ZipArchive
from forensics.report.session import _read_likely
from forensics.rules.loader import load_rules

GIB = 1024 * MIB


def best_cpu(work: Callable[[], object], repeat: int) -> float:
    """The least CPU time (user + sys of this process) of `repeat` runs of `work`."""
    times = []
    for _ in range(repeat):
        start = time.process_time()
        work()
        times.append(time.process_time() - start)
    return min(times)


def main() -> None:
    """Read the share, time each part, print the table."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("artifact", type=Path)
    parser.add_argument("--every", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=2)
    options = parser.parse_args()
    archive = ZipArchive(options.artifact)
    names = [name for name in archive.names() if not name.endswith(".json")][:: options.every]
    limits = ScanLimits()
    compiled = CompiledRules(load_rules())
    compiled.compile_automata()  # as before forking: every worker inherits these
    pattern = compiled.prefilter.pattern
    assert pattern is not None
    logs = []
    for name in names:
        with archive.open(name) as stream:
            logs.append(stream.read())
    total = sum(map(len, logs))
    parts = worker_parts(archive, names, logs, compiled, limits)
    print(
        f"{options.artifact.name}: {len(names)} logs, {total / MIB:.0f} MiB (every {options.every}th), "
        f"pre-filter: {pattern.engine}; line count: "
        f"{'bytes.count' if line_counter(limits.block_size) is bytes_count else 'stringzilla'}; "
        f"CPU s, best of {options.repeat}"
    )
    print(f"  {'part':<52} {'CPU s':>7} {'per GiB':>8}")
    for label, work in parts:
        seconds = best_cpu(work, options.repeat)
        print(f"  {label:<52} {seconds:7.3f} {seconds * GIB / total:8.2f}")


def worker_parts(
    archive: ZipArchive, names: list[str], logs: list[bytes], compiled: CompiledRules, limits: ScanLimits
) -> tuple[tuple[str, Callable[[], None]], ...]:
    """Each part of a worker's work over the share (`logs`: its members, inflated), as a labelled call."""
    pattern = compiled.prefilter.pattern
    assert pattern is not None
    find = pattern.finder()

    def inflate() -> None:
        for name in names:
            with archive.open(name) as stream:
                while stream.read(limits.block_size):
                    pass

    blocks = []
    for data in logs:
        at = 0
        while at < len(data):
            end = data.rfind(b"\n", at, at + limits.block_size) + 1 or min(len(data), at + limits.block_size)
            blocks.append(data[at:end])
            at = end

    def search() -> None:
        for block in blocks:
            position = 0
            while (found := find(block, position, len(block))) >= 0:
                end = block.find(b"\n", found)
                if end < 0:
                    break
                position = end + 1

    def count() -> None:
        for block in blocks:
            line_counter(len(block))(block, 0, len(block))

    def scan_memory() -> None:
        for data in logs:
            scan_stream(io.BytesIO(data), compiled, name="log", limits=limits)

    def scan_zip() -> None:
        for name in names:
            with archive.open(name) as stream:
                scan_stream(stream, compiled, name=name, limits=limits)

    def reread() -> None:
        for name in names:
            _read_likely(lambda name=name: archive.open(name), limits, lambda _text: False)

    def reread_memory() -> None:
        for data in logs:
            _read_likely(lambda data=data: io.BytesIO(data), limits, lambda _text: False)

    scan_memory()  # compiles the patterns the share's candidate lines need, as a worker's first logs do
    return (
        ("inflating (the floor's work)", inflate),
        ("pre-filter search alone (the scanner's walk)", search),
        ("counting line breaks", count),
        ("scan_stream, logs in memory", scan_memory),
        ("scan_stream from the zip (a worker's scan)", scan_zip),
        ("likely-cause re-read of every log, from the zip", reread),
        ("the same re-read from the logs in memory", reread_memory),
    )


if __name__ == "__main__":
    main()
