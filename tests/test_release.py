"""A release agrees with itself: pyproject, `--version`, the CHANGELOG, the lock files the Action installs,
and the `uses: OWNER/ci-forensics@vX.Y.Z` the docs tell users to pin."""

from __future__ import annotations

import importlib.metadata
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from forensics.version import __version__

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
LOCKS = ROOT / "requirements"
PIN = re.compile(r"^(?P<name>[A-Za-z0-9._-]+)==(?P<version>\S+)(?: ; (?P<marker>.+))? \\$")
HASH = re.compile(r"^    --hash=sha256:[0-9a-f]{64}(?: \\)?$")


def _pins(name: str, markers: dict[str, str] | None = None) -> dict[str, str]:
    """Package → pinned version of one lock file, checking its shape line by line (and each pin's environment
    marker into `markers`, where one is given)."""
    pins: dict[str, str] = {}
    lines = (LOCKS / name).read_text(encoding="utf-8").splitlines()
    assert lines[0].startswith(f"# ci-forensics {__version__}: "), f"{name} was locked for another release"
    hashes_of_current = 0
    for line in lines:
        if line.startswith("#"):
            continue
        if match := PIN.match(line):
            assert hashes_of_current or not pins, f"{name}: a pin without a hash before {line}"
            key = canonicalize_name(match["name"])
            assert key not in pins, f"{name}: {key} pinned twice"
            pins[key] = match["version"]
            if match["marker"] and markers is not None:
                markers[key] = match["marker"]
            hashes_of_current = 0
        else:
            assert HASH.match(line), f"{name}: not a pin or a hash: {line!r}"
            hashes_of_current += 1
    assert hashes_of_current, f"{name}: the last pin has no hash"
    return pins


def test_pyproject_version_and_changelog_agree() -> None:
    assert PROJECT["project"]["version"] == __version__
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    headings = re.findall(r"^## (\S+)", changelog, flags=re.M)
    assert headings[0] == "Unreleased", "entries for the next release go under ## Unreleased, at the top"
    assert headings[1] == __version__, "the newest release section of CHANGELOG.md is this version"
    assert re.fullmatch(r"\d+\.\d+\.\d+", __version__)


def test_the_cli_says_the_version() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "forensics", "--version"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert result.stdout == f"ci-forensics, version {__version__}\n"


@pytest.mark.parametrize(
    ("lock", "requirements"),
    [
        ("action.lock", PROJECT["project"]["dependencies"]),
        ("postgres.lock", PROJECT["project"]["optional-dependencies"]["postgres"]),
        ("build.lock", PROJECT["build-system"]["requires"]),
    ],
)
def test_each_lock_pins_what_pyproject_asks_for(lock: str, requirements: list[str]) -> None:
    """Every requirement pinned in range, with its environment marker (hyperscan: no wheel for Linux aarch64,
    where pip must skip it rather than build its sdist), and no marker on a pin pyproject does not mark."""
    markers: dict[str, str] = {}
    pins = _pins(lock, markers)
    for text in requirements:
        requirement = Requirement(text)
        name = canonicalize_name(requirement.name)
        assert name in pins, f"{lock} does not pin {name}: run `make lock`"
        assert requirement.specifier.contains(pins[name], prereleases=True), (lock, name, pins[name])
        assert markers.pop(name, None) == (str(requirement.marker) if requirement.marker else None), (
            lock,
            name,
        )
    assert not markers, f"{lock}: markers pyproject does not ask for: {markers}"


def test_the_locks_do_not_overlap_and_postgres_adds_only_the_driver() -> None:
    runtime, postgres, build = _pins("action.lock"), _pins("postgres.lock"), _pins("build.lock")
    assert not set(runtime) & set(postgres)
    assert {"psycopg", "psycopg-binary"} <= set(postgres)
    assert "hatchling" in build


def test_the_runtime_closure_is_pinned_and_is_what_this_environment_tests() -> None:
    """Every dependency of a pinned package is pinned too, at the version installed here (what the suite ran).

    A failure means the environment moved away from the lock: `make lock` re-pins to it (after `make test`),
    or `make dev` in a fresh clone installs exactly the pins.
    """
    pins = {**_pins("action.lock"), **_pins("postgres.lock")}
    installed = {
        canonicalize_name(distribution.metadata["Name"]): distribution
        for distribution in importlib.metadata.distributions()
    }
    for name, version in pins.items():
        assert name in installed and installed[name].version == version, (
            f"{name}: locked {version}, installed {installed[name].version if name in installed else 'nothing'}"
        )
        for text in installed[name].requires or []:
            requirement = Requirement(text)
            environment = {"extra": "binary" if name == "psycopg" else ""}
            if requirement.marker and not requirement.marker.evaluate(environment):
                continue
            assert canonicalize_name(requirement.name) in pins, (
                f"{name} needs {requirement}, which is not pinned"
            )


def test_the_docs_pin_this_release_by_tag_and_by_commit() -> None:
    action = (ROOT / "docs" / "action.md").read_text(encoding="utf-8")
    assert f"uses: OWNER/ci-forensics@v{__version__}\n" in action
    assert re.search(rf"uses: OWNER/ci-forensics@[0-9a-f]{{40}} # v{re.escape(__version__)}\n", action)
    assert f"ci-forensics@v{__version__}" in (ROOT / "README.md").read_text(encoding="utf-8")
