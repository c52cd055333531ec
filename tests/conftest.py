"""Shared fixtures: a quiet, token-free environment; Allure results made by the real plugin; the rule pack."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from forensics.rules.loader import load_rules
from forensics.rules.model import RuleSet
from tests.outside_reads import OutsideReads, allowed_folders, import_path
from tests.support.allure_runner import SCENARIOS_DIRECTORY, run_scenarios
from tests.support.browser import Visit, launched_browser, visiting
from tests.support.nights import NightBuilder

if TYPE_CHECKING:
    from playwright.sync_api import Browser

# gpu_suite provokes real failures on a GPU machine (tests/gpu_suite/README.md): never collected here, never in CI
collect_ignore = ["scenarios", "corpus", "gpu_suite"]

REFERENCE = Path(__file__).resolve().parent / "data"
_SECRET_WORDS = ("TOKEN", "SECRET", "PASSWORD", "API_KEY")
_COLOUR_VARIABLES = ("NO_COLOR", "FORCE_COLOR", "CLICOLOR_FORCE", "COLUMNS", "LINES", "TERM")


_SERVICE_PREFIXES = ("GITHUB_", "GH_", "LINEAR_", "JIRA_", "CI_FORENSICS_")
_KEPT = {"CI_FORENSICS_TEST_POSTGRES"}  # the throwaway server .ci/services started for the store tests


# Installed once per process, for the whole session: audit hooks cannot be removed.
OUTSIDE_READS = OutsideReads(allowed_folders(), listed=import_path())
sys.addaudithook(OUTSIDE_READS)


def pytest_sessionstart(session: pytest.Session) -> None:
    """Allow pytest's own temporary folder, wherever --basetemp put it."""
    if session.config.option.basetemp:
        OUTSIDE_READS.allow(session.config.option.basetemp)


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Fail the run when any test read a path outside the repository (a clone has nothing beside it)."""
    found = sorted(set(OUTSIDE_READS.found))
    if not found:
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    lines = [
        f"{len(found)} path(s) outside the repository were read (tests/outside_reads.py);"
        " copy what a test needs into tests/data/:",
        *(f"  {line}" for line in found[:30]),
    ]
    if reporter is not None:
        reporter.ensure_newline()
        for line in lines:
            reporter.write_line(line, red=True)
    else:
        print("\n".join(lines), file=sys.stderr)
    session.exitstatus = pytest.ExitCode.TESTS_FAILED


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
    """The reference data in tests/data/ (real allure-pytest output, public samples; see its SOURCES.md)."""
    return REFERENCE


@pytest.fixture(scope="session")
def rule_pack() -> RuleSet:
    """The shipped rule pack, loaded once and validated in full (session-wide: the user cache is not redirected yet)."""
    return load_rules(cache=False)


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


@pytest.fixture(scope="session")
def night_builder(rule_pack: RuleSet, tmp_path_factory: pytest.TempPathFactory) -> NightBuilder:
    """The simulated nights (tests/support/nights.py): each distinct job run once under allure-pytest per session."""
    return NightBuilder(tmp_path_factory.mktemp("nights"), rule_pack)


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    """Headless Chromium (tests/support/browser.py), one per session."""
    with launched_browser() as launched:
        yield launched


@pytest.fixture
def visit(browser: Browser) -> Iterator[Visit]:
    """A fresh page whose console errors, dialogs and requests are recorded."""
    with visiting(browser) as recorded:
        yield recorded
