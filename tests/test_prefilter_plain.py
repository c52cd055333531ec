"""The pre-filter's plain way (literals looked up with `in`, used until enough has been searched to pay for the
automata) finds exactly what the automata find, and Hyperscan's search exactly what RE2's finds: the same
candidate lines and the same probes, line by line, on every real log of the training corpus, and the same hits."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

import pytest

from forensics.engine.normalize import visible_line
from forensics.engine.prefilter import (
    SCAN_MATCHES,
    LiteralSearch,
    Prefilter,
    ProbeSelector,
    first_match_finder,
)
from forensics.engine.scanner import CompiledRules, scan_stream
from forensics.rules.literals import Literals, required_literals
from forensics.rules.model import RuleSet
from tests.support.line_walk import line_starts
from tests.support.rulebook import rule_toml, rules_from

TRAIN = Path(__file__).parent / "corpus" / "train"
EVERYTHING = 1 << 40  # a budget never used up: the plain way throughout


def _candidates(search: LiteralSearch, data: bytes) -> list[int]:
    """The start of every line the pre-filter hands on, as the scanner walks a block."""

    def find(block: bytes, position: int, _end: int) -> int:
        match = search.search(block, position)
        return -1 if match is None else match.start()

    return line_starts(find, data)


def _finders(literal_sets: list[Literals | None]) -> tuple[Callable[..., int], Callable[..., int]]:
    """RE2's search and Hyperscan's, both compiled now."""
    search = Prefilter.build(literal_sets, plain_bytes=0).pattern
    assert search is not None
    hyperscan = search.hyperscan_finder()
    assert hyperscan is not None
    return first_match_finder(search.compile()), hyperscan


def _both(literal_sets: list[Literals | None]) -> tuple[LiteralSearch, LiteralSearch]:
    plain = Prefilter.build(literal_sets, plain_bytes=EVERYTHING).pattern
    automaton = Prefilter.build(literal_sets, plain_bytes=0).pattern
    assert plain is not None and automaton is not None
    return plain, automaton


def _compare_line_by_line(literal_sets: list[Literals | None], logs: list[bytes]) -> int:
    plain, automaton = _both(literal_sets)
    re2_find, hyperscan_find = _finders(literal_sets)
    plain_selector = ProbeSelector(literal_sets, plain_lines=EVERYTHING)
    set_selector = ProbeSelector(literal_sets, plain_lines=0)
    hyperscan_search = Prefilter.build(literal_sets, plain_bytes=0).pattern
    assert hyperscan_search is not None
    hyperscan_search.finder()
    hyperscan_selector = ProbeSelector(
        literal_sets, plain_lines=EVERYTHING, search=hyperscan_search, hyperscan_lines=EVERYTHING
    )
    compared = 0
    for data in logs:
        starts = _candidates(plain, data)
        assert starts == _candidates(automaton, data)
        assert starts == line_starts(re2_find, data) == line_starts(hyperscan_find, data)
        for start in starts:
            end = data.find(b"\n", start)
            shown = visible_line(data[start : len(data) if end < 0 else end].decode("utf-8", "replace"))
            assert plain_selector.select(shown) == set_selector.select(shown), shown
            assert hyperscan_selector.select(shown) == set_selector.select(shown), shown
            compared += 1
    assert automaton.compiled
    # the plain way stays plain unless a case-insensitive literal met a non-ASCII line (RE2's folding decides it)
    folding = any(literals is not None and literals.ignore_case for literals in literal_sets)
    assert plain.compiled == (folding and any(not data.isascii() for data in logs))
    assert set_selector.compiled
    return compared


def test_the_plain_way_finds_the_automaton_s_lines_and_probes_on_every_training_log(
    rule_pack: RuleSet,
) -> None:
    compiled = CompiledRules(rule_pack)
    literal_sets = [probe.literals for probe in compiled.probes]
    logs = [path.read_bytes() for path in sorted(TRAIN.rglob("*.log"))]
    assert len(logs) > 300
    assert _compare_line_by_line(literal_sets, logs) > 1000


def test_case_insensitive_literals_agree_and_a_non_ascii_line_goes_to_the_automaton() -> None:
    literal_sets: list[Literals | None] = [
        required_literals("Worker killed", ignore_case=False),
        required_literals("socket timeout", ignore_case=True),
        required_literals("(?i:disk) quota", ignore_case=False),
    ]
    lines = [
        b"INFO all good",
        b"SOCKET TIMEOUT after 3 s",
        b"Socket Timeout, retrying",
        b"disk Quota exceeded",  # a scoped (?i:) makes the whole literal case-insensitive (a wider net)
        b"DISK quota exceeded",
        b"Worker killed by signal 9",
        b"caf\xc3\xa9 \xe2\x80\xa6 socket timeout",  # non-ASCII, with a case-insensitive literal
        b"\xe2\x80\xa6 nothing here",
        b"soc\xe2\x84\xaaet timeout",  # the Kelvin sign folds to k in RE2's UTF-8 mode: RE2 decides
        b"\xe2\x80\xa6 Worker killed",  # non-ASCII, with a case-sensitive literal: a candidate either way
        b"\xe2\x84\xaa and \xc5\xbf alone",  # Kelvin and long s without a literal: Hyperscan asks RE2, no
        b"\xc5\xbfocket timeout",  # the long s folds to s: a candidate
        b"\xe2\x84\xaa then socket timeout",  # a Kelvin sign before the literal, in the same line
    ]
    data = b"\n".join(lines) + b"\n"
    plain, automaton = _both(literal_sets)
    starts = _candidates(plain, data)
    assert starts == _candidates(automaton, data)
    assert [data[start:].split(b"\n", 1)[0] for start in starts] == [
        lines[n] for n in (1, 2, 3, 4, 5, 6, 8, 9, 11, 12)
    ]
    re2_find, hyperscan_find = _finders(literal_sets)
    assert line_starts(re2_find, data) == line_starts(hyperscan_find, data) == starts

    def line_of(found: int) -> int:
        return -1 if found < 0 else data.rfind(b"\n", 0, found) + 1

    for cut in range(len(data)):  # from every position, not only a line's start; to every end
        assert line_of(re2_find(data, cut, len(data))) == line_of(hyperscan_find(data, cut, len(data))), cut
        assert line_of(re2_find(data, 0, cut)) == line_of(hyperscan_find(data, 0, cut)), cut
    assert plain.compiled  # the first non-ASCII line without a case-sensitive literal compiled the automaton

    selector = ProbeSelector(literal_sets, plain_lines=EVERYTHING)
    assert selector.select("a SOCKET timeout and a Disk quota") == [1, 2]
    assert not selector.compiled
    assert selector.select("socket timeout \u2026") == [1]
    assert selector.compiled  # the Set answers for a non-ASCII line once a literal is case-insensitive

    # Once the pre-filter searches with Hyperscan, its database selects the probes of an ASCII line (no Set)
    search = Prefilter.build(literal_sets, plain_bytes=0).pattern
    assert search is not None
    search.finder()
    assert search.hyperscan_search() is not None
    selector = ProbeSelector(literal_sets, plain_lines=0, search=search)
    assert selector.select("a SOCKET timeout and a Disk quota, Worker killed") == [0, 1, 2]
    assert selector.select("nothing") == []
    assert not selector.compiled
    assert selector.select("soc\u212aet timeout") == [1]  # Kelvin: the Set decides, as RE2 folds it
    assert selector.compiled
    selector = ProbeSelector(literal_sets, plain_lines=EVERYTHING, search=search, hyperscan_lines=2)
    assert selector.select("Worker killed") == [0] and not selector.compiled
    assert (
        selector.select("worker KILLED, socket timeout") == [1] and selector.compiled
    )  # its budget is spent
    assert selector.select("Worker killed") == [0]


def test_hyperscan_s_one_scan_a_block_finds_re2_s_lines_past_the_matches_one_scan_records() -> None:
    """One scan records at most SCAN_MATCHES matches; a block holding more is scanned again from the line asked
    for once they are passed: lines dense with matches, one line holding thousands, and lines without any."""
    literal_sets: list[Literals | None] = [
        required_literals("Worker killed", ignore_case=False),
        required_literals("socket timeout", ignore_case=True),
    ]
    lines = [
        b"Worker killed, Socket Timeout, worker killed: Worker killed" if n % 3 else b"all good"
        for n in range(3000)
    ]
    lines[1000] = b"SOCKET TIMEOUT " * (2 * SCAN_MATCHES) + b"Worker killed"
    lines[2000] = b"quiet " * 5000
    data = b"\n".join(lines) + b"\n"
    re2_find, hyperscan_find = _finders(literal_sets)
    starts = line_starts(re2_find, data)
    assert len(starts) == 1999 and data.count(b"Worker killed") > 2 * SCAN_MATCHES
    assert line_starts(hyperscan_find, data) == starts

    def line_of(found: int) -> int:
        return -1 if found < 0 else data.rfind(b"\n", 0, found) + 1

    for cut in range(0, len(data), 997):  # from positions within lines too, and back to an earlier one
        assert line_of(hyperscan_find(data, cut, len(data))) == line_of(re2_find(data, cut, len(data))), cut
        assert line_of(hyperscan_find(data, 0, cut)) == line_of(re2_find(data, 0, cut)), cut


def test_a_literal_search_compiles_the_automaton_once_past_its_byte_budget() -> None:
    search = Prefilter.build([required_literals("Worker killed", ignore_case=False)], plain_bytes=100).pattern
    assert search is not None
    block = b"x\n" * 30 + b"Worker killed\n"
    assert search.search(block, 0) is not None and not search.compiled  # 74 bytes of the 100
    assert search.search(block, 10) is not None and not search.compiled  # the same block again: not counted
    assert search.search(block[:-1], 0) is not None and search.compiled  # 73 more: past the budget
    assert search.search(b"y\n", 0) is None


@pytest.mark.parametrize("plain_bytes", [0, EVERYTHING], ids=["automata", "plain"])
def test_either_way_a_scan_finds_what_matching_every_line_finds(tmp_path: Path, plain_bytes: int) -> None:
    rules = rules_from(
        tmp_path,
        rule_toml("x.oom", "(?i)out of memory on (?P<device>cuda:\\d+)", example="Out of memory on cuda:1"),
        rule_toml("x.wrapper", "wrapper failed", kind="symptom"),
    )
    compiled = CompiledRules(rules, plain_bytes=plain_bytes, plain_lines=plain_bytes)
    slow = CompiledRules(rules, use_literals=False)
    lines = [f"INFO step {number}" for number in range(400)]
    lines[50] = "\x1b[31mERROR\x1b[0m OUT OF MEMORY on cuda:3"
    lines[60] = "RuntimeError: wrapper failed"
    lines[70] = "\u2026 RuntimeError: wrapper failed again"  # non-ASCII: its literal is case-sensitive
    data = ("\n".join(lines) + "\n").encode()
    fast = scan_stream(io.BytesIO(data), compiled, name="log")
    assert fast.hits == scan_stream(io.BytesIO(data), slow, name="log").hits
    assert sorted((hit.line, hit.captures) for hits in fast.hits.values() for hit in hits) == [
        (51, (("device", "cuda:3"),)),
        (61, ()),
        (71, ()),
    ]
    assert fast.counts == {0: 1, 1: 2}
    assert compiled.prefilter.pattern is not None
    assert compiled.prefilter.pattern.compiled is (plain_bytes == 0)


def test_past_the_plain_way_re2_searches_a_medium_input_and_hyperscan_a_big_one() -> None:
    sensitive, insensitive = {b"Worker killed"}, {b"socket timeout"}
    search = LiteralSearch(sensitive, insensitive, plain_bytes=100, hyperscan_bytes=1000)
    kept = LiteralSearch(sensitive, insensitive, plain_bytes=100, hyperscan=False, hyperscan_bytes=0)
    assert search.engine == kept.engine == "plain"
    first = b"x\n" * 300 + b"Worker killed\n"  # past the plain way's 100 bytes; 614 of RE2's 1000
    second = b"SOCKET TIMEOUT\n" + b"y\n" * 300  # 615 more: past them
    assert search.find(first, 0, len(first)) == kept.find(first, 0, len(first)) == 600
    assert (search.engine, kept.engine) == ("re2", "re2")
    assert (
        search.find(first, 601, len(first)) == -1 and search.engine == "re2"
    )  # the same block: counted once
    assert search.find(second, 0, len(second)) == kept.find(second, 0, len(second)) == 0
    assert (search.engine, kept.engine) == ("hyperscan", "re2")
    assert search.find(second, 15, len(second)) == kept.find(second, 15, len(second)) == -1


def test_before_forking_the_fastest_search_is_compiled_at_once() -> None:
    literal_sets: list[Literals | None] = [required_literals("Worker killed", ignore_case=False)]
    search = Prefilter.build(literal_sets).pattern
    kept = Prefilter.build(literal_sets, hyperscan=False).pattern
    assert search is not None and kept is not None
    search.finder()
    kept.finder()
    assert (search.engine, kept.engine) == ("hyperscan", "re2")
