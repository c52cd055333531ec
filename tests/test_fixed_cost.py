"""A small `analyze` pays only for what it uses: the fixed cost, guarded by what is loaded, not by a clock.

Each check runs the CLI in a fresh interpreter on a one-line log (the rule pack cache warm, as on every run
after the first) and looks at `sys.modules` afterwards, or counts the patterns compiled while importing the
command. An eager import or a module-level pattern anywhere on the way fails here by name; a timed test
would only fail on a quiet machine (docs/performance.md has the figures and how to measure them).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.loaded_modules import loaded_after

ONE_LINE = (
    "[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total "
    "capacity of 22.03 GiB of which 1.20 GiB is free.\n"
)
# What a one-line analyze never needs: HTTP, databases, the store, tickets, the dashboard, the download side,
# the process pool (below 32 MiB of logs nothing forks), TOML (a pack cache hit), the likely-cause picker, the
# fatal-line tier and the learned family model (the failure is explained), the renderers of the formats not asked for,
# zip support (a plain log), RE2 and Hyperscan (a few lines are checked literal by literal: engine/prefilter.py),
# StringZilla (a small block's line breaks are counted by `bytes.count`: engine/scanner.py), platformdirs (the cache folder is
# found without it on Linux) and what those two pull in (tempfile, shutil, bz2, lzma), hashlib (OpenSSL: a one-line
# log and the redactor's secrets are hashed with the interpreter's own SHA-256, forensics/digest.py; the pack cache
# is found by the rule files' stat, rules/cache.py).
NEVER = (
    "hashlib",
    "_hashlib",
    "zipfile",
    "tempfile",
    "shutil",
    "bz2",
    "lzma",
    "re2",
    "hyperscan",
    "stringzilla",
    *(["platformdirs"] if sys.platform == "linux" else []),
    "requests",
    "urllib3",
    "sqlite3",
    "psycopg",
    "forensics.store",
    "forensics.annotate",
    "forensics.dashboard",
    "forensics.services",
    "forensics.sinks",
    "forensics.sources",
    "forensics.usecases.backtest",
    "forensics.usecases.lint",
    "forensics.usecases.healthy_load",
    "multiprocessing",
    "concurrent.futures",
    "tomllib",
    "forensics.engine.likely",
    "forensics.engine.fatal_line",
    "forensics.engine.learned",
    "forensics.engine.cause_gate",
    "forensics.render.markdown",
    "forensics.render.github",
    "forensics.render.history",
)


@pytest.fixture
def one_line_log(tmp_path: Path) -> Path:
    log = tmp_path / "one-line.log"
    log.write_text(ONE_LINE)
    warm = subprocess.run(  # fills the pack cache (the autouse fixture points it into a temporary folder)
        [sys.executable, "-m", "forensics", "analyze", str(log), "--format", "json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert warm.returncode == 0, warm.stderr
    assert [test["root_cause"]["rule"] for test in json.loads(warm.stdout)["tests"]] == ["torch.cuda-oom"]
    return log


def test_a_one_line_analyze_with_text_output_loads_no_code_it_does_not_use(one_line_log: Path) -> None:
    assert loaded_after(["analyze", str(one_line_log)], NEVER).modules == []


def test_a_one_line_analyze_to_a_json_file_loads_no_terminal_library_either(
    one_line_log: Path, tmp_path: Path
) -> None:
    report = tmp_path / "report.json"
    arguments = ["analyze", str(one_line_log), "--format", "json", "--output", str(report)]
    assert loaded_after(arguments, (*NEVER, "rich", "forensics.render.text")).modules == []
    document = json.loads(report.read_text())
    assert [test["root_cause"]["rule"] for test in document["tests"]] == ["torch.cuda-oom"]


def test_importing_the_analyze_command_compiles_no_pattern_but_the_line_normalizer_s() -> None:
    """Module-level `regex` patterns (compiled in Python: 0.5-14 ms each) are LazyRegex (forensics/lazy_regex.py);
    only engine/normalize.py compiles at import (through forensics/regex_code.py, which calls `regex.compile` only
    for a pattern its table lacks), since every scan that finds a candidate line needs its patterns at once. (The
    few stdlib `re` patterns compile in well under a millisecond and are left alone.)"""
    code = (
        "import json, sys, regex\n"
        "import forensics.regex_code as kept\n"
        "compiled = []\n"
        "def watch(module, name, original):\n"
        "    def compile(pattern, flags=0, *args, **kwargs):\n"
        "        caller = sys._getframe(1).f_globals.get('__name__', '')\n"
        "        if caller.startswith('forensics') and caller != 'forensics.regex_code':\n"
        "            compiled.append(caller)\n"
        "        return original(pattern, flags, *args, **kwargs)\n"
        "    setattr(module, name, compile)\n"
        "watch(regex, 'compile', regex.compile)\n"
        "watch(kept, 'compile_pattern', kept.compile_pattern)\n"
        "import forensics.cli.analyze, forensics.render.text, forensics.render.json_report\n"
        "print(json.dumps(sorted(set(compiled))))\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    compiling = json.loads(run.stdout.strip().splitlines()[-1])
    assert set(compiling) <= {"forensics.engine.normalize"}, compiling


def test_the_cli_leaves_the_objects_alive_at_exit_out_of_the_final_collections(one_line_log: Path) -> None:
    """`ci-forensics` freezes the heap at exit (cli/main.py): the collections of interpreter shutdown then skip
    what the run built. A handler registered before the command runs (so after the freeze) sees it frozen."""
    code = (
        "import atexit, gc, sys\n"
        "atexit.register(lambda: print('frozen at exit:', gc.get_freeze_count()))\n"
        "from forensics.cli.main import main\n"
        f"sys.argv = ['ci-forensics', 'analyze', {str(one_line_log)!r}, '--format', 'json', '--output', "
        f"{str(one_line_log.with_suffix('.json'))!r}]\n"
        "main()\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr
    frozen = int(run.stdout.rsplit("frozen at exit:", 1)[1])
    assert frozen > 10_000
    document = json.loads(one_line_log.with_suffix(".json").read_text())
    assert [test["root_cause"]["rule"] for test in document["tests"]] == ["torch.cuda-oom"]


def test_a_one_line_analyze_neither_reads_nor_writes_a_compiled_pre_filter(one_line_log: Path) -> None:
    """Hyperscan's database is kept between runs (rules/automata.py) but read only past the plain way's first
    16 KiB: a one-line log checks its literals one by one and leaves the store alone (and hashlib unloaded)."""
    automata = Path(os.environ["XDG_CACHE_HOME"], "ci-forensics", "rules", "automata")
    assert loaded_after(["analyze", str(one_line_log)], ("hashlib", "hyperscan")).modules == []
    assert (automata.parent / "").is_dir()  # the pack cache is there, the store is not
    assert not automata.exists()


# Run as the `ci-forensics` script: whether the collector was off once the CLI was imported, and its state once the
# command ran (exit handlers registered first run last, after the command's own).
AS_THE_PROGRAM = """
import atexit, gc, json, sys
atexit.register(lambda: print(json.dumps(state), file=sys.stderr))
from forensics.cli.main import main
state = {"paused_while_importing": not gc.isenabled()}
atexit.register(lambda: state.update(enabled=gc.isenabled(), threshold=gc.get_threshold()[0]))
main()
"""


def test_the_program_imports_with_the_collector_paused_and_resumes_it_when_the_command_starts(
    one_line_log: Path, tmp_path: Path
) -> None:
    script = tmp_path / "ci-forensics"
    script.write_text(AS_THE_PROGRAM)
    report = tmp_path / "report.json"
    run = subprocess.run(
        [
            sys.executable,
            str(script),
            "analyze",
            str(one_line_log),
            "--format",
            "json",
            "--output",
            str(report),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    state = json.loads(run.stderr.strip().splitlines()[-1])
    assert state == {"paused_while_importing": True, "enabled": True, "threshold": 10_000}
    assert [test["root_cause"]["rule"] for test in json.loads(report.read_text())["tests"]] == [
        "torch.cuda-oom"
    ]


def test_a_program_importing_the_cli_keeps_its_collector_as_it_was() -> None:
    code = (
        "import gc, forensics.cli.main, forensics.cli.analyze; print(gc.isenabled(), gc.get_threshold()[0])"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stdout.split() == ["True", "700"]


# The program as `ci-forensics` runs it (forensics/cli/start.py), then what it loaded and what `inspect` is.
AS_THE_SCRIPT = """
import json, sys
from forensics.cli.start import main
try:
    main()
except SystemExit:
    pass
watched = ("click", "ast", "_ast", "dis", "tokenize", "datetime", "forensics.samples")
loaded = sorted(name for name in sys.modules if name.split(".")[0] in watched)
print(json.dumps([loaded, type(sys.modules["inspect"]).__name__]), file=sys.stderr)
"""


def test_the_program_runs_a_one_line_analyze_without_click_inspect_or_ast(
    one_line_log: Path, tmp_path: Path
) -> None:
    """Click and what it imports (~50 M instructions), `inspect` (~17 M: `dataclasses` imports it for a class
    without a docstring), `ast` (~10 M: rules/expressions.py imports `_ast` when it first parses), `datetime`
    (~5 M: only with a store) and the bundled sample (only with --demo): none is loaded by a plain `analyze`
    (forensics/cli/quick.py, forensics/cli/start.py)."""
    script = tmp_path / "ci-forensics"
    script.write_text(AS_THE_SCRIPT)
    report = tmp_path / "report.json"
    arguments = ["analyze", str(one_line_log), "--format", "json", "--output", str(report)]
    run = subprocess.run(
        [sys.executable, str(script), *arguments], capture_output=True, text=True, check=False
    )
    assert json.loads(run.stderr.strip().splitlines()[-1]) == [[], "_OnFirstUse"]
    assert [test["root_cause"]["rule"] for test in json.loads(report.read_text())["tests"]] == [
        "torch.cuda-oom"
    ]


def test_inspect_s_stand_in_is_the_module_once_used() -> None:
    code = (
        "import sys\n"
        "from forensics.cli.start import _load_on_first_use\n"
        "_load_on_first_use('inspect')\n"
        "import inspect, dataclasses\n"
        "standing_in = 'ast' not in sys.modules\n"
        "@dataclasses.dataclass\n"
        "class Point:\n"
        "    x: int\n"
        "import inspect as again\n"
        "real = sys.modules['inspect']\n"
        "print(standing_in, Point.__doc__, inspect.signature is real.signature, again is real,\n"
        "      real is not inspect, inspect.cleandoc('  a') == 'a')\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stdout.split() == ["True", "Point(x:", "int)", "True", "True", "True", "True"]


def test_every_dataclass_of_the_package_has_a_docstring() -> None:
    """Without one, `@dataclass` writes the class's signature as its docstring with `inspect.signature`, which
    loads `inspect` (and `ast`, `dis`, `tokenize`) at import: ~35 M instructions of a one-line `analyze`."""
    import ast

    missing = []
    for path in sorted(Path("forensics").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            decorators = [ast.unparse(d) for d in getattr(node, "decorator_list", ())]
            if isinstance(node, ast.ClassDef) and any("dataclass" in d for d in decorators):
                missing += [] if ast.get_docstring(node) else [f"{path}:{node.lineno} {node.name}"]
    assert missing == []


# The one-line run through the program's entry point, counting the patterns whose literal ways were read from the
# pattern itself (rules/literal_table.py keeps them beside the bytecode), then every stored entry against a fresh read.
COUNTING_WAYS = """
import atexit, json, sys
import forensics.rules.literals as literals
parsed = []
original = literals.computed_literal_ways
def counting(pattern, *, ignore_case):
    parsed.append(pattern)
    return original(pattern, ignore_case=ignore_case)
literals.computed_literal_ways = counting
atexit.register(lambda: print(json.dumps(len(parsed)), file=sys.stderr))
from forensics.cli.start import main
sys.argv = ["ci-forensics", *sys.argv[1:]]
main()
"""
STORED_WAYS_AGREE = """
import json
from forensics.rules.literal_table import stored_entries
from forensics.rules.literals import computed_literal_ways
entries = stored_entries()
fresh = {
    key: tuple(tuple((lit.alternatives, lit.ignore_case) for lit in way) for way in computed_literal_ways(key[0], ignore_case=key[1]))
    for key in entries
}
print(json.dumps({"entries": len(entries), "differ": sorted(key[0] for key in entries if entries[key] != fresh[key])}))
"""


def test_a_warm_one_line_analyze_reads_no_pattern_for_its_literal_ways_and_the_table_holds_fresh_reads(
    one_line_log: Path, tmp_path: Path
) -> None:
    """The probes a CUDA out-of-memory line selects need their patterns' literal ways (engine/scanner.py
    `possible`): read from each pattern with `re`'s parser on the first run (~1 M instructions a pattern), from the
    table beside the bytecode after it; nothing is written where bytecode is not; a damaged table is read again."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    env.update(
        PYTHONPYCACHEPREFIX=str(tmp_path / "bytecode"), PYTHONPATH=str(Path(__file__).resolve().parents[1])
    )
    report = tmp_path / "report.json"

    def parsed(*, write: bool = True) -> int:
        run = subprocess.run(
            [
                sys.executable,
                "-c",
                COUNTING_WAYS,
                "analyze",
                str(one_line_log),
                "--format",
                "json",
                "-o",
                str(report),
            ],
            capture_output=True,
            text=True,
            check=True,
            env=env if write else {**env, "PYTHONDONTWRITEBYTECODE": "1"},
            cwd=tmp_path,
        )
        document = json.loads(report.read_text())
        assert [test["root_cause"]["rule"] for test in document["tests"]] == ["torch.cuda-oom"]
        count: int = json.loads(run.stderr.strip().splitlines()[-1])
        return count

    first = parsed(write=False)
    tables = list((tmp_path / "bytecode").rglob("_literal_ways.*"))
    assert first > 0 and tables == []
    assert parsed() == first
    (table,) = (tmp_path / "bytecode").rglob("_literal_ways.*")
    assert parsed() == 0
    check = subprocess.run(
        [sys.executable, "-c", STORED_WAYS_AGREE],
        capture_output=True,
        text=True,
        check=True,
        env=env,
        cwd=tmp_path,
    )
    assert json.loads(check.stdout) == {"entries": first, "differ": []}
    table.write_bytes(table.read_bytes()[:40])
    assert parsed() == first
    assert parsed() == 0


# Compiles the likely-cause picker's patterns (what the parent does before forking workers) and prints how many
# gates it parsed with `re`'s parser; with "check", whether every stored gate equals a fresh parse.
GATES_PARSED = """
import json, sys
from forensics.rules import literals
parsed = []
original = literals._required_literals
def counting(*args, **kwargs):
    parsed.append(args[0])
    return original(*args, **kwargs)
literals._required_literals = counting
if sys.argv[1] == "check":
    from forensics.rules.literal_table import stored_gates
    entries = stored_gates()
    fresh = {key: original(key[0], ignore_case=False, flags=key[1], minimum=key[2]) for key in entries}
    differ = [key[0] for key, gate in entries.items() if gate != ((fresh[key].alternatives, fresh[key].ignore_case) if fresh[key] else ())]
    print(json.dumps({"entries": len(entries), "differ": differ}))
else:
    from forensics.engine.likely_reader import compile_for_workers
    compile_for_workers()
    print(json.dumps(len(parsed)))
"""


def test_the_likely_pickers_gates_are_parsed_once_and_kept_as_a_fresh_parse_reads_them(
    tmp_path: Path,
) -> None:
    """`literals_for_flags` (the likely-cause picker's `GatedRegex` gates, compiled before the workers fork) parses
    each pattern with `re`'s parser on the first run and reads the table beside the bytecode after it."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    env.update(
        PYTHONPYCACHEPREFIX=str(tmp_path / "bytecode"), PYTHONPATH=str(Path(__file__).resolve().parents[1])
    )

    def run(mode: str) -> Any:
        done = subprocess.run(
            [sys.executable, "-c", GATES_PARSED, mode],
            capture_output=True,
            text=True,
            check=True,
            env=env,
            cwd=tmp_path,
        )
        return json.loads(done.stdout.strip().splitlines()[-1])

    first = run("compile")
    assert first > 30
    assert run("compile") == 0
    checked = run("check")
    assert checked["entries"] >= first and checked["differ"] == []
