"""Benchmark: the pre-filter's Hyperscan database alone, by literal count and shortest literal, on the healthy mix.

Why does the scan's Hyperscan search cost ~1.8 CPU s a GiB (~600 MB/s) where a multi-literal database usually runs
at several GB/s? This builds the pack's database as the scanner does (every literal, case-sensitive and caseless,
`literal=True`, block mode) and smaller ones from it, and times each over the same 1 MiB blocks of healthy serving
lines (benchmarks/healthy_mix.py) two ways: the scanner's (first match, then again after that line) and one call a
block reporting every match (the callback counts). The smaller databases drop short literals or keep one literal:
they would miss lines the pack needs, so they are a measure of what the literals cost, not a proposal. CPU time of
this process, best of --repeat. Asserts nothing.

Usage: python benchmarks/bench_hyperscan.py [--size-mib 32] [--repeat 3]
"""

from __future__ import annotations

import argparse
import contextlib
import time
from collections.abc import Callable, Sequence
from typing import Any

from artifacts import MIB
from healthy_mix import healthy_bytes

from forensics.engine.prefilter import LiteralSearch
from forensics.engine.scanner import CompiledRules
from forensics.rules.loader import load_rules


def blocks(data: bytes) -> list[bytes]:
    """1 MiB blocks cut after their last line break, as the scanner reads them."""
    out: list[bytes] = []
    at = 0
    while at < len(data):
        end = data.rfind(b"\n", at, at + MIB) + 1 or min(len(data), at + MIB)
        out.append(data[at:end])
        at = end
    return out


def database(hyperscan: Any, expressions: Sequence[bytes], flags: Sequence[int]) -> Any:
    """A block-mode database of literals."""
    compiled = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
    compiled.compile(
        expressions=list(expressions), ids=list(range(len(expressions))), flags=list(flags), literal=True
    )
    return compiled


def first_match_walk(hyperscan: Any, compiled: Any, parts: list[bytes]) -> int:
    """The scanner's way: the first match, then again from the line after it; returns the candidate lines."""
    stopped = hyperscan.ScanTerminated
    lines = 0

    def first(_ident: int, _start: int, end: int, _flags: int, found: list[int]) -> bool:
        found.append(end)
        return True

    for block in parts:
        view = memoryview(block)
        pos = 0
        while pos < len(block):
            found: list[int] = []
            with contextlib.suppress(stopped):
                compiled.scan(view[pos:], match_event_handler=first, context=found)
            if not found:
                break
            lines += 1
            end = block.find(b"\n", pos + found[0])
            pos = len(block) if end < 0 else end + 1
    return lines


def every_match(_hyperscan: Any, compiled: Any, parts: list[bytes]) -> int:
    """One call a block, every match reported to a callback that counts; returns the matches."""
    count = [0]

    def tally(_ident: int, _start: int, _end: int, _flags: int, counter: list[int]) -> None:
        counter[0] += 1

    for block in parts:
        compiled.scan(block, match_event_handler=tally, context=count)
    return count[0]


def timed(run: Callable[[], int], repeat: int) -> tuple[float, int]:
    """Best CPU seconds of `repeat` runs and the run's count."""
    best = float("inf")
    result = 0
    for _ in range(repeat):
        began = time.process_time()
        result = run()
        best = min(best, time.process_time() - began)
    return best, result


def pack_hyperscan() -> tuple[LiteralSearch, Any]:
    """The shipped pack's literal search and its Hyperscan finder, compiled as before forking workers."""
    search = CompiledRules(load_rules()).prefilter.pattern
    assert isinstance(search, LiteralSearch)
    search.finder()  # Hyperscan's database, compiled as before forking workers
    finder = search.hyperscan_search()
    assert finder is not None, "hyperscan is installed but the pack's literals did not go to it"
    return search, finder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size-mib", type=float, default=32)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    import hyperscan

    _search, finder = pack_hyperscan()
    literals = list(finder.expressions)
    flags = [0] * finder.sensitive_count + [hyperscan.HS_FLAG_CASELESS] * (
        len(literals) - finder.sensitive_count
    )
    parts = blocks(healthy_bytes(args.size_mib))
    size = sum(map(len, parts)) / MIB
    lengths = sorted(map(len, literals))
    print(
        f"healthy mix: {size:.0f} MiB in {len(parts)} blocks; the pack's database: {len(literals)} literals "
        f"({finder.sensitive_count} case-sensitive), shortest {lengths[0]} bytes, median {lengths[len(lengths) // 2]}"
    )
    variants: list[tuple[str, list[bytes], list[int]]] = [("the pack's literals", literals, flags)]
    for shortest in (8, 12, 16, 24):
        kept = [
            (literal, flag) for literal, flag in zip(literals, flags, strict=True) if len(literal) >= shortest
        ]
        variants.append((f"only literals of {shortest}+ bytes", [k for k, _ in kept], [f for _, f in kept]))
    by_length = sorted(zip(literals, flags, strict=True), key=lambda pair: -len(pair[0]))
    for count in (1000, 500, 250, 100, 30):
        longest = by_length[:count]
        variants.append((f"the longest {count}", [k for k, _ in longest], [f for _, f in longest]))
    variants.append(
        ("the case-sensitive ones", literals[: finder.sensitive_count], flags[: finder.sensitive_count])
    )
    variants.append(("one literal (Hyperscan's own speed here)", [b"zzqqj never here"], [0]))
    print(
        f"{'database':<42} {'literals':>8} {'first-match MiB/s':>18} {'lines/MiB':>9} {'every-match MiB/s':>18} {'matches/MiB':>11}"
    )
    for name, expressions, expression_flags in variants:
        compiled = database(hyperscan, expressions, expression_flags)
        walk, lines = timed(
            lambda compiled=compiled: first_match_walk(hyperscan, compiled, parts), args.repeat
        )
        every, matches = timed(lambda compiled=compiled: every_match(hyperscan, compiled, parts), args.repeat)
        print(
            f"{name:<42} {len(expressions):>8} {size / walk:>18.0f} {lines / size:>9.0f} "
            f"{size / every:>18.0f} {matches / size:>11.0f}"
        )


if __name__ == "__main__":
    main()
