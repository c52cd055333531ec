"""The scanner and the verdict: which rule becomes the root cause, and that scanning is exact and bounded."""

from __future__ import annotations

import importlib.util
import io
import re
from pathlib import Path

import pytest
import re2  # type: ignore[import-untyped]
from hypothesis import given
from hypothesis import strategies as st

from forensics.engine.prefilter import first_match_finder
from forensics.engine.scanner import (
    SIMD_COUNT_BYTES,
    CompiledRules,
    ScanLimits,
    bytes_count,
    line_counter,
    scan_stream,
    scan_text,
)
from forensics.engine.verdict import decide
from forensics.engine.verdict_inputs import ScannedLog
from forensics.model import LogRef, Status, TestCase
from tests.support.rulebook import rule_toml, rules_from


def _verdict(tmp_path: Path, log: str, *tables: str, message: str = ""):  # type: ignore[no-untyped-def]
    compiled = CompiledRules(rules_from(tmp_path, *tables))
    ref = LogRef(input_label="t", source="bash.log.txt", attachment="bash.log.txt", location="result", rank=0)
    logs = [ScannedLog(ref, scan_text(log, compiled, name="bash.log.txt"))]
    test = TestCase(uuid="u", name="t", full_name="t", status=Status.BROKEN, input_label="t", message=message)
    return decide(test, logs, compiled)


def test_a_symptom_never_wins_over_a_cause(tmp_path: Path) -> None:
    log = "boom cause here\nwrapper failed\n"
    verdict = _verdict(
        tmp_path,
        log,
        rule_toml("x.wrapper", "wrapper failed", kind="symptom", priority=100),
        rule_toml("x.cause", "boom cause"),
    )
    assert verdict.root_cause is not None and verdict.root_cause.rule_id == "x.cause"
    assert [s.rule_id for s in verdict.symptoms] == ["x.wrapper"]
    assert verdict.root_cause.evidence.line == 1


def test_only_symptoms_means_unexplained_with_a_fingerprint(tmp_path: Path) -> None:
    log = "INFO starting\nRuntimeError: wrapper failed after 300s on port 8000\n"
    verdict = _verdict(tmp_path, log, rule_toml("x.wrapper", "wrapper failed", kind="symptom"))
    assert verdict.root_cause is None
    assert verdict.fingerprint is not None
    assert verdict.fingerprint.masked == "RuntimeError: wrapper failed after <duration> on port <num>"
    assert verdict.fingerprint.evidence is not None and verdict.fingerprint.evidence.line == 2


def test_priority_then_error_line_then_earliest(tmp_path: Path) -> None:
    oom, auth = rule_toml("x.oom", "CUDA out of memory"), rule_toml("x.auth", "401 Client Error")
    warning_first = "WARNING 11-28 08:14:19 [x.py:1] retrying: CUDA out of memory\nRuntimeError: 401 Client Error for url\n"
    verdict = _verdict(tmp_path, warning_first, oom, auth)
    assert verdict.root_cause is not None
    assert (verdict.root_cause.rule_id, verdict.root_cause.evidence.line) == (
        "x.auth",
        2,
    )  # error beats an earlier warning
    error_first = "ERROR 11-28 08:14:19 [x.py:1] CUDA out of memory\nRuntimeError: 401 Client Error for url\n"
    verdict = _verdict(tmp_path, error_first, oom, auth)
    assert verdict.root_cause is not None
    assert (verdict.root_cause.rule_id, verdict.root_cause.evidence.line) == ("x.oom", 1)  # then the earliest
    verdict = _verdict(tmp_path, error_first, oom, rule_toml("x.auth", "401 Client Error", priority=60))
    assert verdict.root_cause is not None and verdict.root_cause.rule_id == "x.auth"  # priority first


def test_a_general_rule_yields_to_a_specific_cause_on_the_same_or_an_earlier_line(tmp_path: Path) -> None:
    general = rule_toml("x.any-cuda", "CUDA error: ", priority=90, extra="general = true")
    specific = rule_toml("x.cuda-oom", "CUDA error: out of memory", priority=40)
    same_line = "RuntimeError: CUDA error: out of memory\n"
    verdict = _verdict(tmp_path, same_line, general, specific)
    assert (
        verdict.root_cause is not None and verdict.root_cause.rule_id == "x.cuda-oom"
    )  # despite priority 90
    earlier_real_cause = (
        "RuntimeError: CUDA error: out of memory\nRuntimeError: CUDA error: unspecified launch failure\n"
    )
    verdict = _verdict(tmp_path, earlier_real_cause, general, specific)
    assert verdict.root_cause is not None and verdict.root_cause.rule_id == "x.cuda-oom"


def test_a_general_rule_wins_with_the_earliest_fatal_error(tmp_path: Path) -> None:
    general = rule_toml("x.any-cuda", "CUDA error: ", priority=30, extra="general = true")
    later = rule_toml("x.watchdog", "Watchdog caught collective operation timeout", priority=70)
    log = (
        "torch.AcceleratorError: CUDA error: unspecified launch failure\n"
        "[E ProcessGroupNCCL.cpp:1] Watchdog caught collective operation timeout\n"
    )
    verdict = _verdict(tmp_path, log, general, later)
    assert verdict.root_cause is not None
    assert (verdict.root_cause.rule_id, verdict.root_cause.evidence.line) == ("x.any-cuda", 1)
    # only an error line counts as the earliest fatal error: a warning or plain line before the cause does not
    warning_first = (
        "WARNING 11-28 08:14:19 [x.py:1] retrying after CUDA error: unspecified launch failure\n"
        "RuntimeError: Watchdog caught collective operation timeout\n"
    )
    verdict = _verdict(tmp_path, warning_first, general, later)
    assert verdict.root_cause is not None and verdict.root_cause.rule_id == "x.watchdog"
    verdict = _verdict(tmp_path, "RuntimeError: CUDA error: unknown error\n", general, later)
    assert (
        verdict.root_cause is not None and verdict.root_cause.rule_id == "x.any-cuda"
    )  # alone, it names the cause


def test_a_specific_rule_on_the_general_rules_earliest_line_is_named_instead(tmp_path: Path) -> None:
    general = rule_toml("x.any-cuda", "CUDA error: ", priority=50, extra="general = true")
    cuda_oom = rule_toml("x.cuda-oom", "CUDA error: out of memory", priority=60)
    later = rule_toml("x.startup", "Free memory on device", priority=70)
    log = "torch.AcceleratorError: CUDA error: out of memory\nValueError: Free memory on device cuda:0 is too low\n"
    verdict = _verdict(tmp_path, log, general, cuda_oom, later)
    assert verdict.root_cause is not None
    assert (verdict.root_cause.rule_id, verdict.root_cause.evidence.line) == ("x.cuda-oom", 1)


def test_a_general_rule_always_yields_to_a_specific_rule_of_its_own_family(tmp_path: Path) -> None:
    general = rule_toml(
        "x.nccl-any", "NCCL error in: ", priority=30, extra="general = true\nspecifics = ['x.nccl-*']"
    )
    detail = rule_toml("x.nccl-no-interface", "no socket interface found", priority=75)
    log = (
        "torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1207, internal error\n"
        "Last error:\n"
        "Bootstrap : no socket interface found\n"
    )
    verdict = _verdict(tmp_path, log, general, detail)
    assert verdict.root_cause is not None
    assert (verdict.root_cause.rule_id, verdict.root_cause.evidence.line) == ("x.nccl-no-interface", 3)
    other_family = rule_toml("x.other", "no socket interface found", priority=75)
    verdict = _verdict(tmp_path, log, general, other_family)
    assert (
        verdict.root_cause is not None and verdict.root_cause.rule_id == "x.nccl-any"
    )  # earliest fatal error


def test_general_must_be_a_boolean_on_a_cause(tmp_path: Path) -> None:
    import pytest

    from forensics.errors import RulesError

    with pytest.raises(RulesError, match="general"):
        rules_from(tmp_path, rule_toml("x.a", "boom", extra='general = "yes"'))
    with pytest.raises(RulesError, match="general"):
        rules_from(tmp_path, rule_toml("x.b", "boom", kind="symptom", extra="general = true"))
    with pytest.raises(RulesError, match="specifics"):
        rules_from(tmp_path, rule_toml("x.c", "boom", extra="specifics = ['x.*']"))


def test_requires_and_excludes_are_checked_over_the_whole_log(tmp_path: Path) -> None:
    table = rule_toml(
        "x.killed",
        "^Killed$",
        extra="requires = ['''exit code 137''']\nexcludes = ['''expected kill''']",
        example="Killed\nexit code 137",
    )
    assert _verdict(tmp_path, "Killed\n", table).root_cause is None
    assert _verdict(tmp_path, "Killed\nProcess exited with exit code 137\n", table).root_cause is not None
    assert _verdict(tmp_path, "expected kill\nKilled\nexit code 137\n", table).root_cause is None


def test_captured_and_derived_values_fill_the_summary(tmp_path: Path) -> None:
    table = """
[[rule]]
id = "x.mem"
title = "mem"
category = "infrastructure"
kind = "cause"
patterns = ['''wanted (?P<want>[\\d.]+) GiB, had (?P<have>[\\d.]+) GiB''']
summary = "short by {short} GiB"
advice = "free it"
[rule.derive]
short = "round(want - have, 2)"
[[rule.examples]]
text = "wanted 2 GiB, had 1 GiB"
"""
    verdict = _verdict(tmp_path, "x\n[BASH] wanted 19.83 GiB, had 19.5 GiB\n", table)
    assert verdict.root_cause is not None
    assert verdict.root_cause.summary == "short by 0.33 GiB"
    assert dict(verdict.root_cause.fields) == {"want": 19.83, "have": 19.5, "short": 0.33}
    assert verdict.root_cause.evidence.text == "[BASH] wanted 19.83 GiB, had 19.5 GiB"


def _big_log() -> str:
    lines = []
    for number in range(1, 5001):
        if number == 1234:
            lines.append(
                "[BASH] (EngineCore_DP0 pid=1) ERROR 11-28 08:14:19 [core.py:1] ValueError: boom cause 42"
            )
        elif number == 4321:
            lines.append("\x1b[1;36m(APIServer pid=2)\x1b[0m RuntimeError: wrapper failed")
        else:
            lines.append(
                f"[BASH] INFO 11-28 08:14:19 [x.py:{number}] step {number} of a long and boring startup"
            )
    return "\n".join(lines) + "\n"


def test_the_fast_re2_call_finds_what_search_finds_and_stops_at_the_end_given() -> None:
    """The scanner's finder calls RE2's compiled regexp directly; it must agree with `search`, and the `re`
    fallback (no RE2) too, on every position and end of the block."""
    data = b"no literal here\nsome boom line\nand xyz then boom\n"
    finders = [first_match_finder(re2.compile(b"boom|xyz")), first_match_finder(re.compile(b"boom|xyz"))]
    expected = re.compile(b"boom|xyz")
    for pos in range(len(data)):
        for end in range(pos, len(data) + 1):
            found = expected.search(data, pos, end)
            want = -1 if found is None else found.start()
            assert [find(data, pos, end) for find in finders] == [want, want], (pos, end)


def test_a_block_ends_at_its_last_line_break_not_where_the_read_stopped(tmp_path: Path) -> None:
    """The read that fills a block goes on into the next line; that line's start belongs to the next block:
    it is neither the hit line's context nor a candidate line twice, and the tail holds it once."""
    compiled = CompiledRules(rules_from(tmp_path, rule_toml("x.cause", "boom cause (?P<n>\\d+)")))
    head = b"first line\nsecond line\nboom cause 7\n"
    data = head + b"boom cause 8 spans the edge\nlast\n"
    scan = scan_stream(io.BytesIO(data), compiled, name="log", limits=ScanLimits(block_size=len(head) + 6))
    (first,) = [hit for hit in scan.hits[0] if hit.line == 3]
    assert [(line.number, line.text) for line in first.excerpt] == [
        (1, "first line"),
        (2, "second line"),
        (3, "boom cause 7"),
    ]
    assert scan.counts[0] == 2 and scan.lines == 5


def test_small_blocks_give_the_same_line_numbers_and_excerpts(tmp_path: Path) -> None:
    compiled = CompiledRules(
        rules_from(
            tmp_path,
            rule_toml("x.cause", "boom cause (?P<n>\\d+)"),
            rule_toml("x.wrapper", "wrapper failed", kind="symptom"),
        )
    )
    data = _big_log().encode()
    whole = scan_stream(io.BytesIO(data), compiled, name="log")
    tiny = scan_stream(io.BytesIO(data), compiled, name="log", limits=ScanLimits(block_size=97))

    def essence(scan):  # type: ignore[no-untyped-def]  # excerpts stop at block edges, the rest must agree
        return {n: [(h.line, h.level, h.captures, h.text) for h in hits] for n, hits in scan.hits.items()}

    assert essence(whole) == essence(tiny)
    assert sorted(h.line for hs in whole.hits.values() for h in hs) == [1234, 4321]
    assert whole.lines == tiny.lines == 5000
    first = whole.hits[0][0]
    assert [line.number for line in first.excerpt] == [1231, 1232, 1233, 1234, 1235, 1236]
    assert first.captures == (("n", "42"),)


def test_a_big_block_is_counted_by_stringzilla_where_installed_and_a_small_one_by_bytes_count() -> None:
    big = line_counter(SIMD_COUNT_BYTES)
    assert line_counter(SIMD_COUNT_BYTES - 1) is bytes_count
    assert (big is bytes_count) == (importlib.util.find_spec("stringzilla") is None)


@given(
    st.binary(max_size=300).map(lambda raw: raw.replace(b"\r", b"\n")),
    st.integers(min_value=0, max_value=320),
    st.integers(min_value=0, max_value=320),
)
def test_every_line_counter_counts_what_bytes_count_counts(data: bytes, start: int, end: int) -> None:
    """The scanner's and the re-read's ranges lie within the block; beyond it both clamp as slicing does."""
    data *= 300  # past SIMD_COUNT_BYTES at the longest: StringZilla's vector loop and its scalar tail
    for begin, stop in ((start, end), (start * 250, end * 300), (0, len(data)), (len(data) - end, len(data))):
        assert line_counter(SIMD_COUNT_BYTES)(data, begin, stop) == data.count(b"\n", begin, stop)


@pytest.mark.parametrize("hyperscan", [True, False], ids=["hyperscan", "re2"])
def test_the_prefilter_finds_exactly_what_matching_every_line_finds(
    tmp_path: Path, reference: Path, hyperscan: bool
) -> None:
    """The fast path (literal pre-filter) against the plain path (every line through every pattern): with the
    automata from the start (Hyperscan's search, or RE2's where it is not installed), and with the literals
    looked up one by one throughout (a small input's way)."""
    from forensics.rules.loader import load_rules

    compiled = CompiledRules(load_rules(), hyperscan=hyperscan)
    compiled.compile_automata()
    assert compiled.prefilter.pattern is not None
    assert compiled.prefilter.pattern.engine == ("hyperscan" if hyperscan else "re2")
    literal_by_literal = CompiledRules(load_rules(), plain_bytes=1 << 40, plain_lines=1 << 40)
    plain = CompiledRules(load_rules(), use_literals=False)
    logs = list((reference / "allure-results-pytest").glob("*-attachment.txt"))
    logs.append(tmp_path / "big.log")
    logs[-1].write_text(_big_log())
    assert len(logs) > 10
    for path in logs:
        with path.open("rb") as first, path.open("rb") as second:
            fast = scan_stream(first, compiled, name=path.name)
            slow = scan_stream(second, plain, name=path.name)
        assert fast.hits == slow.hits, path.name
        assert fast.last_error == slow.last_error
        with path.open("rb") as third:
            assert scan_stream(third, literal_by_literal, name=path.name).hits == fast.hits, path.name
    assert literal_by_literal.prefilter.pattern is not None
    assert not literal_by_literal.prefilter.pattern.compiled and not literal_by_literal.selector.compiled


def test_a_line_turned_away_before_is_turned_away_again_only_when_its_digits_cannot_matter(
    tmp_path: Path,
) -> None:
    """Recurring candidate lines that no pattern can match are remembered with their digits masked; a twin
    line whose digits make a literal (or a required part) appear must still be matched, as the plain path
    matches it."""
    folder = rules_from(
        tmp_path,
        rule_toml("x.flash", "FlashInfer[^\\n]{0,80}version", example="FlashInfer version"),
        rule_toml("x.boom", "boom 42 happened"),
        rule_toml(
            "x.signal", "worker (?:died|exited)[^\\n]{0,40}signal 9\\b", example="worker died on signal 9"
        ),
    )
    fast, plain = CompiledRules(folder), CompiledRules(folder, use_literals=False)
    lines = [f"{n:05d} FlashInfer is off, boom {41 - n % 2} happened" for n in range(200)]
    lines += [f"{n:05d} worker died on signal 7" for n in range(200)]
    lines += [
        "00100 FlashInfer is off, boom 42 happened",
        "00100 worker died on signal 9",
        "FlashInfer version",
    ]
    lines += ["00100 FlashInfer is off, boom 40 happened"] * 3
    log = ("\n".join(lines) + "\n").encode()
    found = scan_stream(io.BytesIO(log), fast, name="log")
    assert fast.rejected.known(fast.rejected.key(b"00100 FlashInfer is off, boom 40 happened"))
    assert not fast.rejected.known(
        fast.rejected.key(b"00100 worker died on signal 7")
    )  # its rule needs a digit
    assert {
        fast.rules[fast.probes[n].rule_index].id: [h.line for h in hits] for n, hits in found.hits.items()
    } == {
        "x.boom": [401],
        "x.signal": [402],
        "x.flash": [403],
    }
    assert found.hits == scan_stream(io.BytesIO(log), plain, name="log").hits


def test_a_giant_line_without_breaks_is_matched_and_counted_as_one_line(tmp_path: Path) -> None:
    compiled = CompiledRules(rules_from(tmp_path, rule_toml("x.cause", "boom cause")))
    data = b"first\n" + b"x" * 300_000 + b" boom cause " + b"y" * 300_000 + b"\nlast line\n"
    scan = scan_stream(
        io.BytesIO(data), compiled, name="log", limits=ScanLimits(block_size=65536, max_line=100_000)
    )
    assert [hit.line for hit in scan.hits[0]] == [2]
    assert scan.lines == 3


def test_a_backtracking_pattern_times_out_as_a_problem_not_a_hang(tmp_path: Path) -> None:
    compiled = CompiledRules(rules_from(tmp_path, rule_toml("x.slow", "start(a|aa)+$", example="startaa")))
    line = "start" + "a" * 5000 + "b\n"
    scan = scan_text(line * 3, compiled, name="log", limits=ScanLimits(regex_timeout=0.05))
    assert scan.hits == {}
    assert len(scan.problems) == 1
    assert "rule 'x.slow'" in scan.problems[0].object and "gave up" in scan.problems[0].message


def test_the_size_limit_truncates_with_a_problem(tmp_path: Path) -> None:
    compiled = CompiledRules(rules_from(tmp_path, rule_toml("x.cause", "boom cause")))
    data = b"boom cause\n" + b"filler line\n" * 10_000 + b"boom cause late\n"
    scan = scan_stream(
        io.BytesIO(data), compiled, name="big.log", limits=ScanLimits(max_bytes=4096, block_size=1024)
    )
    assert scan.truncated
    assert [hit.line for hit in scan.hits[0]] == [1]
    assert any("limit" in problem.message for problem in scan.problems)


def test_undecodable_bytes_are_replaced(tmp_path: Path) -> None:
    compiled = CompiledRules(rules_from(tmp_path, rule_toml("x.cause", "boom cause")))
    scan = scan_stream(io.BytesIO(b"\xff\xfe\x00junk\x80\nboom cause \xc3\x28\n"), compiled, name="log")
    assert scan.hits[0][0].line == 2
    assert "\ufffd" in scan.hits[0][0].text


def test_context_patterns_fill_values_from_other_lines(tmp_path: Path) -> None:
    table = rule_toml(
        "x.gated",
        "GatedRepoError: (?P<status>\\d{3})",
        extra="context = ['''Access to model (?P<repo>\\S+) is restricted''', '''status (?P<status>\\d+)''']",
        example="GatedRepoError: 401",
    ).replace('summary = "x.gated happened"', 'summary = "{repo|?} {status}"')
    log = "status 999\nGatedRepoError: 401 Client Error\nAccess to model org/model is restricted.\n"
    verdict = _verdict(tmp_path, log, table)
    assert verdict.root_cause is not None
    assert verdict.root_cause.summary == "org/model 401"  # the evidence line's own value wins
    assert verdict.root_cause.evidence.line == 2


def test_a_candidate_line_missing_a_second_literal_is_not_matched_and_a_whole_one_is(tmp_path: Path) -> None:
    pattern = r"(?P<package>[Ff]lash[Ii]nfer)[^\n]{0,80}?version[^\n]{0,40}?(?:is not supported|too old)"
    compiled = CompiledRules(
        rules_from(tmp_path, rule_toml("x.version", pattern, example="FlashInfer version 0.1 is too old"))
    )
    healthy = "FlashInfer is not available. Falling back to the PyTorch-native implementation"
    assert compiled.possible(0, "x FlashInfer y") is False  # the pre-filter's literal alone is not enough
    assert compiled.possible(0, "FlashInfer version 0.1 is too old") is True
    log = "\n".join(
        [healthy] * 50 + ["\x1b[33mWARN\x1b[0m flashinfer version 0.2 is not supported"] + [healthy]
    )
    scan = scan_text(log + "\n", compiled, name="log")
    assert [(hit.line, hit.captures) for hit in scan.hits[0]] == [(51, (("package", "flashinfer"),))]
    plain = CompiledRules(rules_from(tmp_path, rule_toml("x.version", pattern)), use_literals=False)
    assert scan_text(log + "\n", plain, name="log").hits == scan.hits


def test_a_candidate_line_needs_every_literal_of_one_branch_and_is_then_turned_away_by_its_key(
    tmp_path: Path,
) -> None:
    # the first branch's last literal is in vLLM's healthy FlashInfer warning; its other two never are
    pattern = (
        r"(?:Error|Exception): [^\n]{0,80}(?:[Cc]uda|CUDA|GPU)[^\n]{0,40}(?:is not available|unavailable)"
        r"|No CUDA GPUs are available"
    )
    table = rule_toml("x.no-gpu", pattern, example="RuntimeError: CUDA is not available")
    compiled = CompiledRules(rules_from(tmp_path, table))
    healthy = (
        "WARNING 12-01 10:00:{n:02d} [sampler.py:58] FlashInfer is not available. Falling back to PyTorch"
    )
    assert compiled.possible(0, healthy.format(n=1)) is False  # one literal of the first branch is not enough
    assert compiled.possible(0, "RuntimeError: CUDA is not available") is True
    assert compiled.possible(0, "No CUDA GPUs are available") is True
    lines = [healthy.format(n=n) for n in range(100)]
    lines[40] = "E   RuntimeError: Found no GPU: CUDA is not available"
    lines[90] = "No CUDA GPUs are available"
    log = "\n".join(lines) + "\n"
    scan = scan_text(log, compiled, name="log")
    assert [hit.line for hit in scan.hits[0]] == [41, 91]
    rejected = compiled.rejected
    assert rejected.known(rejected.key(healthy.format(n=99).encode()))  # its twins are turned away unread
    plain = CompiledRules(rules_from(tmp_path, table), use_literals=False)
    assert scan_text(log, plain, name="log").hits == scan.hits
