"""Benchmark: multi-literal search engines on the pack's literal set, against the pre-filter's Hyperscan search.

The pre-filter's contract: every line holding one of the pack's literals (case-sensitive ones exactly,
case-insensitive ones folded) reaches Python. Each engine here searches the same 1 MiB blocks of healthy serving
lines (benchmarks/healthy_mix.py) for the literals the scanner's Hyperscan database holds, and the line starts it
finds are compared with the scanner's way (first match, then again after that line): "missing" lines would break
the contract, "extra" lines are more candidates for Python to turn away. CPU time of this process, best of
--repeat, MiB/s on one core. The engines, where installed (none of the optional ones is a dependency):

- Hyperscan (the `hyperscan` wheel): the scanner's walk; one call a block reporting every match;
  `HS_FLAG_SINGLEMATCH` (each literal once a scan); the case-sensitive and the caseless literals apart.
- Hyperscan from a shared library (`--libhs PATH`, e.g. Debian's libhs.so.5, built with the fat runtime that
  picks AVX2 or AVX-512 code on the host, where the wheel has SSE4.2 code only), through ctypes.
- ahocorasick-rs (Rust's aho-corasick crate): no ASCII case folding in its Python API, so the literals and each
  block are lower-cased (a superset of the lines); its DFA and its NFAs.
- pyahocorasick: str haystacks only (its wheels are built for Unicode), so each block is lower-cased and decoded
  as Latin-1.
- RE2's alternation (google-re2), the pre-filter's fallback where Hyperscan has no wheel.

RE2's `Set` answers which patterns a text holds, not where: it cannot find lines in a block without splitting
it into lines first, so it is not a candidate for the block search (the scanner uses it per candidate line).
Asserts nothing.

Usage: python benchmarks/bench_multiliteral.py [--size-mib 16] [--repeat 3] [--libhs PATH]
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import importlib
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from artifacts import MIB
from bench_hyperscan import blocks, database, pack_hyperscan
from healthy_mix import healthy_bytes

from forensics.engine.prefilter import LiteralSearch, first_match_finder

Lines = list[set[int]]  # per block, the start of every line found


def line_starts(block: bytes, ends: Iterable[int]) -> set[int]:
    """The start of the line of each match (given by where it ends)."""
    return {block.rfind(b"\n", 0, end) + 1 for end in ends}


def walk(parts: list[bytes], find: Callable[[bytes, int, int], int]) -> Lines:
    """The scanner's way: the first match, then again from the next line."""
    found: Lines = []
    for block in parts:
        starts: set[int] = set()
        position = 0
        while (at := find(block, position, len(block))) >= 0:
            starts.add(block.rfind(b"\n", 0, at) + 1)
            end = block.find(b"\n", at)
            if end < 0:
                break
            position = end + 1
        found.append(starts)
    return found


def _record_end(_ident: int, _start: int, end: int, _flags: int, ends: list[int]) -> None:
    ends.append(end)


def hyperscan_every(parts: list[bytes], compiled: Any) -> Lines:
    """One call a block, every match's end recorded."""
    found: Lines = []
    for block in parts:
        ends: list[int] = []
        compiled.scan(block, match_event_handler=_record_end, context=ends)
        found.append(line_starts(block, ends))
    return found


def libhs_engine(
    path: str, literals: Sequence[bytes], caseless_from: int
) -> tuple[str, Callable[..., Lines]]:
    """Hyperscan from a shared library through ctypes: its version and features, and a search (every match)."""
    library = ctypes.CDLL(path)
    library.hs_version.restype = ctypes.c_char_p
    count = len(literals)
    expressions = (ctypes.c_char_p * count)(*literals)
    flags = (ctypes.c_uint * count)(*([0] * caseless_from + [1] * (count - caseless_from)))  # 1: CASELESS
    ids = (ctypes.c_uint * count)(*range(count))
    lengths = (ctypes.c_size_t * count)(*map(len, literals))
    compiled, error, scratch = ctypes.c_void_p(), ctypes.c_void_p(), ctypes.c_void_p()
    status = library.hs_compile_lit_multi(
        expressions, flags, ids, lengths, count, 1, None, ctypes.byref(compiled), ctypes.byref(error)
    )
    assert status == 0, f"hs_compile_lit_multi: {status}"
    assert library.hs_alloc_scratch(compiled, ctypes.byref(scratch)) == 0
    info = ctypes.c_char_p()
    library.hs_database_info(compiled, ctypes.byref(info))
    callback_type = ctypes.CFUNCTYPE(
        ctypes.c_int, ctypes.c_uint, ctypes.c_ulonglong, ctypes.c_ulonglong, ctypes.c_uint, ctypes.c_void_p
    )
    ends: list[int] = []
    callback = callback_type(lambda _i, _s, end, _f, _c: ends.append(end) or 0)

    def search(parts: list[bytes]) -> Lines:
        found: Lines = []
        for block in parts:
            ends.clear()
            library.hs_scan(compiled, block, len(block), 0, scratch, callback, None)
            found.append(line_starts(block, ends))
        return found

    version = library.hs_version().decode().split()[0]
    features = (info.value or b"").decode().partition("Features:")[2].partition("Mode:")[0].strip()
    described = f"{version}, {features or 'no features'}"
    return described, search


def candidates(
    hyperscan: Any, search: LiteralSearch, parts: list[bytes], libhs: str | None
) -> list[tuple[str, Callable[[], Lines]]]:
    """Each engine's name and its search of `parts` for the pack's literals (the scanner's first)."""
    scanner = search.hyperscan_search()
    assert scanner is not None
    literals = list(scanner.expressions)
    sensitive = scanner.sensitive_count
    flags = [0] * sensitive + [hyperscan.HS_FLAG_CASELESS] * (len(literals) - sensitive)
    lowered = sorted({literal.lower() for literal in literals})
    engines: list[tuple[str, Callable[[], Lines]]] = [
        ("Hyperscan wheel: the scanner's walk", lambda: walk(parts, scanner))
    ]
    every = database(hyperscan, literals, flags)
    engines.append(("Hyperscan wheel: one call a block, every match", lambda: hyperscan_every(parts, every)))
    single = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
    single.compile(
        expressions=literals,
        ids=list(range(len(literals))),
        flags=[flag | hyperscan.HS_FLAG_SINGLEMATCH for flag in flags],
        literal=True,
    )
    engines.append(("Hyperscan wheel: SINGLEMATCH, one call a block", lambda: hyperscan_every(parts, single)))
    exact = database(hyperscan, literals[:sensitive], flags[:sensitive])
    engines.append(("Hyperscan wheel: case-sensitive literals only", lambda: hyperscan_every(parts, exact)))
    caseless = database(hyperscan, literals[sensitive:], flags[sensitive:])
    engines.append(("Hyperscan wheel: caseless literals only", lambda: hyperscan_every(parts, caseless)))
    if libhs:
        described, libhs_search = libhs_engine(libhs, literals, sensitive)
        engines.append((f"Hyperscan from {libhs} ({described})", lambda: libhs_search(parts)))
    with contextlib.suppress(ImportError):
        aho_rs: Any = importlib.import_module("ahocorasick_rs")
        for kind in ("DFA", "ContiguousNFA", "NoncontiguousNFA"):
            automaton = aho_rs.BytesAhoCorasick(lowered, implementation=getattr(aho_rs.Implementation, kind))

            def aho_rs_search(automaton: Any = automaton) -> Lines:
                return [
                    line_starts(
                        block, (end for _, _, end in automaton.find_matches_as_indexes(block.lower()))
                    )
                    for block in parts
                ]

            engines.append((f"ahocorasick-rs {kind}, lower-cased", aho_rs_search))
    with contextlib.suppress(ImportError):
        pyaho: Any = importlib.import_module("ahocorasick")
        trie = pyaho.Automaton()
        for ident, literal in enumerate(lowered):
            trie.add_word(literal.decode("latin-1"), ident)
        trie.make_automaton()
        engines.append(
            (
                "pyahocorasick, lower-cased, as Latin-1 text",
                lambda: [
                    line_starts(block, (end + 1 for end, _ in trie.iter(block.lower().decode("latin-1"))))
                    for block in parts
                ],
            )
        )
    re2_find = first_match_finder(search.compile())
    engines.append(("RE2's alternation (the fallback): the scanner's walk", lambda: walk(parts, re2_find)))
    return engines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size-mib", type=float, default=16)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--libhs", help="a Hyperscan shared library to compare (e.g. libhs.so.5)")
    args = parser.parse_args()
    import hyperscan

    search, scanner = pack_hyperscan()
    literals = list(scanner.expressions)
    sensitive = scanner.sensitive_count
    parts = blocks(healthy_bytes(args.size_mib))
    size = sum(map(len, parts)) / MIB
    print(
        f"healthy mix: {size:.0f} MiB in {len(parts)} blocks; the pack's literals: {len(literals)} "
        f"({sensitive} case-sensitive); CPU time, best of {args.repeat}"
    )
    engines = candidates(hyperscan, search, parts, args.libhs)
    reference: Lines = []
    print(f"{'engine':<62} {'MiB/s':>6} {'lines/MiB':>9} {'missing':>7} {'extra/MiB':>9}")
    for name, run in engines:
        best = float("inf")
        for _ in range(args.repeat):
            began = time.process_time()
            found = run()
            best = min(best, time.process_time() - began)
        reference = reference or found
        missing = sum(len(want - got) for want, got in zip(reference, found, strict=True))
        extra = sum(len(got - want) for want, got in zip(reference, found, strict=True))
        lines = sum(map(len, found))
        print(
            f"{name:<62} {size / best:6.0f} {lines / size:9.0f} {missing:7} {extra / size:9.0f}", flush=True
        )


if __name__ == "__main__":
    main()
