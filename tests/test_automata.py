"""Hyperscan's database kept between runs (rules/automata.py): read back, it finds exactly the lines the compiled
one finds, on every real log of the training corpus; a damaged file is compiled again, never used; another set
of literals is another entry; with a store, the plain search hands over to Hyperscan directly (no RE2 stage)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from forensics.engine.prefilter import LiteralSearch, Prefilter, first_match_finder
from forensics.engine.scanner import CompiledRules
from forensics.rules.automata import MAX_ENTRIES, AutomatonStore, database_key
from forensics.rules.literals import Literals
from forensics.rules.model import RuleSet
from tests.support.line_walk import line_starts

TRAIN = Path(__file__).parent / "corpus" / "train"


def _hyperscan(literal_sets: list[Literals | None], store: AutomatonStore | None) -> Callable[..., int]:
    search = Prefilter.build(literal_sets, plain_bytes=0, store=store).pattern
    assert search is not None
    finder = search.hyperscan_finder()
    assert finder is not None
    return finder


def _stored(store: AutomatonStore) -> list[Path]:
    return sorted(store.directory.glob("*.hs"))


def test_a_stored_database_finds_the_compiled_one_s_lines_on_every_training_log(
    rule_pack: RuleSet, tmp_path: Path
) -> None:
    literal_sets = [probe.literals for probe in CompiledRules(rule_pack).probes]
    store = AutomatonStore(tmp_path / "automata")
    compiled = _hyperscan(literal_sets, store)  # compiled, then saved
    [saved] = _stored(store)
    written = saved.stat().st_mtime_ns
    read = _hyperscan(literal_sets, store)  # read back: nothing compiled, nothing written
    assert _stored(store) == [saved] and saved.stat().st_mtime_ns == written
    search = Prefilter.build(literal_sets, plain_bytes=0).pattern
    assert search is not None
    re2 = first_match_finder(search.compile())
    logs = [path.read_bytes() for path in sorted(TRAIN.rglob("*.log"))]
    assert len(logs) > 300
    lines = 0
    for data in logs:
        starts = line_starts(compiled, data)
        assert line_starts(read, data) == starts == line_starts(re2, data)
        lines += len(starts)
    assert lines > 1000


def test_a_damaged_database_file_is_compiled_again_and_rewritten(tmp_path: Path) -> None:
    literal_sets: list[Literals | None] = [
        Literals(alternatives=("Worker killed",), ignore_case=False),
        Literals(alternatives=("socket timeout",), ignore_case=True),
    ]
    data = b"ok\nSOCKET TIMEOUT after 3 s\nfine\nWorker killed by signal 9\n"
    store = AutomatonStore(tmp_path)
    expected = line_starts(_hyperscan(literal_sets, None), data)
    assert expected == [3, 33]
    _hyperscan(literal_sets, store)
    [saved] = _stored(store)
    whole = saved.read_bytes()
    for damaged in (whole[: len(whole) // 2], whole[:-1] + bytes([whole[-1] ^ 1]), b"", whole[:32]):
        saved.write_bytes(damaged)
        assert store.load(saved.stem) is None
        assert line_starts(_hyperscan(literal_sets, store), data) == expected
        assert saved.read_bytes() == whole  # compiled again and rewritten


def test_another_literal_flag_order_or_version_is_another_database() -> None:
    key = database_key("0.9.1", [b"Worker killed", b"socket timeout"], [0, 2])
    assert key == database_key("0.9.1", [b"Worker killed", b"socket timeout"], [0, 2])
    assert (
        len(
            {
                key,
                database_key("0.9.2", [b"Worker killed", b"socket timeout"], [0, 2]),
                database_key("0.9.1", [b"Worker killed", b"socket timeout"], [0, 0]),
                database_key("0.9.1", [b"socket timeout", b"Worker killed"], [0, 2]),
                database_key("0.9.1", [b"Worker killed", b"socket timeou"], [0, 2]),
                database_key("0.9.1", [b"Worker kille", b"dsocket timeout"], [0, 2]),
            }
        )
        == 6
    )


def test_with_a_store_the_plain_search_hands_over_to_hyperscan_with_no_re2_stage(tmp_path: Path) -> None:
    sensitive, insensitive = {b"Worker killed"}, {b"socket timeout"}
    store = AutomatonStore(tmp_path)
    search = LiteralSearch(sensitive, insensitive, plain_bytes=100, hyperscan_bytes=1000, store=store)
    first = b"x\n" * 300 + b"Worker killed\n"  # past the plain way's 100 bytes: RE2's stage without a store
    assert search.find(first, 0, len(first)) == 600
    assert search.engine == "hyperscan"
    assert len(_stored(store)) == 1
    again = LiteralSearch(sensitive, insensitive, plain_bytes=100, hyperscan_bytes=1000, store=store)
    second = b"SOCKET TIMEOUT\n" + b"y\n" * 300
    assert again.find(second, 0, len(second)) == 0 and again.engine == "hyperscan"
    assert again.find(second, 15, len(second)) == -1


def test_the_store_keeps_the_most_recently_written_databases(tmp_path: Path) -> None:
    store = AutomatonStore(tmp_path)
    for number in range(MAX_ENTRIES):
        store.save(f"k{number:02d}", b"database %d" % number)
        os.utime(tmp_path / f"k{number:02d}.hs", ns=(10**9 * (number + 1), 10**9 * (number + 1)))
    assert store.load("k00") == b"database 0"
    store.save("newest", b"database")
    kept = {path.stem for path in _stored(store)}
    assert len(kept) == MAX_ENTRIES and "k00" not in kept and {"k01", "newest"} <= kept
    assert [path for path in tmp_path.iterdir() if path.suffix != ".hs"] == []  # no temporary file left


def test_analyze_reads_the_database_it_saved_and_reports_the_same(tmp_path: Path) -> None:
    noise = "".join(
        f"INFO 11-28 08:14:{n % 60:02d} [loggers.py:116] Avg prompt throughput: {n}.0 tokens/s\n"
        for n in range(600)
    )
    log = tmp_path / "server.log"
    log.write_text(
        noise + "[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n" + noise
    )
    assert log.stat().st_size > 32 * 1024  # past the plain way: the automaton searches it
    command = [sys.executable, "-m", "forensics", "analyze", str(log), "--format", "json"]
    reports = []
    for _ in range(2):
        run = subprocess.run(command, capture_output=True, text=True, check=False)
        assert run.returncode == 0, run.stderr
        reports.append(json.loads(run.stdout)["tests"])
    assert reports[0] == reports[1]
    assert [test["root_cause"]["rule"] for test in reports[0]] == ["torch.cuda-oom"]
    store = AutomatonStore(Path(os.environ["XDG_CACHE_HOME"], "ci-forensics", "rules", "automata"))
    assert store.directory == AutomatonStore.default().directory
    assert len(_stored(store)) == 1
