"""The kept output of `regex`'s compiler (forensics/regex_code.py): a warm one-line analyze never imports `regex`'s
Python parser, every stored entry is exactly what `regex` compiles today, patterns built from the table match as
`regex.compile`'s do, nothing is written where bytecode is not, and a damaged table is ignored."""

from __future__ import annotations

import json
import marshal
import os
import subprocess
import sys
from pathlib import Path

import pytest
import regex

from forensics import regex_code
from forensics.rules.model import RuleSet

REPOSITORY = Path(__file__).resolve().parents[1]
ONE_LINE = (
    "[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total "
    "capacity of 22.03 GiB of which 1.20 GiB is free.\n"
)
# A one-line analyze in a fresh interpreter: which parts of `regex` it loaded, where the table lives, its verdict.
ANALYZE = """
import json, sys
from forensics.cli.main import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
import forensics.regex_code as kept
loaded = sorted(name for name in sys.modules if name == "regex" or name.startswith("regex."))
print(json.dumps({"loaded": loaded, "table": kept._table_path()}), file=sys.stderr)
"""


# Every entry of a table against what `regex.compile` hands its engine now. `regex` lists the members of some sets
# (a pattern's possible first characters) in the order a Python set gives them, which differs between processes:
# the code is compared as the same integers in some order, everything else exactly (the shipped patterns' test
# below compares matches).
COMPARE = """
import json, marshal, sys
from forensics import regex_code
data = open(sys.argv[1], "rb").read()
entries = marshal.loads(data[data.index(b"\\n") + 1 :])
def canonical(arguments):
    return (arguments[0], sorted(arguments[1]), len(arguments[1]), *arguments[2:])
differ = [
    pattern
    for (pattern, flags), stored in entries.items()
    if canonical(marshal.loads(stored)) != canonical(marshal.loads(regex_code._compile_and_record(pattern, flags)[1]))
]
print(json.dumps({"differ": differ, "same": len(entries) - len(differ)}))
"""


def _analyze(folder: Path, *, write: bool, text: bool = False) -> dict[str, object]:
    log = folder / "one-line.log"
    log.write_text(ONE_LINE)
    report = folder / "report.json"
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    env.update(PYTHONPYCACHEPREFIX=str(folder / "bytecode"), PYTHONPATH=str(REPOSITORY))
    if not write:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    output = [] if text else ["--format", "json", "--output", str(report)]
    run = subprocess.run(
        [sys.executable, "-c", ANALYZE, "analyze", str(log), *output],
        capture_output=True,
        text=True,
        check=True,
        env=env,
        cwd=folder,
    )
    if text:
        assert "torch.cuda-oom" in run.stdout
    else:
        document = json.loads(report.read_text())
        assert [test["root_cause"]["rule"] for test in document["tests"]] == ["torch.cuda-oom"]
    result: dict[str, object] = json.loads(run.stderr.strip().splitlines()[-1])
    return result


def _stored(table: Path) -> dict[tuple[str, int], bytes]:
    data = table.read_bytes()
    header_end = data.index(b"\n") + 1
    entries: dict[tuple[str, int], bytes] = marshal.loads(data[header_end:])
    return entries


def test_the_flag_values_are_regex_s() -> None:
    assert (regex_code.IGNORECASE, regex_code.VERBOSE) == (regex.IGNORECASE, regex.VERBOSE)
    assert (regex_code._LOCALE, regex_code._VERSION0) == (regex.LOCALE, regex.VERSION0)
    assert regex.DEFAULT_VERSION == regex.VERSION0


def test_a_warm_one_line_analyze_loads_only_regex_s_engine_and_the_table_holds_fresh_compiles(
    tmp_path: Path,
) -> None:
    first = _analyze(
        tmp_path, write=True
    )  # validates the pack (`regex` itself), keeps the normaliser's patterns
    assert "regex._regex_core" in first["loaded"]
    table = Path(str(first["table"]))
    assert table.is_relative_to(tmp_path) and table.name.startswith("_regex_code.")
    assert (
        "regex._regex_core" in _analyze(tmp_path, write=True)["loaded"]
    )  # a pack cache hit: the rule's kept
    warm = _analyze(tmp_path, write=True)
    assert warm["loaded"] == ["regex._regex"]
    assert len(_stored(table)) >= 5  # the normaliser's, the matching rule's patterns
    verify = subprocess.run(
        [sys.executable, "-c", COMPARE, str(table)],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": str(REPOSITORY)},
    )
    assert json.loads(verify.stdout) == {"differ": [], "same": len(_stored(table))}


def test_the_text_report_needs_no_more_of_regex_than_its_engine(tmp_path: Path) -> None:
    """A replacement template (`r"\\1\\\\"`) has `regex` import its Python parser: the renderers' escaping uses none."""
    for _ in range(3):  # validates the pack; keeps the rule's patterns; warm
        loaded = _analyze(tmp_path, write=True, text=True)["loaded"]
    assert loaded == ["regex._regex"]


def test_nothing_is_written_where_bytecode_is_not(tmp_path: Path) -> None:
    first = _analyze(tmp_path, write=False)
    assert not Path(str(first["table"])).exists()
    assert "regex._regex_core" in _analyze(tmp_path, write=False)["loaded"]


@pytest.mark.parametrize("content", [b"", b"garbage\n", None], ids=["empty", "foreign", "corrupt"])
def test_a_damaged_table_is_ignored_and_written_afresh(tmp_path: Path, content: bytes | None) -> None:
    table = Path(str(_analyze(tmp_path, write=True)["table"]))
    _analyze(tmp_path, write=True)
    table.write_bytes(content if content is not None else table.read_bytes()[:300])
    assert "regex._regex_core" in _analyze(tmp_path, write=True)["loaded"]
    assert _analyze(tmp_path, write=True)["loaded"] == ["regex._regex"]


def test_an_entry_of_another_regex_installation_is_not_used(tmp_path: Path) -> None:
    table = Path(str(_analyze(tmp_path, write=True)["table"]))
    data = table.read_bytes()
    header, _, rest = data.partition(b"\n")
    table.write_bytes(
        header.replace(b"_main.py:", b"_main.py:1") + b"\n" + rest
    )  # another size of regex/_main.py
    assert "regex._regex_core" in _analyze(tmp_path, write=True)["loaded"]


def test_every_shipped_pattern_built_from_its_entry_matches_as_regex_compile_s_does(
    tmp_path: Path, rule_pack: RuleSet
) -> None:
    table = tmp_path / "table.pyc"
    writer = regex_code._CompiledPatterns(str(table))
    cases = [
        (pattern, [example.text for example in (*rule.examples, *rule.near_misses)])
        for rule in rule_pack.rules
        for pattern in (*rule.patterns, *rule.requires, *rule.excludes, *rule.context)
    ]
    for pattern, _ in cases:
        writer.compile(pattern.pattern, pattern.flags)
    writer.table.save()
    reader = regex_code._CompiledPatterns(str(table))
    for pattern, texts in cases:
        built = reader.compile(pattern.pattern, pattern.flags)
        fresh = regex.compile(pattern.pattern, pattern.flags)
        assert (built.pattern, built.flags, built.groupindex, built.groups) == (
            fresh.pattern,
            fresh.flags,
            fresh.groupindex,
            fresh.groups,
        )
        for text in texts:
            mine, theirs = built.search(text), fresh.search(text)
            assert (mine and (mine.span(), mine.groupdict())) == (
                theirs and (theirs.span(), theirs.groupdict())
            )
    assert len(cases) > 300
    assert not reader.table.added  # every pattern was built from the file


def test_a_pattern_built_from_the_table_pickles_as_regex_s_own(tmp_path: Path) -> None:
    """regex/_main.py registers how a pattern pickles; a run that never imports it registers the same."""
    code = (
        "import pickle, sys\n"
        "from forensics import regex_code\n"
        "built = regex_code.compile_pattern(r'(?P<word>\\w+) out of memory', regex_code.IGNORECASE)\n"
        "assert 'regex._main' not in sys.modules, sorted(sys.modules)\n"
        "again = pickle.loads(pickle.dumps(built))\n"
        "print(again.pattern == built.pattern, again.flags == built.flags, again.search('CUDA Out of memory')['word'])\n"
    )
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    env.update(PYTHONPYCACHEPREFIX=str(tmp_path / "bytecode"), PYTHONPATH=str(REPOSITORY))
    for _ in range(2):  # the first run keeps the pattern, the second builds it from the table
        run = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False
        )
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["True", "True", "CUDA"]
