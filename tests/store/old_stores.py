"""Stores as an earlier ci-forensics left them: built with that release's migrations, filled with plain SQL."""

from __future__ import annotations

from pathlib import Path

from forensics.store.base import Store
from forensics.store.postgres import PostgresStore
from forensics.store.schema import migrate
from forensics.store.sqlite import SQLiteStore

VERSION_1_TOOL = "0.1.0"


def connect(location: str) -> Store:
    """The store at `location`, connected without creating or migrating anything."""
    if location.startswith("postgresql://"):
        return PostgresStore(location)
    return SQLiteStore(Path(location))


def schema_version(location: str) -> int:
    """The highest migration the store at `location` ran."""
    with connect(location) as store:
        return int(store.scalar("SELECT MAX(version) FROM schema_version"))


def build_version_1(location: str) -> None:
    """An empty store at schema version 1 (before evidence logs kept their input's content identity)."""
    with connect(location) as store:
        assert migrate(store, target=1) == 1
        with store.transaction():  # as the release that wrote version 1 stamped it, whatever this one is
            store.execute("UPDATE schema_version SET tool_version = ? WHERE version = 1", (VERSION_1_TOOL,))


def record_version_1_failure(location: str, *, log: Path, text: str, at: int) -> None:
    """One unexplained failing plain log, as version 1 recorded it: no content identity for its file."""
    with connect(location) as store, store.transaction():
        store.execute(
            "INSERT INTO runs (provider, repository, run_id, run_attempt, workflow, workflow_path, branch, event,"
            " head_sha, run_url, at, recorded_at, tool_version, rules_loaded)"
            " VALUES ('local', '', 1, 1, '', '', '', '', '', '', ?, ?, ?, 1)",
            (at, at, VERSION_1_TOOL),
        )
        run = store.scalar("SELECT id FROM runs")
        store.execute(
            "INSERT INTO jobs (run, job_id, name, url, conclusion, runner_name, runner_labels, started_at,"
            " completed_at) VALUES (?, 0, '', '', '', '', '[]', '', '')",
            (run,),
        )
        job = store.scalar("SELECT id FROM jobs")
        store.execute(
            "INSERT INTO tests (run, job, test_key, name, full_name, status, failing, retries, previous_statuses,"
            " cause_kind, cause_key) VALUES (?, ?, ?, ?, ?, 'failed', 1, 0, '[]', 'unexplained', 'f00d')",
            (run, job, str(log), log.name, str(log)),
        )
        test = store.scalar("SELECT id FROM tests")
        store.execute(
            "INSERT INTO findings (test, kind, key, title, category, summary, advice, fields, tickets, symptoms,"
            " attachment, line, text, location, excerpt, masked)"
            " VALUES (?, 'unexplained', 'f00d', ?, '', ?, '', '{}', '[]', '[]', ?, 1, ?, 'file', '[]', ?)",
            (test, text, text, log.name, text, text),
        )
        store.execute(
            "INSERT INTO evidence_logs (test, test_uuid, input_path, input_label, source, attachment, location,"
            " first_line, text, message) VALUES (?, ?, ?, ?, ?, ?, 'file', 1, ?, '')",
            (test, f"log:{log}", str(log), str(log), str(log), log.name, text),
        )
