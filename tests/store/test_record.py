"""Recording reports: what a run keeps, natural keys that make a second recording change nothing, redacted and
bounded evidence text, GPU facts from the logs, and stable keys for local analyses."""

from __future__ import annotations

import dataclasses
import json
import shutil
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from forensics.model import Report
from forensics.render.json_report import render_json
from forensics.report.build import AnalyzeOptions, analyze
from forensics.report.evidence import MAX_WINDOW_BYTES
from forensics.report.identity import input_identity
from forensics.report.redact import Redactor, redact_report
from forensics.report.saved import report_from_dict
from forensics.rules.model import RuleSet
from forensics.store import Store
from forensics.store.writer import local_run_id, record_report
from tests.store.conftest import SAMPLE
from tests.store.nightly import START, nightly, run_url

TABLES = ("runs", "jobs", "job_facts", "tests", "findings", "evidence_logs")
SEED = "test_serve_deployment[mm_epd_qwen3-vl-2b]"
SEED_LINE = (
    "ValueError: Free memory on device cuda:0 (19.5/22.03 GiB) on startup is less than desired GPU memory "
    "utilization (0.9, 19.83 GiB). Decrease GPU memory utilization or reduce GPU memory used by other processes."
)


def dump(store: Store) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table, in a stable order."""
    return {table: sorted(store.query(f"SELECT * FROM {table}"), key=repr) for table in TABLES}


def counts(store: Store) -> dict[str, int]:
    return {table: store.scalar(f"SELECT COUNT(*) FROM {table}") for table in TABLES}


def test_recording_the_same_run_twice_changes_nothing(store: Store, sample_report: Report) -> None:
    report = nightly(sample_report, day=3)
    first = record_report(store, report)
    assert (first.run, first.new_run, first.jobs, first.tests, first.failing) == (
        "github acme/inference run 9000003",
        True,
        1,
        19,
        7,
    )
    before = dump(store)
    again = record_report(store, report, now=datetime.now(UTC) + timedelta(days=2))
    assert (again.new_run, again.jobs, again.tests, again.failing) == (False, 0, 0, 0)
    assert dump(store) == before
    assert counts(store) == {
        "runs": 1,
        "jobs": 1,
        "job_facts": 6,
        "tests": 19,
        "findings": 7,
        "evidence_logs": 7,
    }


def test_what_a_run_keeps(store: Store, sample_report: Report) -> None:
    record_report(store, nightly(sample_report, day=3, sha="a" * 40))
    run = store.query(
        "SELECT provider, repository, run_id, run_attempt, workflow, branch, event, head_sha, run_url, at FROM runs"
    )
    at = int((START + timedelta(days=3)).timestamp())
    assert run == [
        (
            "github",
            "acme/inference",
            9000003,
            1,
            "Nightly CI Pipeline",
            "main",
            "schedule",
            "a" * 40,
            run_url(9000003),
            at,
        )
    ]
    assert store.query("SELECT job_id, runner_name, runner_labels, conclusion FROM jobs") == [
        (90000031, "gpu-a10g-01", '["self-hosted", "linux", "gpu"]', "failure")
    ]
    facts = set(store.query("SELECT dimension, value FROM job_facts"))
    assert facts == {
        ("runner", "gpu-a10g-01"),
        ("runner_label", "self-hosted"),
        ("runner_label", "linux"),
        ("runner_label", "gpu"),
        ("gpu_model", "NVIDIA A10G"),  # nvidia-smi's line in a passing test's log
        ("gpu_memory", "22 GiB"),  # vLLM's total_gib (22.03) and nvidia-smi's 23028 MiB
    }
    statuses = dict(store.query("SELECT status, COUNT(*) FROM tests GROUP BY status"))
    assert statuses == {"passed": 10, "broken": 6, "failed": 1, "skipped": 2}
    assert store.query(
        "SELECT retries, previous_statuses FROM tests WHERE name = 'test_kv_router_decisions[nats]'"
    ) == [(1, '["broken"]')]
    causes = dict(store.query("SELECT name, cause_key FROM tests WHERE failing = 1"))
    assert causes[SEED] == "vllm.startup-free-memory"
    assert causes["test_request_migration[qwen3-0.6b]"] == "c9103a15f5a3"
    seed = store.query(
        "SELECT f.kind, f.title, f.category, f.fields, f.tickets, f.attachment, f.line, f.text, f.excerpt, f.symptoms"
        " FROM findings f JOIN tests t ON t.id = f.test WHERE t.name = ?",
        (SEED,),
    )[0]
    kind, title, category, fields, tickets, attachment, line, text, excerpt, symptoms = seed
    assert (kind, category, attachment) == ("cause", "infrastructure", "bash.log.txt")
    assert title == "GPU already in use: vLLM's startup free-memory check failed"
    assert json.loads(fields)["total_gib"] == 22.03 and json.loads(fields)["shortfall_gib"] == 0.33
    assert {"key": "OPS-4445", "url": "https://linear.app/nvidia/issue/OPS-4445"} in json.loads(tickets)
    assert text.endswith(SEED_LINE) and line == next(
        item["line"] for item in json.loads(excerpt) if item["text"] == text
    )
    assert "vllm.engine-core-init-failed" in json.loads(symptoms)
    unexplained = store.query(
        "SELECT f.kind, f.key, f.masked FROM findings f JOIN tests t ON t.id = f.test WHERE t.cause_kind = 'unexplained'"
    )
    assert unexplained == [("unexplained", "c9103a15f5a3", "KeyError: 'token_ids'")]


def test_the_evidence_window_reaches_back_from_the_hit(store: Store, sample_report: Report) -> None:
    record_report(store, nightly(sample_report, day=3))
    first_line, text, line, path = store.query(
        "SELECT e.first_line, e.text, f.line, e.input_path FROM evidence_logs e JOIN findings f ON f.test = e.test"
        " JOIN tests t ON t.id = e.test WHERE t.name = ?",
        (SEED,),
    )[0]
    lines = text.split("\n")
    assert path == str(SAMPLE)
    assert first_line == max(1, line - 150)
    assert lines[line - first_line].endswith(SEED_LINE)
    assert len(lines) <= 200 and len(lines) > line - first_line + 1  # lines after the hit too


def test_two_jobs_of_one_run_share_it(
    store: Store, sample_report: Report, gpu_report: Callable[[str], Report]
) -> None:
    record_report(store, nightly(sample_report, day=3, job_id=1))
    second = record_report(store, nightly(gpu_report("L40S"), day=3, job_id=2, gpu="L40S"))
    assert (second.new_run, second.jobs, second.tests) == (False, 1, 2)
    assert counts(store)["runs"] == 1 and counts(store)["tests"] == 21
    facts = store.query(
        "SELECT j.job_id, f.value FROM job_facts f JOIN jobs j ON j.id = f.job WHERE f.dimension = 'gpu_memory'"
    )
    assert sorted(facts) == [(1, "22 GiB"), (2, "44 GiB")]  # 46068 MiB is 44.99 GiB: whole GiB, rounded down


def test_a_rerun_attempt_is_a_run_of_its_own(store: Store, sample_report: Report) -> None:
    record_report(store, nightly(sample_report, day=3))
    record_report(store, nightly(sample_report, day=3, attempt=2, hour=2))
    assert store.query("SELECT run_id, run_attempt FROM runs ORDER BY run_attempt") == [
        (9000003, 1),
        (9000003, 2),
    ]


def test_local_analyses_get_a_stable_run_key(store: Store, rule_pack: RuleSet, tmp_path: Path) -> None:
    copy = tmp_path / "artifact.zip"
    shutil.copy(SAMPLE, copy)
    one, two = analyze([str(SAMPLE)], rules=rule_pack), analyze([str(copy)], rules=rule_pack)
    assert local_run_id(one) == local_run_id(two)  # the same executions (Allure uuids), wherever the file is
    assert record_report(store, one).new_run and not record_report(store, two).new_run
    assert store.query("SELECT provider, repository, run_id FROM runs") == [("local", "", local_run_id(one))]
    earliest = min(v.test.start for v in one.verdicts if v.test.start)
    assert store.scalar("SELECT at FROM runs") == earliest // 1000
    log = tmp_path / "job.log"
    log.write_text("step 1\n" + SEED_LINE + "\n")
    first = analyze([str(log)], rules=rule_pack)
    log.write_text("step 1\nstep 2\n" + SEED_LINE + "\n")
    assert local_run_id(analyze([str(log)], rules=rule_pack)) != local_run_id(first)


def test_a_report_that_never_passed_a_redactor_is_refused(store: Store, sample_report: Report) -> None:
    """The store never redacts: a caller that forgot to is a bug that fails here, before any row is written.
    A copy of a redacted report (`dataclasses.replace`, which may have put new text in) is not redacted."""
    unredacted = dataclasses.replace(sample_report, rules_loaded=sample_report.rules_loaded)
    with pytest.raises(ValueError, match="redact_report"):
        record_report(store, unredacted)
    assert counts(store) == dict.fromkeys(TABLES, 0)
    assert sample_report.redacted and record_report(store, sample_report).new_run  # `analyze` redacts


def test_stored_evidence_is_redacted_and_bounded(store: Store, rule_pack: RuleSet, tmp_path: Path) -> None:
    lines = [f"INFO step {number} of the launch" for number in range(1, 5001)]
    lines[2989] = "Authorization: Bearer abcdefgh12345678abcdefgh"
    lines[2994] = "worker env: DEPLOY_KEY_VALUE=s3cr3t-value-from-env"
    lines[2999] = SEED_LINE
    log = tmp_path / "job.log"
    log.write_text("\n".join(lines) + "\n")
    redactor = Redactor.from_environment({"DEPLOY_TOKEN": "s3cr3t-value-from-env"})
    report = analyze([str(log)], rules=rule_pack, options=AnalyzeOptions(redactor=redactor))
    record_report(store, report)
    first_line, text = store.query("SELECT first_line, text FROM evidence_logs")[0]
    stored = text.split("\n")
    assert first_line == 2850 and len(stored) == 200 and stored[150] == SEED_LINE
    assert "abcdefgh12345678" not in text and "s3cr3t-value-from-env" not in text
    assert stored[140] == "Authorization: [REDACTED]"
    assert stored[145] == "worker env: DEPLOY_KEY_VALUE=[REDACTED]"

    wide = tmp_path / "wide.log"
    wide.write_text("\n".join(["x" * 1500] * 300 + [SEED_LINE] + ["y" * 1500] * 60) + "\n")
    record_report(store, analyze([str(wide)], rules=rule_pack))
    first_line, text = store.query(
        "SELECT e.first_line, e.text FROM evidence_logs e JOIN tests t ON t.id = e.test WHERE t.name = 'wide.log'"
    )[0]
    assert len(text.encode()) <= MAX_WINDOW_BYTES and SEED_LINE in text
    assert 301 - first_line > text[text.index(SEED_LINE) :].count(
        "\n"
    )  # trimmed evenly, more kept before the hit


def test_each_failure_keeps_what_its_input_held(
    store: Store, rule_pack: RuleSet, tmp_path: Path, workdir: Path
) -> None:
    copy = tmp_path / "allure-results.zip"
    shutil.copy(SAMPLE, copy)
    (workdir / "job.log").write_text("ERROR worker 7 exited with status 3\n")
    record_report(store, analyze([str(copy), "job.log"], rules=rule_pack))
    rows = store.query("SELECT input_path, input_identity FROM evidence_logs")
    assert len(rows) == 8
    assert {identity for path, identity in rows if path == str(copy)} == {input_identity(str(copy), "zip")}
    assert (str(workdir / "job.log"), input_identity("job.log", "log")) in rows
    assert all(identity for _, identity in rows)


def test_recording_reads_no_input(store: Store, rule_pack: RuleSet, tmp_path: Path) -> None:
    """The report carries the windows, identities and GPU facts, taken while `analyze` had the input open."""
    copy = tmp_path / "gone.zip"
    shutil.copy(SAMPLE, copy)
    identity = input_identity(str(copy), "zip")
    report = analyze([str(copy)], rules=rule_pack)
    copy.unlink()
    record_report(store, report)
    assert store.query("SELECT DISTINCT input_identity FROM evidence_logs") == [(identity,)]
    seed = next(v for v in report.verdicts if v.test.name == SEED)
    assert seed.root_cause is not None and seed.window is not None
    assert seed.root_cause.evidence.text in seed.window.text
    stored = store.query(
        "SELECT e.first_line, e.text FROM evidence_logs e JOIN tests t ON t.id = e.test WHERE t.name = ?",
        (SEED,),
    )
    assert stored == [(seed.window.first_line, seed.window.text)]
    assert ("gpu_memory", "22 GiB") in set(store.query("SELECT dimension, value FROM job_facts"))


def test_a_report_without_windows_stores_no_evidence_log(store: Store, rule_pack: RuleSet) -> None:
    """A report saved before schema 1.3 carries no window: nothing is stored for it, and no input is read."""
    report = analyze([str(SAMPLE)], rules=rule_pack)
    seed = next(v for v in report.verdicts if v.test.name == SEED)
    assert seed.root_cause is not None
    stdin = dataclasses.replace(seed, window=None, test=dataclasses.replace(seed.test, uuid="stdin-test"))
    record_report(store, redact_report(dataclasses.replace(report, verdicts=(stdin,)), Redactor()))
    assert store.query("SELECT COUNT(*) FROM evidence_logs") == [(0,)]


def test_entries_outside_the_input_are_never_read(
    store: Store, gpu_results: Callable[[str], Path], rule_pack: RuleSet, tmp_path: Path
) -> None:
    results = tmp_path / "results"
    shutil.copytree(gpu_results("A10G"), results)
    (tmp_path / "outside.txt").write_text("TOPSECRET line one\nTOPSECRET line two\n")
    report = analyze([str(results)], rules=rule_pack)
    verdict = next(v for v in report.verdicts if v.root_cause is not None)
    assert verdict.root_cause is not None
    evidence = dataclasses.replace(
        verdict.root_cause.evidence, source="../outside.txt"
    )  # a doctored saved report
    doctored = dataclasses.replace(
        verdict, root_cause=dataclasses.replace(verdict.root_cause, evidence=evidence)
    )
    record_report(store, redact_report(dataclasses.replace(report, verdicts=(doctored,)), Redactor()))
    [(text,)] = store.query("SELECT text FROM evidence_logs")
    assert "TOPSECRET" not in text and verdict.window is not None and text == verdict.window.text


def test_the_json_report_carries_identity_environment_and_windows(
    store: Store, rule_pack: RuleSet, tmp_path: Path
) -> None:
    copy = tmp_path / "allure-results.zip"
    shutil.copy(SAMPLE, copy)
    report = analyze([str(copy)], rules=rule_pack)
    document = json.loads(render_json(report))
    [item] = document["inputs"]
    assert item["identity"] == input_identity(str(copy), "zip")
    assert item["environment"] == {"gpu_model": "NVIDIA A10G", "gpu_memory": "22 GiB"}
    failing = [test for test in document["tests"] if test["status"] in ("failed", "broken")]
    assert failing and all(test["evidence_window"]["text"] for test in failing)
    assert all(test["evidence_window"] is None for test in document["tests"] if test not in failing)
    saved = report_from_dict(document)
    assert saved.inputs == report.inputs
    assert [v.window for v in saved.verdicts] == [v.window for v in report.verdicts]
    copy.unlink()  # a saved report is recorded from what it carries, once it has passed a redactor
    record_report(store, redact_report(saved, Redactor()))
    stored = dict(store.query("SELECT t.name, e.text FROM evidence_logs e JOIN tests t ON t.id = e.test"))
    assert stored == {v.test.name: v.window.text for v in report.verdicts if v.window is not None}
