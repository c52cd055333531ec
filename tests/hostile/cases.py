"""The hostile-input corpus: every reproducer of issue 11 as a case that builds its input and says what a run
must do with it.

Small inputs are committed beside this file (`results/<case>/`, `rules/*.toml`); large or special ones (a
2 GiB zip of zeros, FIFOs, link loops, unreadable folders, a non-UTF-8 path) are made at run time in a
temporary folder. `tests/test_hostile.py` runs each step as the CLI in a child process and checks it: no
traceback, done within its budget, peak memory under 400 MiB, and never exit 0 without a test read.
"""

from __future__ import annotations

import json
import os
import shutil
import struct
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
RULES = HERE / "rules"
SAMPLE = HERE.parents[1] / "forensics" / "samples" / "nightly-allure-results.zip"
GOOD_TEST = "test_disagg_serving[disagg_qwen3-0.6b]"


def _good_neighbour() -> tuple[str, str]:
    """One failing test of the sample artifact (real allure-pytest output) and its log, found by the test's
    name (the sample is rebuilt when scenarios change, and its uuids with it)."""
    with zipfile.ZipFile(SAMPLE) as sample:
        for name in sample.namelist():
            if name.endswith("-result.json"):
                result = json.loads(sample.read(name))
                if result.get("name") == GOOD_TEST:
                    return name, result["attachments"][0]["source"]
    raise LookupError(f"{GOOD_TEST} is not in {SAMPLE}")


# the good neighbour: a failing test whose cause every hostile case must still find beside the bad input
GOOD_RESULT, GOOD_LOG = _good_neighbour()
ZEROS = 2 * 1024 * 1024 * 1024
ZEROS_CRC32 = 0x4DBDF21C  # zlib.crc32(bytes(ZEROS)), which takes a second to compute
GIANT_LOG_LIMIT = "16MiB"


@dataclass(frozen=True, slots=True)
class Step:
    """One CLI run of a case: its arguments, the exit codes it may end with, text its output must hold."""

    args: tuple[str, ...]
    exit_codes: frozenset[int]
    says: str = ""
    stdout: str = ""  # a file to connect stdout to instead of a pipe ("/dev/full")
    cpu_seconds: float = 30.0  # CPU time the run may use (wall time under load varies; CPU time much less)


@dataclass(frozen=True, slots=True)
class Case:
    """A reproducer: `build` makes its input in a folder and returns the steps to run there."""

    name: str
    build: Callable[[Path], list[Step]]
    unprivileged: bool = False  # unreadable files: root reads everything, so run without its DAC override


def step(*args: str, codes: tuple[int, ...] = (0,), says: str = "", **options: object) -> Step:
    """A step with the usual defaults."""
    return Step(args=args, exit_codes=frozenset(codes), says=says, **options)  # type: ignore[arg-type]


def copy_results(name: str, target: Path) -> Path:
    """A committed results folder, copied where the case runs."""
    destination = target / name
    shutil.copytree(RESULTS / name, destination)
    return destination


def good_failure(folder: Path) -> Path:
    """Add one real failing test and its log (from the sample artifact) to a folder."""
    folder.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(SAMPLE) as sample:
        for name in (GOOD_RESULT, GOOD_LOG):
            (folder / name).write_bytes(sample.read(name))
    return folder


def _committed(name: str, *, code: int = 0, says: str = "", output: str = "json") -> Case:
    def build(tmp: Path) -> list[Step]:
        folder = copy_results(name, tmp)
        return [step("analyze", str(folder), "--format", output, codes=(code,), says=says)]

    return Case(name, build)


def _recorded_bad_time(tmp: Path) -> list[Step]:
    folder = copy_results("negative-start", tmp)
    good_failure(folder)
    store = str(tmp / "history.sqlite3")
    return [
        step("analyze", str(folder), "--record", "--store", store, says="is not a time"),
        step("history", "--store", store, says="1 run"),
        step("dashboard", "--store", store, "--out", str(tmp / "site")),
    ]


def _labels_bomb(tmp: Path) -> list[Step]:
    """A 63 MB result whose `labels` holds 22M empty objects (took 19 GB of memory)."""
    folder = tmp / "labels-bomb"
    folder.mkdir()
    with (folder / "b0b0b0b0-0000-4000-8000-000000000001-result.json").open("wb") as stream:
        stream.write(b'{"uuid": "bomb", "name": "test_bomb", "status": "failed", "labels": [')
        stream.write(b"{}," * 22_000_000)
        stream.write(b"{}]}")
    return [step("analyze", str(folder), "--format", "json", codes=(5,), says="limit for one result file")]


def _element_bomb(tmp: Path) -> list[Step]:
    """Under the size limit, but 5M values: refused before parsing; the good neighbour is still read."""
    folder = good_failure(tmp / "element-bomb")
    (folder / "b0b0b0b0-0000-4000-8000-000000000002-result.json").write_bytes(
        b'{"uuid": "bomb", "status": "failed", "parameters": [' + b"{}," * 5_000_000 + b"{}]}"
    )
    return [step("analyze", str(folder), "--format", "json", says="JSON values")]


def _deep_nesting(tmp: Path) -> list[Step]:
    folder = good_failure(tmp / "deep-nesting")
    (folder / "deadbeef-0000-4000-8000-000000000003-result.json").write_text(
        '{"uuid": "deep", "steps": ' + "[" * 200_000 + "]" * 200_000 + "}"
    )
    steps = {"name": "leaf", "attachments": [{"name": "log", "source": GOOD_LOG}]}
    for depth in range(200):  # steps nested deeper than MAX_STEP_DEPTH (but within what JSON parses)
        steps = {"name": f"step {depth}", "steps": [steps]}
    (folder / "deadbeef-0000-4000-8000-000000000004-result.json").write_text(
        json.dumps({"uuid": "steps", "name": "test_deep_steps", "status": "failed", "steps": [steps]})
    )
    return [step("analyze", str(folder), "--format", "json", says="malformed JSON")]


def _giant_name(tmp: Path) -> list[Step]:
    folder = good_failure(tmp / "giant-name")
    (folder / "deadbeef-0000-4000-8000-000000000005-result.json").write_text(
        json.dumps({"uuid": "giant", "name": "test_" + "x" * 2_000_000, "status": "failed"})
    )
    return [step("analyze", str(folder)), step("analyze", str(folder), "--format", "markdown")]


def _fifo_attachment(tmp: Path) -> list[Step]:
    folder = good_failure(tmp / "fifo-attachment")
    (folder / GOOD_LOG).unlink()
    os.mkfifo(folder / GOOD_LOG)  # the failing test's log is a FIFO nobody writes to
    os.mkfifo(folder / "x-attachment.txt")
    return [step("analyze", str(folder), "--format", "json", says="FIFO")]


def _fifo_result(tmp: Path) -> list[Step]:
    folder = good_failure(tmp / "fifo-result")
    os.mkfifo(folder / "x-result.json")
    os.mkfifo(folder / "x-container.json")
    return [step("analyze", str(folder), "--format", "json", says="FIFO")]


def _fifo_zip(tmp: Path) -> list[Step]:
    os.mkfifo(tmp / "b.zip")
    os.mkfifo(tmp / "x-attachment.txt")
    downloads = tmp / "downloads"
    downloads.mkdir()
    shutil.copy(SAMPLE, downloads / "good.zip")
    os.mkfifo(downloads / "b.zip")
    return [
        step("analyze", str(tmp / "b.zip"), codes=(1,), says="FIFO"),
        step("analyze", str(tmp / "x-attachment.txt"), codes=(1,), says="FIFO"),
        step("analyze", str(downloads), "--format", "json", says="FIFO"),
        step("render", str(tmp / "x-attachment.txt"), codes=(1,), says="FIFO"),
        step(
            "dashboard",
            "--data",
            str(tmp / "x-attachment.txt"),
            "--out",
            str(tmp / "site"),
            codes=(1,),
            says="FIFO",
        ),
    ]


def _symlink_loop(tmp: Path) -> list[Step]:
    folder = good_failure(tmp / "symlink-loop")
    (folder / "loop-attachment.txt").symlink_to("loop-attachment.txt")
    (folder / "a-attachment.txt").symlink_to("b-attachment.txt")
    (folder / "b-attachment.txt").symlink_to("a-attachment.txt")
    (folder / "deadbeef-0000-4000-8000-000000000006-result.json").write_text(
        json.dumps(
            {
                "uuid": "loop",
                "name": "test_loop",
                "status": "failed",
                "attachments": [{"name": "log", "source": "loop-attachment.txt"}],
            }
        )
    )
    return [step("analyze", str(folder), "--format", "json", says="cannot be read")]


def _unreadable_subfolder(tmp: Path) -> list[Step]:
    top = good_failure(tmp / "unreadable-subfolder")
    hidden = good_failure(top / "shard-2")
    hidden.chmod(0)
    return [
        step("analyze", str(top), "--format", "json", says="folder cannot be read"),
        step("analyze", str(hidden), codes=(1,), says="folder cannot be read (Permission denied)"),
    ]


def _unreadable_log(tmp: Path) -> list[Step]:
    log = tmp / "job.log"
    log.write_text("RuntimeError: boom\n")
    log.chmod(0)
    return [step("analyze", str(log), codes=(1,), says="cannot be read")]


def _non_utf8_path(tmp: Path) -> list[Step]:
    log = tmp / os.fsdecode(b"job-\xff\xfe.log")
    log.write_text("RuntimeError: a path that is not UTF-8\n")
    folder = good_failure(tmp / os.fsdecode(b"results-\xff"))
    store = str(tmp / "history.sqlite3")
    return [
        step("analyze", str(log), "--format", "json"),
        step("analyze", str(folder), str(log), "--format", "markdown"),
        step("analyze", str(folder), str(log), "--record", "--store", store),
        step("history", "--store", store, "--format", "json"),
    ]


def _encrypted_zip(tmp: Path) -> list[Step]:
    """Every member marked encrypted (general purpose flag bit 0): nothing can be read without a password."""
    path = tmp / "encrypted.zip"
    with zipfile.ZipFile(SAMPLE) as sample, zipfile.ZipFile(path, "w") as target:
        for name in (GOOD_RESULT, GOOD_LOG):
            target.writestr(name, sample.read(name))
    data = bytearray(path.read_bytes())
    for signature, flag_offset in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        start = 0
        while (found := data.find(signature, start)) >= 0:
            (flags,) = struct.unpack_from("<H", data, found + flag_offset)
            struct.pack_into("<H", data, found + flag_offset, flags | 1)
            start = found + 4
    path.write_bytes(bytes(data))
    return [step("analyze", str(path), "--format", "json", codes=(5,), says="encrypted")]


def _zip_in_zip(tmp: Path) -> list[Step]:
    path = tmp / "outer.zip"
    with zipfile.ZipFile(path, "w") as outer:
        outer.write(SAMPLE, "allure-results.zip")
    return [step("analyze", str(path), "--fail-on", "failures", codes=(5,), says="no test could be read")]


def _zeros(tmp: Path) -> list[Step]:
    """A failing test whose log is 2 GiB of zeros (2 MB deflated): recording read all of it (27 s)."""
    path = tmp / "zeros.zip"
    with zipfile.ZipFile(SAMPLE) as sample:
        write_zeros_zip(path, result=(GOOD_RESULT, sample.read(GOOD_RESULT)), log_name=GOOD_LOG)
    store = str(tmp / "history.sqlite3")
    limit = ("--max-log-size", GIANT_LOG_LIMIT)
    return [
        step("analyze", str(path), *limit, says="larger than the 16 MiB limit", cpu_seconds=5),
        step("analyze", str(path), *limit, "--record", "--store", store, cpu_seconds=5),
    ]


def write_zeros_zip(path: Path, *, result: tuple[str, bytes], log_name: str) -> None:
    """A zip of one stored result and a 2 GiB log of zeros, written in milliseconds.

    Deflating 2 GiB takes seconds; with a full flush after each MiB the deflate output of every MiB of
    zeros is the same 1,037 bytes, so the entry is that chunk repeated. Its CRC-32 is a constant.
    """
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    block = bytes(1 << 20)
    chunk = compressor.compress(block) + compressor.flush(zlib.Z_FULL_FLUSH)
    assert compressor.compress(block) + compressor.flush(zlib.Z_FULL_FLUSH) == chunk  # no state carried over
    deflated = chunk * (ZEROS >> 20) + compressor.flush(zlib.Z_FINISH)
    entries = [
        (result[0].encode(), 0, zlib.crc32(result[1]), result[1], len(result[1])),
        (log_name.encode(), 8, ZEROS_CRC32, deflated, ZEROS),
    ]
    with path.open("wb") as stream:
        directory = b""
        for name, method, crc, data, size in entries:
            offset = stream.tell()
            header = struct.pack("<HHHHHIIIHH", 20, 0, method, 0, 0x21, crc, len(data), size, len(name), 0)
            stream.write(b"PK\x03\x04" + header + name + data)
            directory += (
                b"PK\x01\x02"
                + struct.pack("<H", 20)
                + header
                + struct.pack("<HHHII", 0, 0, 0, 0, offset)
                + name
            )
        start = stream.tell()
        stream.write(directory)
        stream.write(b"PK\x05\x06" + struct.pack("<HHHHIIH", 0, 0, 2, 2, len(directory), start, 0))


def _dev_full(tmp: Path) -> list[Step]:
    folder = good_failure(tmp / "results")
    return [
        step("analyze", str(folder), codes=(1,), says="cannot write the report", stdout="/dev/full"),
        step("analyze", str(folder), "--format", "json", codes=(1,), says="No space", stdout="/dev/full"),
        step("rules", "list", codes=(1,), says="a write failed: No space", stdout="/dev/full"),
    ]


def _derived_values(tmp: Path) -> list[Step]:
    rules = str(RULES / "derive-tower.toml")
    log = tmp / "job.log"
    log.write_text("HostileTowerError: 7\n")
    return [
        step("analyze", str(log), "--rules", rules, says="tower ? and product ?", cpu_seconds=10),
        step("rules", "test", rules, codes=(0, 3), cpu_seconds=10),
        step("rules", "lint", rules, codes=(0, 3), cpu_seconds=20),
    ]


def _long_expression(tmp: Path) -> list[Step]:
    """A derived value of 20,000 terms (a RecursionError before)."""
    rules = tmp / "long.toml"
    terms = " + ".join(["n"] * 20_000)
    text = (RULES / "derive-tower.toml").read_text().replace("hostile.derive-tower", "hostile.long")
    rules.write_text(text.replace('w = "(10**64)**64*(10**64)**5 + n"', f'w = "{terms}"'))
    log = tmp / "job.log"
    log.write_text("HostileTowerError: 7\n")
    return [
        step("analyze", str(log), "--rules", str(rules), codes=(1,), says="derive.w"),
        step("rules", "lint", str(rules), codes=(3,), says="derive.w"),
    ]


def _summary_width(tmp: Path) -> list[Step]:
    rules = str(RULES / "summary-width.toml")
    log = tmp / "job.log"
    log.write_text("HostileWidthError: 7\n")
    return [
        step("analyze", str(log), "--rules", rules, codes=(1,), says="widths and precisions"),
        step("rules", "lint", rules, codes=(3,), says="widths and precisions"),
    ]


def _backtracking(tmp: Path) -> list[Step]:
    """`(a|aa)+$` takes seconds on `HostileError: aaa…a!`; `rules lint` passed it."""
    rules = str(RULES / "backtracking.toml")
    return [step("rules", "lint", rules, codes=(3,), says="overlapping alternatives", cpu_seconds=60)]


def _saved_report(tmp: Path) -> list[Step]:
    """A saved JSON report edited by hand: a broken time, a damaged test, a lone surrogate."""
    from forensics.render.json_report import report_to_dict
    from forensics.report.build import analyze
    from forensics.rules.loader import load_rules

    report = report_to_dict(analyze([str(SAMPLE)], rules=load_rules()))
    report["tests"][0]["start"] = -(10**18)
    report["tests"][1]["name"] = "\ud800"
    report["tests"][2] = {"id": 5}
    path = tmp / "report.json"
    path.write_text(json.dumps(report))
    return [
        step("render", str(path)),
        step("render", str(path), "--format", "markdown", says="damaged"),
    ]


CASES: tuple[Case, ...] = (
    _committed("negative-start", says="is not a time between 1970 and 9999"),
    _committed("huge-start", says="is not a time"),
    _committed("string-start", says="is not a number"),
    _committed("nan-start", says="is not a finite number"),
    _committed("children-five"),
    _committed("lone-surrogate-name", output="text"),
    _committed("nul-in-name", output="markdown"),
    _committed("one-uuid-two-verdicts", output="text", says="is used by another test too"),
    _committed("all-json-truncated", code=5, says="no test could be read"),
    _committed("not-objects", code=5, says="none of its 2 Allure result file(s) could be read"),
    _committed("wrong-types"),
    Case("recorded-bad-time", _recorded_bad_time),
    Case("labels-bomb", _labels_bomb),
    Case("element-bomb", _element_bomb),
    Case("deep-nesting", _deep_nesting),
    Case("giant-name", _giant_name),
    Case("fifo-attachment", _fifo_attachment),
    Case("fifo-result", _fifo_result),
    Case("fifo-zip", _fifo_zip),
    Case("symlink-loop", _symlink_loop),
    Case("unreadable-subfolder", _unreadable_subfolder, unprivileged=True),
    Case("unreadable-log", _unreadable_log, unprivileged=True),
    Case("non-utf8-path", _non_utf8_path),
    Case("encrypted-zip", _encrypted_zip),
    Case("zip-in-zip", _zip_in_zip),
    Case("zeros-2gib", _zeros),
    Case("stdout-dev-full", _dev_full),
    Case("derived-values", _derived_values),
    Case("long-expression", _long_expression),
    Case("summary-width", _summary_width),
    Case("backtracking", _backtracking),
    Case("saved-report", _saved_report),
)
