"""A store an older ci-forensics wrote with a bad value in it still answers (issue 11): such rows are left
out with a warning, never a `ValueError: year -31686769 is out of range` on every later read."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner

from forensics.cli.main import main
from forensics.dashboard.document import dashboard_data
from forensics.errors import StoreError
from forensics.model import Report
from forensics.rules.model import RuleSet
from forensics.store import Store, open_store
from forensics.store.answers import cause_stats, history, stored_failures
from forensics.store.queries import Filters, findings, hits, skipped_rows
from forensics.store.sqlite import SQLiteStore
from forensics.store.writer import record_report
from forensics.usecases.reanalyze import reanalyze
from tests.store.nightly import START, nightly

NOW = START + timedelta(days=3)
BROKEN_AT = -(10**15)  # a result's "start": -1e18 (milliseconds) as an older release recorded it


def _store_with_a_broken_run(store: Store, report: Report) -> None:
    record_report(store, nightly(report, day=0))
    record_report(store, nightly(report, day=1))
    with store.transaction():
        store.execute("UPDATE runs SET at = ? WHERE run_id = ?", (BROKEN_AT, 9_000_001))


def test_every_reader_leaves_out_a_run_whose_time_no_date_can_hold(
    store: Store, sample_report: Report, rule_pack: RuleSet
) -> None:
    _store_with_a_broken_run(store, sample_report)
    [problem] = skipped_rows(store)
    assert "1 recorded run(s) have a time no date can hold" in problem.message
    found = history(store, now=NOW, days=7)
    assert found.runs == 1 and found.failing == len(sample_report.failing)
    key = found.causes[0].key
    stats = cause_stats(store, key=key, repository=None, now=NOW)
    assert stats is not None and stats.total == found.causes[0].window_hits  # the broken run is not counted
    data = dashboard_data(store, now=NOW, days=7)
    assert json.dumps(data) and data["totals"]["runs"] == 1
    assert reanalyze(store, rules=rule_pack).examined == len(sample_report.failing)


def test_the_cli_warns_and_still_answers(store_location: str, tmp_path: Path, sample_report: Report) -> None:
    with open_store(store_location, default_dir=tmp_path) as store:
        _store_with_a_broken_run(store, sample_report)
    for command in (["history", "--days", "3650"], ["dashboard", "--out", str(tmp_path / "site")]):
        result = CliRunner().invoke(main, [*command, "--store", store_location])
        assert result.exit_code == 0, result.output
        assert "have a time no date can hold" in result.stderr
        assert result.exception is None


def test_a_schema_version_that_is_not_a_number_is_a_store_error(tmp_path: Path) -> None:
    location = tmp_path / "history.sqlite3"
    with open_store(str(location), default_dir=tmp_path):
        pass
    with SQLiteStore(location) as raw, raw.transaction():  # SQLite keeps text in an INTEGER column
        raw.execute("UPDATE schema_version SET version = 'abc'")
    with pytest.raises(StoreError, match="schema version that is not a number: 'abc'") as raised:
        open_store(str(location), default_dir=tmp_path, mode="read")
    assert "backup" in raised.value.hint
    result = CliRunner().invoke(main, ["history", "--store", str(location)])
    assert result.exit_code == 1 and "Error:" in result.stderr and result.exception is not None


def test_a_damaged_kind_reads_as_unexplained_and_never_as_a_cause(
    store: Store, sample_report: Report, rule_pack: RuleSet
) -> None:
    record_report(store, nightly(sample_report, day=0))
    [[explained]] = store.query("SELECT MIN(id) FROM tests WHERE cause_kind = 'cause'")
    # The database has no CHECK on kinds: a hand edit or another tool can put anything there.
    with store.transaction():
        store.execute("UPDATE tests SET cause_kind = 'Cause ' WHERE id = ?", (explained,))
        store.execute("UPDATE findings SET kind = 'bogus' WHERE test = ?", (explained,))
    [hit] = [hit for hit in hits(store, Filters()) if hit.test_pk == explained]
    assert hit.kind == "unexplained"
    assert findings(store, [explained])[explained].kind == "unexplained"
    [failure] = [one for one in stored_failures(store, Filters()) if one.test_pk == explained]
    assert failure.cause_kind == "unexplained"
    found = history(store, now=NOW, days=7)
    assert found.failing == len(sample_report.failing)  # still answers, nothing left out
    assert json.dumps(dashboard_data(store, now=NOW, days=7))
