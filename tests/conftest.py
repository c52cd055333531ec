"""Shared fixtures: a quiet, token-free environment; Allure results made by the real plugin; the rule pack."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from forensics.rules.loader import load_rules
from forensics.rules.model import RuleSet
from tests.allure_runner import SCENARIOS_DIRECTORY, run_scenarios

# gpu_suite provokes real failures on a GPU machine (tests/gpu_suite/README.md): never collected here, never in CI
collect_ignore = ["scenarios", "corpus", "gpu_suite"]

REFERENCE = Path(__file__).resolve().parents[2] / "shared" / "reference"
_SECRET_WORDS = ("TOKEN", "SECRET", "PASSWORD", "API_KEY")
_COLOUR_VARIABLES = ("NO_COLOR", "FORCE_COLOR", "CLICOLOR_FORCE", "COLUMNS", "LINES", "TERM")


_SERVICE_PREFIXES = ("GITHUB_", "GH_", "LINEAR_", "JIRA_", "CI_FORENSICS_")
_KEPT = {"CI_FORENSICS_TEST_POSTGRES"}  # the throwaway server .ci/services started for the store tests


@pytest.fixture(autouse=True)
def quiet_environment(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    """No tokens, service settings or colour settings from the machine leak into a test.

    The per-user cache and data folders point into a temporary folder, so no test can touch a developer's
    download cache or history store (or a team store named by CI_FORENSICS_STORE).
    """
    for name in list(os.environ):
        if name in _KEPT:
            continue
        if (
            any(word in name for word in _SECRET_WORDS)
            or name in _COLOUR_VARIABLES
            or name.startswith(_SERVICE_PREFIXES)
        ):
            monkeypatch.delenv(name, raising=False)
        if name.startswith("PG"):  # libpq settings (PGHOSTADDR, PGSERVICE, …) would redirect the store tests
            monkeypatch.delenv(name, raising=False)
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / "cache"))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / "data"))
    monkeypatch.setenv("PGPASSFILE", str(home / "no-pgpass"))  # not the user's ~/.pgpass
    monkeypatch.setenv(
        "GIT_CONFIG_GLOBAL", os.devnull
    )  # `git remote get-url` without the user's url rewrites
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")


@pytest.fixture(scope="session")
def reference() -> Path:
    """The shared reference data (real allure-pytest output, public samples)."""
    if not REFERENCE.is_dir():
        pytest.fail(f"shared reference data not found at {REFERENCE}")
    return REFERENCE


@pytest.fixture(scope="session")
def rule_pack() -> RuleSet:
    """The shipped rule pack, loaded once."""
    return load_rules()


@pytest.fixture(scope="session")
def scenario_results(tmp_path_factory: pytest.TempPathFactory) -> Callable[..., Path]:
    """Run scenario files under the real allure-pytest plugin, once per combination, and return the results dir."""
    cache: dict[tuple[str, ...], Path] = {}

    def run(*names: str, extra_args: tuple[str, ...] = ()) -> Path:
        key = (*names, *extra_args)
        if key not in cache:
            target = tmp_path_factory.mktemp("allure-results")
            run_scenarios([SCENARIOS_DIRECTORY / name for name in names], target, extra_args=extra_args)
            cache[key] = target
        return cache[key]

    return run


@pytest.fixture
def workdir(tmp_path: Path) -> Iterator[Path]:
    """A temporary folder that is also the current directory."""
    old = Path.cwd()
    os.chdir(tmp_path)
    try:
        yield tmp_path
    finally:
        os.chdir(old)
