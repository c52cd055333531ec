"""Two CI jobs recording at the same moment into one store: both succeed, nothing is lost or doubled."""

from __future__ import annotations

import multiprocessing
from pathlib import Path
from typing import Any

from forensics.report.build import analyze
from forensics.rules.loader import load_rules
from forensics.store import open_store
from forensics.store.writer import record_report
from tests.store.conftest import SAMPLE
from tests.store.nightly import nightly

NIGHTS = 8


def _record_nights(location: str, default_dir: str, job_id: int, start: Any) -> None:
    """In a worker process: record job `job_id` of every night, starting when the other worker is ready."""
    report = analyze([str(SAMPLE)], rules=load_rules())
    start.wait(timeout=60)
    for day in range(NIGHTS):
        with open_store(location, default_dir=Path(default_dir)) as store:
            record_report(store, nightly(report, day=day, job_id=job_id))


def test_two_processes_record_at_once(store_location: str, tmp_path: Path) -> None:
    context = multiprocessing.get_context("spawn")
    start = context.Barrier(2)
    workers = [
        context.Process(target=_record_nights, args=(store_location, str(tmp_path), job_id, start))
        for job_id in (1, 2)
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=180)
    hung = [worker for worker in workers if worker.exitcode is None]
    for worker in hung:  # a hung worker holds the store's locks: the fixture could not drop the schema
        worker.kill()
        worker.join()
    assert not hung and [worker.exitcode for worker in workers] == [0, 0]
    with open_store(store_location, default_dir=tmp_path) as store:
        assert (
            store.scalar("SELECT COUNT(*) FROM runs") == NIGHTS
        )  # each night once, though both jobs created it
        assert store.scalar("SELECT COUNT(*) FROM jobs") == 2 * NIGHTS
        assert store.scalar("SELECT COUNT(*) FROM tests") == 2 * NIGHTS * 19
        assert store.scalar("SELECT COUNT(*) FROM findings") == 2 * NIGHTS * 7
