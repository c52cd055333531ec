"""Opening a store: backend by location, schema created once, migrations numbered and upgraded in order, a newer
store refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from forensics.errors import StoreError
from forensics.rules.model import RuleSet
from forensics.store import SCHEMA_VERSION, Store, open_store
from forensics.store.answers import history
from forensics.store.postgres import PostgresStore
from forensics.store.schema import MIGRATIONS, migrate
from forensics.store.sqlite import SQLiteStore
from forensics.usecases.reanalyze import reanalyze
from forensics.version import __version__
from tests.store.nightly import START
from tests.store.old_stores import (
    VERSION_1_TOOL,
    build_version_1,
    connect,
    record_version_1_failure,
    schema_version,
)
from tests.store.servers import postgres_url, with_search_path

TABLES = {"schema_version", "runs", "jobs", "job_facts", "tests", "findings", "evidence_logs"}


def _tables(store: Store) -> set[str]:
    if store.dialect == "sqlite":
        rows = store.query("SELECT name FROM sqlite_master WHERE type = 'table'")
    else:
        rows = store.query(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()"
        )
    return {name for (name,) in rows}


def test_a_new_store_has_every_table_at_the_current_version(store: Store) -> None:
    assert _tables(store) == TABLES
    assert store.query("SELECT version, tool_version FROM schema_version ORDER BY version") == [
        (version, __version__) for version, _ in MIGRATIONS
    ]
    assert [version for version, _ in MIGRATIONS] == list(range(1, len(MIGRATIONS) + 1))  # numbered, no gaps
    assert SCHEMA_VERSION == MIGRATIONS[-1][0] == len(MIGRATIONS) == 2


def test_opening_again_migrates_nothing(store_location: str, tmp_path: Path) -> None:
    for _ in range(3):
        with open_store(store_location, default_dir=tmp_path) as store:
            assert migrate(store) == SCHEMA_VERSION
            assert store.scalar("SELECT COUNT(*) FROM schema_version") == len(MIGRATIONS)


def test_a_version_1_store_is_upgraded_and_keeps_its_rows(
    store_location: str, tmp_path: Path, rule_pack: RuleSet
) -> None:
    build_version_1(store_location)
    log = tmp_path / "job.log"
    log.write_text("INFO start\nERROR worker 7 exited with status 3\n")
    record_version_1_failure(store_location, log=log, text=log.read_text(), at=int(START.timestamp()))
    with connect(store_location) as old:
        assert old.query("SELECT version, tool_version FROM schema_version") == [(1, VERSION_1_TOOL)]
    with open_store(store_location, default_dir=tmp_path) as store:
        assert store.query("SELECT version FROM schema_version ORDER BY version") == [(1,), (2,)]
        assert store.query("SELECT input_path, input_identity FROM evidence_logs") == [(str(log), "")]
        assert history(store, now=START, days=1).failing == 1
        found = reanalyze(store, rules=rule_pack)  # no identity recorded: the file may be another one by now
        assert (found.examined, found.from_artifacts, found.from_evidence, found.moves) == (1, 0, 1, ())
    assert schema_version(store_location) == SCHEMA_VERSION


def test_a_store_from_a_newer_release_is_refused_untouched(store_location: str, tmp_path: Path) -> None:
    with open_store(store_location, default_dir=tmp_path) as store, store.transaction():
        store.execute(
            "INSERT INTO schema_version (version, tool_version) VALUES (?, ?)",
            (SCHEMA_VERSION + 1, "9.4.0"),
        )
    with pytest.raises(StoreError) as raised:
        open_store(store_location, default_dir=tmp_path)
    assert f"has schema version {SCHEMA_VERSION + 1} (written by ci-forensics 9.4.0)" in raised.value.message
    assert f"knows up to version {SCHEMA_VERSION}" in raised.value.message
    assert raised.value.hint.startswith("upgrade ci-forensics to 9.4.0 or later")


def test_the_default_location_is_a_sqlite_file_in_the_given_folder(tmp_path: Path) -> None:
    with open_store(None, default_dir=tmp_path / "data" / "ci-forensics") as store:
        assert isinstance(store, SQLiteStore)
        assert store.location == str(tmp_path / "data" / "ci-forensics" / "history.sqlite3")
    assert (tmp_path / "data" / "ci-forensics" / "history.sqlite3").is_file()


def test_sqlite_urls_and_wal_mode(tmp_path: Path) -> None:
    with open_store(f"sqlite:///{tmp_path}/a.sqlite3", default_dir=tmp_path) as store:
        assert store.location == f"{tmp_path}/a.sqlite3"
        assert store.query("PRAGMA journal_mode") == [("wal",)]
        assert store.query("PRAGMA foreign_keys") == [(1,)]


def test_a_file_that_is_not_a_database_is_a_store_error(tmp_path: Path) -> None:
    junk = tmp_path / "history.sqlite3"
    junk.write_bytes(b"this is not SQLite\n" * 200)
    with pytest.raises(StoreError) as raised:
        open_store(str(junk), default_dir=tmp_path)
    assert str(junk) in raised.value.message
    assert "move that file away" in raised.value.hint


def test_unknown_schemes_are_refused(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="unknown history store 'mysql://…'"):
        open_store("mysql://db/history", default_dir=tmp_path)


def test_an_unreachable_server_names_it_without_the_password(tmp_path: Path) -> None:
    closed_port = "postgresql://triage:hunter2-secret@127.0.0.1:1/history?connect_timeout=2"
    with pytest.raises(StoreError) as raised:
        open_store(closed_port, default_dir=tmp_path)
    assert raised.value.message.startswith(
        "cannot connect to history store postgresql://triage@127.0.0.1:1/history"
    )
    assert "hunter2" not in raised.value.message and "hunter2" not in raised.value.hint
    assert "PGPASSWORD" in raised.value.hint


def test_failed_writes_roll_back(store: Store) -> None:
    with pytest.raises(StoreError), store.transaction():
        store.execute("INSERT INTO schema_version (version, tool_version) VALUES (?, ?)", (99, "x"))
        store.execute("INSERT INTO no_such_table VALUES (1)")
    assert store.scalar("SELECT MAX(version) FROM schema_version") == SCHEMA_VERSION


def test_a_postgres_store_is_named_by_server_and_database() -> None:
    url = postgres_url()
    with PostgresStore(with_search_path(url, "public")) as store:
        assert store.location == url.split("?")[0]
        assert store.scalar("SELECT 1") == 1
