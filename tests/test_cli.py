"""The command line: formats, outputs, exit codes (0 done, 1 error, 2 usage, 3 fail-on), stdin, --demo."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from forensics.cli.main import SAMPLE, main
from tests.support.dashboard_data import dashboard_document

SEED_LINE = (
    "[BASH] [rank0]: ValueError: Free memory on device cuda:0 (19.5/22.03 GiB) on startup is less than desired "
    "GPU memory utilization (0.9, 19.83 GiB). Decrease GPU memory utilization or reduce GPU memory used by other "
    "processes.\n"
)


def _run(*args: str, input: str | None = None):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(main, list(args), input=input, catch_exceptions=False)


def test_demo_names_the_seed_cause_with_its_numbers() -> None:
    result = _run("analyze", "--demo")
    assert result.exit_code == 0, result.output
    assert "failing tests:" in result.output
    assert "GPU already in use: vLLM's startup free-memory check failed — 3 tests" in result.output
    assert "0.33 GiB short" in result.output


def test_json_output_to_a_file_is_the_versioned_contract(tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    result = _run("analyze", "--demo", "--format", "json", "--output", str(out))
    assert result.exit_code == 0 and result.output == ""
    document = json.loads(out.read_text())
    assert document["schema_version"] == "1.5"
    assert set(document) >= {"summary", "tests", "groups", "problems", "inputs", "headline"}
    seed = next(t for t in document["tests"] if t["name"] == "test_serve_deployment[mm_epd_qwen3-vl-2b]")
    assert seed["status"] == "broken"
    assert seed["root_cause"]["rule"] == "vllm.startup-free-memory"
    assert seed["root_cause"]["fields"]["shortfall_gib"] == 0.33
    assert set(seed["root_cause"]["evidence"]) >= {"attachment", "line", "text"}
    assert {"type", "name", "url"} <= set(seed["links"][0])
    assert any(t["key"] == "OPS-4445" for t in seed["tickets"])
    assert (
        document["summary"]["failing"]
        == document["summary"]["explained"] + document["summary"]["unexplained"]
    )


def test_stdin_is_a_log(tmp_path: Path) -> None:
    result = _run("analyze", "-", "--format", "markdown", input="noise\n" + SEED_LINE)
    assert result.exit_code == 0
    assert "1 failing test: 1 explained (100%), 0 unexplained" in result.output
    assert "> 2 | [BASH] [rank0]: ValueError: Free memory" in result.output


def test_fail_on_unexplained_exits_3_and_errors_exit_1_with_a_hint(tmp_path: Path) -> None:
    log = tmp_path / "mystery.log"
    log.write_text("KeyError: 'choices'\n")
    assert _run("analyze", str(log)).exit_code == 0
    assert _run("analyze", str(log), "--fail-on", "unexplained").exit_code == 3
    explained = tmp_path / "known.log"
    explained.write_text(SEED_LINE)
    assert _run("analyze", str(explained), "--fail-on", "unexplained").exit_code == 0
    assert _run("analyze", str(explained), "--fail-on", "failures").exit_code == 3
    missing = _run("analyze", str(tmp_path / "nope"))
    assert missing.exit_code == 1
    assert "Error: " in missing.output and "does not exist" in missing.output and "Hint: " in missing.output


def test_usage_errors_exit_2() -> None:
    assert _run("analyze").exit_code == 2
    assert _run("analyze", "--demo", "--format", "pdf").exit_code == 2
    assert _run("analyze", "--demo", "--max-log-size", "lots").exit_code == 2


def test_log_attachment_option_changes_which_attachments_are_read(reference: Path) -> None:
    zipped = str(reference / "allure-results.zip")
    default = json.loads(_run("analyze", zipped, "--format", "json").output)
    only_stderr = json.loads(_run("analyze", zipped, "--format", "json", "--log-attachment", "stderr").output)
    logs = {t["name"]: [log["attachment"] for log in t["logs"]] for t in only_stderr["tests"]}
    assert logs["test_engine_startup_assert"] == ["stderr"]
    assert default["summary"]["explained"] >= only_stderr["summary"]["explained"]


def test_rules_commands() -> None:
    tested = _run("rules", "test")
    assert tested.exit_code == 0, tested.output
    assert tested.output.strip().endswith(" passed, 0 failed")
    listed = _run("rules", "list", "--kind", "symptom")
    assert "vllm.engine-core-init-failed" in listed.output and "vllm.startup-free-memory" not in listed.output
    explained = _run("rules", "explain", "vllm.startup-free-memory")
    assert "shortfall_gib = 0.33" in explained.output and "max_utilization = 0.88" in explained.output
    unknown = _run("rules", "explain", "vllm.free-memory")
    assert unknown.exit_code == 1 and "no rule 'vllm.free-memory'" in unknown.output


def test_rules_test_fails_by_name_for_a_broken_example(tmp_path: Path) -> None:
    path = tmp_path / "mine.toml"
    path.write_text(
        '[[rule]]\nid = "mine.x"\ntitle = "x"\ncategory = "test"\nkind = "cause"\npatterns = ["boom (?P<n>\\\\d+)"]\n'
        'summary = "n={n}"\nadvice = "a"\n[[rule.examples]]\ntext = "boom 7"\nfields = { n = 8 }\n'
        '[[rule.near_misses]]\ntext = "boom 9"\n'
    )
    result = _run("rules", "test", str(path))
    assert result.exit_code == 3
    assert "FAIL mine.x" in result.output
    assert "n: expected 8, got 7" in result.output
    assert "near miss 1: matched line 1" in result.output


def test_python_dash_m_runs_the_cli() -> None:
    completed = subprocess.run(
        [sys.executable, "-m", "forensics", "--version"], capture_output=True, text=True, check=False
    )
    assert completed.returncode == 0 and "ci-forensics" in completed.stdout


def test_an_unwritable_output_is_an_error_with_a_hint(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    result = CliRunner().invoke(main, ["analyze", "--demo", "-o", str(blocker / "report.json")])
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit)  # no traceback
    assert "Error: cannot write " in result.output and "report.json" in result.output
    assert "Hint: give a file in a folder that exists" in result.output


def test_a_store_that_fails_never_costs_the_report(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    out = tmp_path / "report.json"
    result = _run(
        "analyze",
        "--demo",
        "--format",
        "json",
        "-o",
        str(out),
        "--record",
        "--store",
        str(blocker / "h.sqlite3"),
    )
    assert result.exit_code == 1
    assert json.loads(out.read_text())["summary"]["failing"] == 7  # written before the store was tried
    assert "Error: " in result.output and "h.sqlite3" in result.output


def test_other_logs_beside_downloaded_artifacts_are_not_tests(tmp_path: Path) -> None:
    folder = tmp_path / "artifacts"
    folder.mkdir()
    (folder / "allure-results-vllm-Test-amd64-1-2.zip").write_bytes(SAMPLE.read_bytes())
    (folder / "pip.log").write_text("ERROR: pip's dependency resolver does not currently take into account\n")
    (folder / "job-72349014718.log").write_text(SEED_LINE)
    document = json.loads(_run("analyze", str(folder), "--format", "json").output)
    assert document["summary"]["failing"] == 8  # the sample's 7 and the downloaded job log, not pip.log
    assert [i["path"].rsplit("/", 1)[-1] for i in document["inputs"]] == [
        "allure-results-vllm-Test-amd64-1-2.zip",
        "job-72349014718.log",
    ]


def test_an_unwritable_dashboard_folder_is_an_error_with_a_hint(tmp_path: Path) -> None:
    data = tmp_path / "data.json"
    data.write_text(json.dumps(dashboard_document()), encoding="utf-8")
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    result = CliRunner().invoke(main, ["dashboard", "--data", str(data), "--out", str(blocker / "site")])
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit)
    assert "Error: cannot write the dashboard into" in result.output
    assert "Hint: give --out a folder you can write to" in result.output


def test_download_only_refuses_options_it_would_ignore(tmp_path: Path) -> None:
    for extra in (["--record"], ["--annotate"], ["--format", "json"], ["--fail-on", "failures"]):
        result = CliRunner().invoke(
            main, ["fetch", "--job", "1", "--repo", "a/b", "--download-only", str(tmp_path), *extra]
        )
        assert result.exit_code == 2, extra
        assert "--download-only only downloads" in result.output
