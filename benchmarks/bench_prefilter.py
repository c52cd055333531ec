"""Benchmark: the pre-filter alone, RE2's alternation against Hyperscan's, same blocks, same literals, one core.

The blocks are the speed benchmark's logs (benchmarks/artifacts.py, the 256 MiB artifact, generated on first use
into benchmarks/.cache/), inflated into memory once and cut at line breaks into 1 MiB blocks as the scanner reads
them. Each engine walks every block the way the scanner does: find the next literal from a line's start, take that
line, go on after it. Prints MB/s per core (CPU time of this process) for each and checks that both name the same
candidate lines. Asserts nothing else.

Usage: python benchmarks/bench_prefilter.py [--size-mib 64] [--repeat 3]
"""

from __future__ import annotations

import argparse
import statistics
import time
import zipfile
from collections.abc import Callable

from artifacts import MIB, ArtifactSpec, ensure_artifact

from forensics.engine.prefilter import LiteralSearch, first_match_finder
from forensics.engine.scanner import CompiledRules
from forensics.rules.loader import load_rules


def blocks(size_mib: int) -> list[tuple[bytes, int]]:
    """1 MiB blocks of the benchmark's logs, each as the bytes and the length that ends at its last line break."""
    path = ensure_artifact(ArtifactSpec(size_mib=256)).path
    out: list[tuple[bytes, int]] = []
    total = 0
    with zipfile.ZipFile(path) as archive:
        for info in archive.infolist():
            if not info.filename.endswith("-attachment.txt"):
                continue
            data = archive.read(info)
            for at in range(0, len(data), MIB):
                block = data[at : at + MIB]
                out.append((block, block.rfind(b"\n") + 1))
                total += len(block)
            if total >= size_mib * MIB:
                return out
    return out


def candidates(find: Callable[[bytes, int, int], int], parts: list[tuple[bytes, int]]) -> list[int]:
    """Every candidate line's start, block after block, found the way the scanner finds them."""
    starts: list[int] = []
    for block, size in parts:
        position = 0
        while position < size:
            found = find(block, position, size)
            if found < 0:
                break
            start = block.rfind(b"\n", 0, found) + 1
            starts.append(start)
            end = block.find(b"\n", start, size)
            position = size if end < 0 else end + 1
    return starts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size-mib", type=int, default=64)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    compiled = CompiledRules(load_rules())
    search = compiled.prefilter.pattern
    assert isinstance(search, LiteralSearch)
    parts = blocks(args.size_mib)
    size = sum(length for _, length in parts)
    literals = len(search.literals())
    print(f"{size / MIB:.0f} MiB in {len(parts)} blocks, {literals} literals")
    engines: dict[str, Callable[[bytes, int, int], int]] = {
        "re2 alternation": first_match_finder(search.compile()),
        "hyperscan": search.hyperscan_finder(),
    }
    answers: dict[str, list[int]] = {}
    for name, find in engines.items():
        times = []
        for _ in range(args.repeat):
            began = time.process_time()
            answers[name] = candidates(find, parts)
            times.append(time.process_time() - began)
        best = min(times)
        print(
            f"{name:>16}: {size / MIB / best:7.0f} MiB/s per core (best of {args.repeat}, median "
            f"{size / MIB / statistics.median(times):.0f}), {len(answers[name]) / (size / MIB):.0f} candidate "
            "lines per MiB"
        )
    first, *others = answers.values()
    print("same candidate lines:", all(other == first for other in others))


if __name__ == "__main__":
    main()
