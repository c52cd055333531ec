"""A clone of this repository is all the tool, the tests, the benchmarks and CI need.

Statically: no code names a folder beside the checkout (`../shared`), climbs above the repository with
`Path(__file__).parents[N]`, or names an absolute path of the machine it was written on. At run time: the
audit hook of `tests/outside_reads.py` (installed by `tests/conftest.py`) fails the session when a test
opens or lists a path outside the repository; the tests below prove it notices.
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

import pytest

from tests.conftest import OUTSIDE_READS
from tests.outside_reads import REPOSITORY_ROOT, OutsideReads, allowed_folders

CHECKED_FOLDERS = ("forensics", "tests", "benchmarks", ".ci", "requirements")
CHECKED_FILES = ("Makefile", "action.yml", "pyproject.toml")
DATA_FOLDERS = (REPOSITORY_ROOT / "tests" / "data", REPOSITORY_ROOT / "tests" / "corpus")  # data, not code
THIS_FILE = Path(__file__).resolve()  # it spells out the patterns it looks for
SIBLING = re.compile(r"\.\./shared\b|[\"']shared[\"']\s*/\s*[\"']reference[\"']")
MACHINE_PATH = re.compile(r"(?<![\w.~-])/work/")  # where this project's machines keep their checkouts
PARENTS = re.compile(r"__file__\)?(?:\.resolve\(\))?\.parents\[(\d+)\]")
PARENT_CHAIN = re.compile(r"__file__\)?(?:\.resolve\(\))?((?:\.parent)+)\b")


def _code_files() -> list[Path]:
    files = [REPOSITORY_ROOT / name for name in CHECKED_FILES]
    for folder in CHECKED_FOLDERS:
        for path in sorted((REPOSITORY_ROOT / folder).rglob("*")):
            if not path.is_file() or "__pycache__" in path.parts or path == THIS_FILE:
                continue
            if any(path.is_relative_to(data) for data in DATA_FOLDERS):
                continue
            if path.suffix in {".py", ".sh", ".toml", ".yml", ".yaml", ".ini", ".cfg", ""}:
                files.append(path)
    return files


def _escapes_the_root(path: Path, text: str) -> list[str]:
    """Every way `text` (the content of `path`) names a path outside the repository."""
    depth = len(path.relative_to(REPOSITORY_ROOT).parts) - 1  # parents[depth] is the root
    found = [f"names a sibling folder: {match[0]!r}" for match in SIBLING.finditer(text)]
    found += [f"names a machine path: {match[0]!r}" for match in MACHINE_PATH.finditer(text)]
    for match in PARENTS.finditer(text):
        if int(match[1]) > depth:
            found.append(f"climbs above the repository: {match[0]!r}")
    for match in PARENT_CHAIN.finditer(text):
        if match[1].count(".parent") > depth + 1:
            found.append(f"climbs above the repository: {match[0]!r}")
    return found


def test_the_code_files_are_found() -> None:
    names = {path.relative_to(REPOSITORY_ROOT).as_posix() for path in _code_files()}
    assert {"tests/conftest.py", "tests/fakes/github.py", "forensics/cli/main.py", ".ci/run"} <= names
    assert "benchmarks/bench_speed.py" in names and "Makefile" in names


def test_no_code_names_a_path_outside_the_repository() -> None:
    offences = {
        path.relative_to(REPOSITORY_ROOT).as_posix(): found
        for path in _code_files()
        if (found := _escapes_the_root(path, path.read_text(encoding="utf-8", errors="replace")))
    }
    assert offences == {}


@pytest.mark.parametrize(
    ("relative", "text"),
    [
        ("tests/fakes/github.py", 'API = Path(__file__).resolve().parents[3] / "shared" / "reference"'),
        ("tests/support/fetch_scenario.py", 'ZIP = Path(__file__).resolve().parents[3] / "x.zip"'),
        ("forensics/inputs/allure.py", "Follows ../shared/reference/ALLURE-FORMAT.md"),
        ("benchmarks/bench_speed.py", 'CACHE = Path("/work/main/benchmarks/.cache")'),
        ("tests/store/conftest.py", "ROOT = Path(__file__).parent.parent.parent.parent"),
    ],
)
def test_the_static_check_catches_each_way_out(relative: str, text: str) -> None:
    assert _escapes_the_root(REPOSITORY_ROOT / relative, text)


@pytest.mark.parametrize(
    ("relative", "text"),
    [
        ("tests/store/conftest.py", 'SAMPLE = Path(__file__).resolve().parents[2] / "forensics"'),
        ("tests/fakes/github.py", 'DATA = Path(__file__).resolve().parents[1] / "data" / "github-api"'),
        ("tests/conftest.py", 'REFERENCE = Path(__file__).resolve().parent / "data"'),
        ("tests/store/conftest.py", "ROOT = Path(__file__).parent.parent.parent"),
        ("tests/test_bad_input.py", 'analyze(["/etc/x", "/home/runner/work/x"])'),
    ],
)
def test_the_static_check_lets_paths_inside_the_repository_pass(relative: str, text: str) -> None:
    assert _escapes_the_root(REPOSITORY_ROOT / relative, text) == []


def test_the_session_guard_is_installed_and_has_found_nothing_so_far() -> None:
    assert sorted(set(OUTSIDE_READS.found)) == []
    assert (str(REPOSITORY_ROOT) + "/").startswith(OUTSIDE_READS.allowed)


def test_the_guard_catches_a_planted_read_outside_the_repository(tmp_path: Path) -> None:
    outside = Path("/ci-forensics-outside-probe") / "shared" / "reference"  # outside every allowed folder
    assert not str(outside).startswith(allowed_folders())
    with OUTSIDE_READS.diverted() as found:
        with pytest.raises(FileNotFoundError):
            (outside / "allure-results.zip").read_bytes()
        with pytest.raises(FileNotFoundError):
            os.listdir(outside)
        with pytest.raises(FileNotFoundError):
            os.scandir(outside.parent)
        # inside the repository, the temporary folder and the interpreter: nothing to report
        (REPOSITORY_ROOT / "pyproject.toml").read_bytes()
        (tmp_path / "x").write_text("x")
        os.listdir(tmp_path)
        os.listdir(Path(os.__file__).parent)
    assert found == [
        f"open {outside}/allure-results.zip",
        f"os.listdir {outside}",
        f"os.scandir {outside.parent}",
    ]
    assert OUTSIDE_READS.found == []  # diverted: the planted reads do not fail this session


def test_a_relative_path_is_judged_from_the_current_folder(tmp_path: Path) -> None:
    guard = OutsideReads((str(tmp_path) + "/",))
    old = Path.cwd()
    os.chdir(tmp_path)
    try:
        guard("open", ("inside.txt", "r", 0))
        guard("open", ("../beside.txt", "r", 0))
        guard("open", (b"../bytes.txt", "r", 0))
        guard("open", (3, "r", 0))  # a descriptor: checked when its path was opened
        guard("os.listdir", (None,))
        guard("compile", ("/elsewhere.py",))  # not a read
    finally:
        os.chdir(old)
    assert guard.found == [f"open {tmp_path.parent}/beside.txt", f"open {tmp_path.parent}/bytes.txt"]


def test_a_folder_on_the_import_path_may_be_listed_but_not_read_from(tmp_path: Path) -> None:
    elsewhere = tmp_path / "other-checkout"  # an editable install's folder outside the repository
    guard = OutsideReads((str(REPOSITORY_ROOT) + "/",), listed=frozenset({str(elsewhere)}))
    guard("os.listdir", (str(elsewhere),))  # the import system looking for a module
    guard("os.scandir", (elsewhere,))
    guard("open", (str(elsewhere / "data.json"), "r", 0))
    guard("os.listdir", (str(elsewhere / "sub"),))
    assert guard.found == [f"open {elsewhere}/data.json", f"os.listdir {elsewhere}/sub"]


def test_the_allowed_folders_are_the_interpreter_temp_and_the_system() -> None:
    allowed = allowed_folders()
    for folder in (tempfile.gettempdir(), os.path.dirname(os.__file__), "/etc", "/usr", "/proc", "/dev"):
        assert (os.path.realpath(folder) + "/").startswith(allowed), folder
