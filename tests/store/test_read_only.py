"""Reading commands never create or migrate a store: `history`, `dashboard`, `reanalyze` without --apply, and
the history that `annotate` (and `fetch --annotate` without --record) put into ticket comments."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from forensics.cli.main import main
from forensics.cli.store_settings import StoreSettings
from forensics.errors import StoreError, StoreNotFoundError
from forensics.model import Report
from forensics.render.json_report import render_json
from forensics.store import SCHEMA_VERSION, open_store
from forensics.store.writer import record_report
from tests.store.conftest import SAMPLE
from tests.store.old_stores import build_version_1, connect, schema_version

MISSING_HINT = (
    "Hint: record one first: `ci-forensics analyze … --record` (or check --store / CI_FORENSICS_STORE)"
)
ALL_DAYS = ("--days", "3660")


def _run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def _exists(location: str) -> bool:
    """Whether anything is at `location`: the SQLite file, or any table in the PostgreSQL schema."""
    if not location.startswith("postgresql://"):
        return Path(location).exists()
    with connect(location) as store:
        return bool(
            store.scalar(
                "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = current_schema()"
            )
        )


def _named(location: str) -> str:
    """How messages name the store: the path, or the server and database without the options."""
    return location.split("?", maxsplit=1)[0] if location.startswith("postgresql://") else location


@pytest.fixture
def report_json(tmp_path: Path, sample_report: Report) -> Path:
    """The sample report saved as JSON, as `annotate` reads it."""
    path = tmp_path / "report.json"
    path.write_text(render_json(sample_report))
    return path


@pytest.mark.parametrize(
    "command",
    [
        ("history",),
        ("history", "--format", "json"),
        ("reanalyze",),
        ("reanalyze", "--apply"),
        ("dashboard", "--out", "site"),
    ],
    ids=["history", "history-json", "reanalyze", "reanalyze-apply", "dashboard"],
)
def test_a_missing_store_is_an_error_and_stays_missing(
    store_location: str, command: tuple[str, ...], workdir: Path
) -> None:
    result = _run(*command, "--store", store_location)
    assert result.exit_code == 1, result.output
    assert result.stderr == f"Error: no history store at '{_named(store_location)}'\n{MISSING_HINT}\n"
    assert result.stdout == ""
    assert not _exists(store_location)
    assert not (workdir / "site").exists()


def test_a_typo_in_the_store_path_names_the_path(workdir: Path) -> None:
    open_store("history.sqlite3", default_dir=workdir).close()
    result = _run("history", "--store", "histroy.sqlite3")
    assert result.exit_code == 1
    assert "Error: no history store at 'histroy.sqlite3'" in result.stderr
    assert not (workdir / "histroy.sqlite3").exists()


def test_history_without_a_store_anywhere_does_not_create_the_default_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.delenv("CI_FORENSICS_STORE", raising=False)
    result = _run("history")
    assert result.exit_code == 1
    assert f"no history store at '{tmp_path / 'data' / 'ci-forensics' / 'history.sqlite3'}'" in result.stderr
    assert not (tmp_path / "data").exists()


def test_an_older_store_is_read_by_no_reading_command(store_location: str, workdir: Path) -> None:
    build_version_1(store_location)
    for command in (("history",), ("reanalyze",), ("dashboard", "--out", "site")):
        result = _run(*command, "--store", store_location)
        assert result.exit_code == 1, command
        assert "has schema version 1; this ci-forensics" in result.stderr
        assert "Hint: record into it once with this ci-forensics to upgrade it" in result.stderr
        assert schema_version(store_location) == 1
    upgraded = _run("reanalyze", "--apply", "--store", store_location)  # a writing command upgrades it
    assert upgraded.exit_code == 0, upgraded.output
    assert schema_version(store_location) == SCHEMA_VERSION
    assert (
        json.loads(_run("history", "--store", store_location, "--format", "json").stdout)["totals"]["runs"]
        == 0
    )


def test_reading_a_current_store_writes_nothing(store_location: str, tmp_path: Path, workdir: Path) -> None:
    artifact = tmp_path / "allure-results.zip"
    shutil.copy(SAMPLE, artifact)
    assert _run("analyze", str(artifact), "--record", "--store", store_location).exit_code == 0
    with connect(store_location) as store:
        before = store.query("SELECT version, tool_version FROM schema_version ORDER BY version")
    assert _run("history", "--store", store_location, *ALL_DAYS).exit_code == 0
    assert _run("reanalyze", "--store", store_location).exit_code == 0
    assert _run("dashboard", "--store", store_location, "--out", "site").exit_code == 0
    with connect(store_location) as store:
        assert store.query("SELECT version, tool_version FROM schema_version ORDER BY version") == before


def test_the_read_mode_refuses_what_it_cannot_read(store_location: str, tmp_path: Path) -> None:
    with pytest.raises(StoreNotFoundError):
        open_store(store_location, default_dir=tmp_path, mode="read")
    with pytest.raises(StoreNotFoundError):
        open_store(store_location, default_dir=tmp_path, mode="write")
    assert not _exists(store_location)
    build_version_1(store_location)
    with pytest.raises(StoreError) as raised:
        open_store(store_location, default_dir=tmp_path, mode="read")
    assert not isinstance(raised.value, StoreNotFoundError)
    assert schema_version(store_location) == 1
    with open_store(store_location, default_dir=tmp_path, mode="write"):
        pass
    assert schema_version(store_location) == SCHEMA_VERSION
    with open_store(store_location, default_dir=tmp_path, mode="read") as store:
        assert store.scalar("SELECT COUNT(*) FROM runs") == 0


def test_an_empty_sqlite_file_is_no_store_and_is_left_empty(tmp_path: Path) -> None:
    empty = tmp_path / "history.sqlite3"
    empty.touch()
    with pytest.raises(StoreNotFoundError):
        open_store(str(empty), default_dir=tmp_path, mode="read")
    assert empty.read_bytes() == b""


def test_ticket_history_reads_a_store_and_creates_none(store_location: str, sample_report: Report) -> None:
    reading = StoreSettings(record=False, location=store_location)
    with reading.history_for(sample_report) as history:
        assert history is None  # no store there: no history, and none created
    assert not _exists(store_location)
    build_version_1(store_location)
    with pytest.raises(StoreError, match="has schema version 1"), reading.history_for(sample_report):
        pass  # an older store is not migrated just to read it
    assert schema_version(store_location) == 1


def test_ticket_history_while_recording_uses_the_store_the_recording_made(
    store_location: str, sample_report: Report, tmp_path: Path
) -> None:
    recording = StoreSettings(record=True, location=store_location)
    with recording.history_for(sample_report) as history:
        assert history is not None and history("vllm.startup-free-memory") is None  # nothing recorded yet
    assert schema_version(store_location) == SCHEMA_VERSION
    with open_store(store_location, default_dir=tmp_path, mode="write") as store:
        record_report(store, sample_report)
    with StoreSettings(record=False, location=store_location).history_for(sample_report) as history:
        assert history is not None
        stats = history("vllm.startup-free-memory")
        assert stats is not None and stats.total == 3


def test_annotate_dry_run_creates_and_migrates_nothing(
    store_location: str, report_json: Path, monkeypatch: pytest.MonkeyPatch, workdir: Path
) -> None:
    monkeypatch.setenv("CI_FORENSICS_STORE", store_location)
    missing = _run("annotate", str(report_json), "--dry-run")
    assert missing.exit_code == 0, missing.output
    assert "would post" in missing.stdout and "**History:**" not in missing.stdout
    assert not _exists(store_location)
    build_version_1(store_location)
    older = _run("annotate", str(report_json), "--dry-run")
    assert older.exit_code == 1 and "has schema version 1" in older.stderr
    assert schema_version(store_location) == 1
