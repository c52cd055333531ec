"""`ci-forensics dashboard`: from a real history store (a run of the scenarios recorded into it) or a data.json."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from forensics.cli.main import main
from forensics.report.build import analyze
from forensics.rules.model import RuleSet
from forensics.store import open_store
from forensics.store.writer import record_report
from tests.support.dashboard_data import SEED_KEY, SEED_TITLE, dashboard_document

SEED_EVIDENCE = "Free memory on device cuda:0 (19.5/22.03 GiB) on startup is less than desired"


def _run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


@pytest.fixture
def history(tmp_path: Path, scenario_results: Callable[..., Path], rule_pack: RuleSet) -> Path:
    """A SQLite history store holding one nightly run of the scenarios (run now, by the real allure plugin)."""
    report = analyze(
        [str(scenario_results("scenario_nightly_vllm.py", "scenario_nightly_multigpu.py"))], rules=rule_pack
    )
    location = tmp_path / "history.sqlite3"
    with open_store(str(location), default_dir=tmp_path) as store:
        record_report(store, report)
    return location


def test_dashboard_from_the_history_store(tmp_path: Path, history: Path) -> None:
    out = tmp_path / "site"
    result = _run("dashboard", "--store", str(history), "--out", str(out))
    assert result.exit_code == 0, result.output
    assert f"Read the history store {history} (last 30 days); wrote" in result.output
    assert f"{out / 'index.html'}\n" in result.output and f"{out / 'data.json'}\n" in result.output
    document = json.loads((out / "data.json").read_text(encoding="utf-8"))
    assert document["schema_version"] == "1.1" and document["window_days"] == 30
    pages = sorted((out / "causes").glob("*.html"))
    assert len(pages) == len(document["causes"]) > 1
    assert f"causes/: {len(pages)} cause pages" in result.output
    totals = document["totals"]
    index = (out / "index.html").read_text(encoding="utf-8")
    share = round(100 * totals["explained"] / totals["failing_tests"])
    headline = f"{share}% of failures explained over the last 30 days ({totals['explained']} of {totals['failing_tests']})"
    assert headline in index
    assert f'href="causes/{SEED_KEY}.html"' in index
    seed_page = (out / "causes" / f"{SEED_KEY}.html").read_text(encoding="utf-8")
    assert SEED_TITLE in seed_page.replace("&#x27;", "'")
    assert SEED_EVIDENCE in seed_page
    assert "gpu_memory_utilization" in seed_page


def test_the_store_location_can_come_from_the_environment(
    tmp_path: Path, history: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CI_FORENSICS_STORE", str(history))
    result = _run("dashboard", "--out", str(tmp_path / "site"), "--days", "7")
    assert result.exit_code == 0, result.output
    assert f"Read the history store {history} (last 7 days)" in result.output
    assert json.loads((tmp_path / "site" / "data.json").read_text())["window_days"] == 7


def test_a_saved_data_json_builds_the_same_site(tmp_path: Path, history: Path) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    assert _run("dashboard", "--store", str(history), "--out", str(first)).exit_code == 0
    result = _run("dashboard", "--data", str(first / "data.json"), "--out", str(second))
    assert result.exit_code == 0, result.output
    assert result.output.startswith(f"Read {first / 'data.json'}; wrote ")
    built = sorted(path.relative_to(first) for path in first.rglob("*") if path.is_file())
    assert built == sorted(path.relative_to(second) for path in second.rglob("*") if path.is_file())
    for relative in built:
        assert (first / relative).read_bytes() == (second / relative).read_bytes(), relative


def test_a_data_file_from_another_pipeline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI_FORENSICS_STORE", str(tmp_path / "set-for-other-commands.sqlite3"))
    data = tmp_path / "dashboard.json"
    data.write_text(json.dumps(dashboard_document()), encoding="utf-8")
    result = _run("dashboard", "--data", str(data), "--out", str(tmp_path / "site"))
    assert result.exit_code == 0, result.output
    assert "causes/: 7 cause pages" in result.output
    assert (tmp_path / "site" / "causes" / f"{SEED_KEY}.html").is_file()
    assert not (tmp_path / "set-for-other-commands.sqlite3").exists()  # --data never opens the store


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    data = tmp_path / "data.json"
    data.write_text(json.dumps(dashboard_document()), encoding="utf-8")
    assert _run("dashboard", "--data", str(data)).exit_code == 2  # no --out
    both = _run(
        "dashboard",
        "--data",
        str(data),
        "--store",
        str(tmp_path / "h.sqlite3"),
        "--out",
        str(tmp_path / "site"),
    )
    assert both.exit_code == 2 and "give --store or --data, not both" in both.output
    days = _run("dashboard", "--data", str(data), "--days", "7", "--out", str(tmp_path / "site"))
    assert days.exit_code == 2 and "apply to --store" in days.output
    for option in (("--workflow", "Nightly"), ("--split-by", "workflow")):
        scoped = _run("dashboard", "--data", str(data), *option, "--out", str(tmp_path / "site"))
        assert scoped.exit_code == 2 and "has its window and scope already" in scoped.output
    assert _run("dashboard", "--out", str(tmp_path / "site"), "--days", "0").exit_code == 2
    assert not (tmp_path / "site").exists()


def test_unreadable_data_exits_1_with_a_hint(tmp_path: Path) -> None:
    missing = _run("dashboard", "--data", str(tmp_path / "nope.json"), "--out", str(tmp_path / "site"))
    assert missing.exit_code == 1
    assert f"Error: dashboard data {tmp_path / 'nope.json'} does not exist" in missing.output
    assert "Hint: " in missing.output
    broken = tmp_path / "broken.json"
    broken.write_text('{"schema_version": "1.0", ', encoding="utf-8")
    not_json = _run("dashboard", "--data", str(broken), "--out", str(tmp_path / "site"))
    assert not_json.exit_code == 1 and "is not JSON" in not_json.output
    incomplete = tmp_path / "incomplete.json"
    document = dashboard_document()
    del document["causes"][0]["last_seen"]
    incomplete.write_text(json.dumps(document), encoding="utf-8")
    wrong = _run("dashboard", "--data", str(incomplete), "--out", str(tmp_path / "site"))
    assert wrong.exit_code == 1
    assert f"Error: {incomplete}: causes[0] has no 'last_seen'" in wrong.output
    assert not (tmp_path / "site").exists()
