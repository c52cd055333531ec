"""History store fixtures: every store test runs on a SQLite file and on a real PostgreSQL server.

The PostgreSQL URL comes from CI_FORENSICS_TEST_POSTGRES (`eval "$(.ci/services)"` starts a throwaway
server and sets it). Each test gets a schema of its own, dropped afterwards. Without the variable the
PostgreSQL cases are skipped on a workstation — and fail when CI is set, so CI can never skip them silently.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from forensics.model import Report
from forensics.report.build import analyze
from forensics.rules.model import RuleSet
from forensics.store import Store, open_store
from forensics.store.postgres import PostgresStore
from forensics.store.writer import record_report
from tests.store.nightly import nightly
from tests.store.servers import postgres_url, with_search_path
from tests.support.allure_runner import SCENARIOS_DIRECTORY, run_scenarios
from tests.support.nights import NightBuilder

SAMPLE = Path(__file__).resolve().parents[2] / "forensics" / "samples" / "nightly-allure-results.zip"
GPU_SCENARIO = SCENARIOS_DIRECTORY / "scenario_history_gpu.py"
PRE_MERGE = "Pre-merge GPU"
# The nightly workflow: which GPU each night ran on (nights 2 and 6 ran nothing at all).
NIGHTLY = {0: "L40S", 1: "L40S", 3: "A10G", 4: "A10G", 5: "L40S", 7: "L40S", 8: "L40S", 9: "L40S", 10: "A10G"}
PRE_MERGE_NIGHTS = (1, 4)  # the bundled sample's failures, in a second workflow


@pytest.fixture(params=["sqlite", "postgres"])
def store_location(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """Where a fresh, empty store lives: a SQLite file, or a PostgreSQL schema of this test's own."""
    if request.param == "sqlite":
        yield str(tmp_path / "history.sqlite3")
        return
    url = postgres_url()
    schema = f"test_{uuid.uuid4().hex[:16]}"
    with PostgresStore(url) as admin:
        admin.execute(f"CREATE SCHEMA {schema}")
    try:
        yield with_search_path(url, schema)
    finally:
        with PostgresStore(url) as admin:
            admin.execute(f"DROP SCHEMA {schema} CASCADE")


@pytest.fixture
def store(store_location: str, tmp_path: Path) -> Iterator[Store]:
    """The store at `store_location`, opened (and migrated)."""
    with open_store(store_location, default_dir=tmp_path) as opened:
        yield opened


@pytest.fixture(scope="session")
def sample_report(rule_pack: RuleSet) -> Report:
    """The bundled sample nightly artifact, analysed: 19 tests, 7 failing, 5 groups, one retry."""
    return analyze([str(SAMPLE)], rules=rule_pack)


@pytest.fixture(scope="session")
def gpu_results(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Path]:
    """Allure results of the GPU scenario run (by the real plugin) on an 'A10G' or an 'L40S'."""
    cache: dict[str, Path] = {}

    def results(gpu: str) -> Path:
        if gpu not in cache:
            target = tmp_path_factory.mktemp(f"allure-{gpu}")
            with pytest.MonkeyPatch.context() as patch:
                patch.setenv("SCENARIO_GPU", gpu)
                run_scenarios([GPU_SCENARIO], target)
            cache[gpu] = target
        return cache[gpu]

    return results


@pytest.fixture(scope="session")
def gpu_report(gpu_results: Callable[[str], Path], rule_pack: RuleSet) -> Callable[[str], Report]:
    """The GPU scenario's report on an 'A10G' (the seed case fails) or an 'L40S' (everything passes)."""
    cache: dict[str, Report] = {}

    def report(gpu: str) -> Report:
        if gpu not in cache:
            cache[gpu] = analyze([str(gpu_results(gpu))], rules=rule_pack)
        return cache[gpu]

    return report


@pytest.fixture
def nights(store: Store, sample_report: Report, gpu_report: Callable[[str], Report]) -> Store:
    """Eleven nights of two workflows on two GPUs, recorded from real reports (see NIGHTLY, PRE_MERGE_NIGHTS)."""
    for day, gpu in NIGHTLY.items():
        record_report(store, nightly(gpu_report(gpu), day=day, gpu=gpu))
    for day in PRE_MERGE_NIGHTS:
        record_report(
            store, nightly(sample_report, day=day, run_id=7_000_000 + day, workflow=PRE_MERGE, hour=3)
        )
    return store


@pytest.fixture
def simulated_nights(store: Store, night_builder: NightBuilder) -> Store:
    """The store with every run of tests/support/nights.py's plan recorded (each job a real allure-pytest run)."""
    night_builder.record(store)
    return store
