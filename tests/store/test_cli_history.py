"""The command line: `analyze --record`, `history`, `reanalyze`, the store from --store or CI_FORENSICS_STORE."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from forensics.cli.main import main
from forensics.store import SCHEMA_VERSION, open_store
from tests.store.conftest import SAMPLE
from tests.store.test_reanalyze import HANDLER_RULE

ALL_DAYS = ("--days", "3660")  # the sample's tests ran on a fixed date: keep it in the window for years


def _run(*args: str, columns: int = 80) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False, env={"COLUMNS": str(columns)})


@pytest.fixture
def artifact(tmp_path: Path) -> Path:
    """The sample artifact at a path of its own (so a test can let it 'expire')."""
    copy = tmp_path / "allure-results.zip"
    shutil.copy(SAMPLE, copy)
    return copy


def test_analyze_record_saves_the_report_once(store_location: str, artifact: Path) -> None:
    first = _run("analyze", str(artifact), "--format", "json", "--record", "--store", store_location)
    assert first.exit_code == 0, first.output
    assert json.loads(first.stdout)["summary"]["failing"] == 7  # stdout stays the report
    assert first.stderr.startswith("Recorded local run ") and ": 19 tests (7 failing)\n" in first.stderr
    again = _run("analyze", str(artifact), "--record", "--store", store_location, "--fail-on", "unexplained")
    assert again.exit_code == 3  # --fail-on still decides the exit code
    assert "was already recorded in " in again.stderr and "nothing changed" in again.stderr
    without = _run("analyze", str(artifact), "--store", store_location)
    assert without.exit_code == 0 and without.stderr == ""  # --store alone records nothing


def test_what_analyze_record_stores_holds_no_secret_of_the_environment(
    store_location: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The path the Action takes (`fetch`/`analyze --record`): a *_TOKEN value the log prints is not stored."""
    secret = "pw-7f3a9c-plain-value-41"  # no known shape: only the environment's value names it a secret
    monkeypatch.setenv("DEPLOY_TOKEN", secret)
    log = tmp_path / "job.log"
    log.write_text(f"INFO connecting with {secret}\nKeyError: 'token_ids' for {secret}\n")
    result = _run("analyze", str(log), "--record", "--store", store_location)
    assert result.exit_code == 0 and ": 1 tests (1 failing)" in result.stderr, result.output
    with open_store(store_location, default_dir=tmp_path, mode="read") as store:
        rows = [
            store.query(f"SELECT * FROM {table}") for table in ("runs", "tests", "findings", "evidence_logs")
        ]
    assert secret not in repr(rows) and "[REDACTED]" in repr(rows)


def test_history_text_and_json(store_location: str, artifact: Path) -> None:
    assert _run("analyze", str(artifact), "--record", "--store", store_location).exit_code == 0
    text = _run("history", "--store", store_location, *ALL_DAYS, columns=160)
    assert text.exit_code == 0, text.output
    assert text.stdout.startswith("History: last 3660 days (")
    assert "1 run, 1 job, 7 failing tests: 6 explained (86%)" in text.stdout
    assert "vllm.startup-free-memory · infrastructure — 3 hits, 3 tests" in text.stdout
    assert "Flaky: passed and failed on the same commit" in text.stdout
    assert (
        "│ test_kv_router_decisions[nats] │ -      │      1 │      1 │    1 │ failed, then passed on retry"
        in text.stdout
    )
    document = json.loads(_run("history", "--store", store_location, "--format", "json", *ALL_DAYS).stdout)
    assert document["window_days"] == 3660 and document["totals"]["failing_tests"] == 7
    assert document["causes"][0]["key"] == "vllm.startup-free-memory"
    one = json.loads(
        _run(
            "history", "--store", store_location, "--format", "json", "--cause", "hf.gated-repo", *ALL_DAYS
        ).stdout
    )
    assert [cause["key"] for cause in one["causes"]] == ["hf.gated-repo"] and one["filters"][
        "cause"
    ] == "hf.gated-repo"
    other = _run("history", "--store", store_location, "--format", "json", "--repo", "x/y")
    assert other.exit_code == 1 and other.stdout == ""  # not "no failing tests": the store has no such runs
    assert "Error: the history store has no run of repository 'x/y' (--repo)" in other.stderr


def test_unknown_filter_values_are_errors_that_name_the_closest_known_ones(
    store_location: str, artifact: Path
) -> None:
    assert _run("analyze", str(artifact), "--record", "--store", store_location).exit_code == 0
    typo = _run("history", "--store", store_location, "--cause", "vllm.startup-free-memroy", *ALL_DAYS)
    assert typo.exit_code == 1 and typo.stdout == ""
    assert typo.stderr == (
        "Error: the history store has no failing test with the cause or fingerprint "
        "'vllm.startup-free-memroy' (--cause)\n"
        "Hint: did you mean 'vllm.startup-free-memory' for --cause?\n"
    )
    nothing_close = _run("history", "--store", store_location, "--cause", "nope", *ALL_DAYS)
    assert "Hint: the store knows 5 other values; leave out --cause to see them all" in nothing_close.stderr
    for option in ("--workflow", "--branch"):
        unknown = _run("history", "--store", store_location, option, "nightly", *ALL_DAYS)
        assert unknown.exit_code == 1 and f"(--{option.lstrip('-')})" in unknown.stderr
    moved = _run("reanalyze", "--store", store_location, "--repo", "ai-dynamo/dynamo")
    assert moved.exit_code == 1 and "no run of repository 'ai-dynamo/dynamo' (--repo)" in moved.stderr
    known = _run("history", "--store", store_location, "--cause", "hf.gated-repo", *ALL_DAYS)
    assert known.exit_code == 0 and known.stderr == ""


def test_reanalyze_then_apply(store_location: str, artifact: Path, tmp_path: Path) -> None:
    assert _run("analyze", str(artifact), "--record", "--store", store_location).exit_code == 0
    rule = tmp_path / "handler.toml"
    rule.write_text(HANDLER_RULE)
    artifact.unlink()
    shown = _run("reanalyze", "--store", store_location, "--rules", str(rule))
    assert shown.exit_code == 0, shown.output
    assert "(0 from their artifacts, 7 from stored evidence): 1 moved." in " ".join(shown.stdout.split())
    assert "Run again with --apply" in shown.stdout
    applied = json.loads(
        _run(
            "reanalyze", "--store", store_location, "--rules", str(rule), "--apply", "--format", "json"
        ).stdout
    )
    assert applied["applied"] == 1 and applied["moves"][0]["after"]["key"] == "dynamo.handler-error"
    assert "nothing moved." in _run("reanalyze", "--store", store_location, "--rules", str(rule)).stdout
    document = json.loads(_run("history", "--store", store_location, "--format", "json", *ALL_DAYS).stdout)
    assert "dynamo.handler-error" in [cause["key"] for cause in document["causes"]]


def test_the_store_can_come_from_the_environment(
    tmp_path: Path, artifact: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    location = tmp_path / "team" / "history.sqlite3"
    monkeypatch.setenv("CI_FORENSICS_STORE", str(location))
    result = _run("analyze", str(artifact), "--record")
    assert result.exit_code == 0 and f"into {location}: 19 tests" in result.stderr
    assert json.loads(_run("history", "--format", "json", *ALL_DAYS).stdout)["totals"]["runs"] == 1


def test_a_newer_store_exits_1_with_a_hint(store_location: str, tmp_path: Path) -> None:
    with open_store(store_location, default_dir=tmp_path) as store, store.transaction():
        store.execute(
            "INSERT INTO schema_version (version, tool_version) VALUES (?, ?)", (SCHEMA_VERSION + 1, "9.4.0")
        )
    result = _run("history", "--store", store_location)
    assert result.exit_code == 1
    assert f"has schema version {SCHEMA_VERSION + 1} (written by ci-forensics 9.4.0)" in result.stderr
    assert "Hint: upgrade ci-forensics to 9.4.0 or later" in result.stderr


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    store = str(tmp_path / "h.sqlite3")
    assert _run("history", "--store", store, "--days", "0").exit_code == 2
    assert _run("history", "--store", store, "--format", "markdown").exit_code == 2
    assert _run("reanalyze", "--store", store, "--days", "-1").exit_code == 2
