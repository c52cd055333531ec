"""End to end over Allure results written by the real allure-pytest plugin from our scenario files."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from forensics.inputs.allure import read_allure
from forensics.inputs.archive import DirectoryArchive
from forensics.model import Report, Status, Verdict
from forensics.report.build import AnalyzeOptions, analyze
from forensics.rules.model import RuleSet
from tests.support.allure_runner import SCENARIOS_DIRECTORY, run_scenarios, zip_results

SEED_TESTS = {
    "test_serve_deployment[mm_e_pd_qwen3-vl-2b]",
    "test_serve_deployment[mm_epd_qwen3-vl-2b]",
    "test_serve_deployment[mm_epd_qwen3-vl-2b-video]",
}


def _report(results: Path, rule_pack: RuleSet) -> Report:
    return analyze([str(results)], rules=rule_pack)


def test_the_seed_case_is_one_group_with_its_numbers(
    scenario_results: Callable[..., Path], rule_pack: RuleSet
) -> None:
    report = _report(scenario_results("scenario_nightly_vllm.py"), rule_pack)
    by_name = {v.test.name: v for v in report.verdicts}
    assert set(by_name) >= SEED_TESTS
    for name in SEED_TESTS:
        verdict = by_name[name]
        assert verdict.test.status is Status.BROKEN
        assert verdict.test.message.startswith(
            "RuntimeError: Engine core initialization failed. See root cause above."
        )
        cause = verdict.root_cause
        assert cause is not None and cause.rule_id == "vllm.startup-free-memory", name
        fields = dict(cause.fields)
        assert fields["free_gib"] == 19.5 and fields["total_gib"] == 22.03 and fields["utilization"] == 0.9
        assert (
            fields["requested_gib"] == 19.83
            and fields["shortfall_gib"] == 0.33
            and fields["max_utilization"] == 0.88
        )
        assert "0.9 × 22.03 GiB = 19.83 GiB" in cause.summary and "0.33 GiB short" in cause.summary
        assert "0.88" in cause.summary
        assert "gpu_memory_utilization" in cause.advice
        assert cause.evidence.attachment == "bash.log.txt"
        assert "Free memory on device cuda:0 (19.5/22.03 GiB)" in cause.evidence.text
        assert cause.evidence.line > 100
        assert any(line.number == cause.evidence.line for line in cause.evidence.excerpt)
        assert "vllm.engine-core-init-failed" in [s.rule_id for s in verdict.symptoms]
        assert {t.key for t in verdict.test.tickets} >= {"OPS-4445"}
    seed_groups = [g for g in report.groups if g.key == "vllm.startup-free-memory"]
    assert len(seed_groups) == 1
    assert {
        by_uuid.test.name for by_uuid in report.verdicts if by_uuid.test.uuid in seed_groups[0].test_uuids
    } == SEED_TESTS
    assert report.groups[0] == seed_groups[0]  # the biggest group comes first


def test_logs_land_where_the_plugin_puts_them(scenario_results: Callable[..., Path]) -> None:
    tests = {
        t.name: t for t in read_allure(DirectoryArchive(scenario_results("scenario_nightly_vllm.py"))).tests
    }
    locations = {name: tests[name].logs[0].location for name in SEED_TESTS}
    assert any(
        location.startswith("fixture ") and "(teardown)" in location for location in locations.values()
    )
    assert any(location.startswith("step ") for location in locations.values())
    assert any(location == "result" for location in locations.values())
    skipped = [t for t in tests.values() if t.status is Status.SKIPPED]
    assert skipped and all(t.message.startswith("Skipped:") for t in skipped)
    assert any(
        ticket.key == "OPS-4445" and ticket.origin == "skip-reason" for t in skipped for ticket in t.tickets
    )


def test_container_logs_go_only_to_failing_children(
    scenario_results: Callable[..., Path], rule_pack: RuleSet
) -> None:
    """allure-pytest lists a marker-skipped test as a child of the next test's fixture container."""
    report = _report(scenario_results("scenario_nightly_vllm.py"), rule_pack)
    for verdict in report.verdicts:
        if not verdict.test.status.is_failing:
            assert verdict.root_cause is None and verdict.fingerprint is None and verdict.symptoms == ()


def test_the_whole_nightly_zipped_explains_what_it_can(rule_pack: RuleSet, tmp_path: Path) -> None:
    """All scenarios plus a CI retry into the same folder, zipped as actions/upload-artifact stores them."""
    results = tmp_path / "allure-results"
    names = ("scenario_nightly_vllm.py", "scenario_nightly_multigpu.py", "scenario_nightly_retry.py")
    run_scenarios([SCENARIOS_DIRECTORY / name for name in names], results)
    run_scenarios([SCENARIOS_DIRECTORY / "scenario_nightly_retry.py"], results)
    zipped = tmp_path / "allure-results-vllm-test-amd64-1-2.zip"
    zip_results(results, zipped)
    report = analyze([str(zipped)], rules=rule_pack)
    by_name = {v.test.name: v for v in report.verdicts}
    causes = {
        name: (v.root_cause.rule_id if v.root_cause else None)
        for name, v in by_name.items()
        if v.test.status.is_failing
    }
    assert causes["test_tensor_parallel[tp2-llama-3.1-8b]"] == "nccl.system-error"
    assert causes["test_pipeline_parallel[pp2-llama-3.1-8b]"] == "hf.gated-repo"
    assert causes["test_disagg_serving[disagg_qwen3-0.6b]"] == "network.address-in-use"
    assert causes["test_request_migration[qwen3-0.6b]"] is None
    unexplained = by_name["test_request_migration[qwen3-0.6b]"]
    assert unexplained.fingerprint is not None and "<num>" not in unexplained.fingerprint.key
    retried = [v.test for v in report.verdicts if v.test.retries]
    assert retried and all(t.previous_statuses for t in retried)
    assert report.unexplained_count == 1
    assert len(report.failing) == report.explained_count + 1


def test_worker_processes_give_the_same_report_as_one_process(
    scenario_results: Callable[..., Path], rule_pack: RuleSet, tmp_path: Path
) -> None:
    results = scenario_results("scenario_nightly_vllm.py", "scenario_nightly_multigpu.py")
    zipped = tmp_path / "artifact.zip"
    zip_results(results, zipped)

    def essence(report: Report) -> list[tuple[object, ...]]:
        return [
            (v.test.name, v.root_cause, v.symptoms, v.fingerprint, v.likely_cause) for v in report.verdicts
        ]

    single = analyze([str(zipped)], rules=rule_pack, options=AnalyzeOptions(jobs=1))
    forked = analyze([str(zipped)], rules=rule_pack, options=AnalyzeOptions(jobs=2, process_threshold=0))
    assert essence(single) == essence(forked)
    assert single.problems == forked.problems
    assert single.explained_count >= 5
    assert any(v.likely_cause is not None for v in forked.verdicts)  # re-read in the workers, same as here


def test_the_process_path_is_taken_when_asked(rule_pack: RuleSet) -> None:
    from forensics.engine.scanner import CompiledRules
    from forensics.inputs.discover import discover
    from forensics.report.session import InputSession

    (item,) = discover(
        str(Path(__file__).resolve().parents[1] / "forensics" / "samples" / "nightly-allure-results.zip")
    )
    options = AnalyzeOptions(jobs=2, process_threshold=0)
    with InputSession(item, CompiledRules(rule_pack), options, []) as session:
        refs = [ref for test in session.tests() if test.status.is_failing for ref in test.logs]
        scans = session._scan_in_processes(refs)
    assert len(scans) == len({ref.key for ref in refs}) > 2


def test_verdicts_finished_while_the_workers_run_are_those_finished_after(
    scenario_results: Callable[..., Path], rule_pack: RuleSet, tmp_path: Path
) -> None:
    """In worker processes each verdict gets its likely cause and its redaction as soon as its last result
    arrives; the verdicts are those of one process, and those of redacting afterwards with a fresh redactor."""
    from forensics.engine.scanner import CompiledRules
    from forensics.inputs.discover import discover
    from forensics.report.redact import Redactor, redact_model, redact_report
    from forensics.report.session import InputSession
    from tests.scenarios.scenario_secrets import PLANTED_ENVIRONMENT_SECRET

    results = scenario_results("scenario_nightly_vllm.py", "scenario_secrets.py")
    zipped = tmp_path / "artifact.zip"
    zip_results(results, zipped)
    environment = {"DEPLOY_SECRET": PLANTED_ENVIRONMENT_SECRET}
    compiled = CompiledRules(rule_pack)

    def verdicts(jobs: int, *, redact: bool) -> tuple[list[Verdict], Redactor]:
        options = AnalyzeOptions(
            jobs=jobs, process_threshold=0, redactor=Redactor.from_environment(environment)
        )
        (item,) = discover(str(zipped))
        with InputSession(item, compiled, options, []) as session:
            return session.verdicts(session.tests(), redact=redact), options.redactor

    forked, redactor = verdicts(2, redact=True)
    single, _ = verdicts(1, redact=True)
    plain, _ = verdicts(2, redact=False)
    afterwards = [redact_model(verdict, Redactor.from_environment(environment)) for verdict in plain]
    assert forked == single == afterwards
    assert forked != plain  # the planted secrets were there to redact
    assert any(v.likely_cause is not None for v in forked) and any(v.root_cause for v in forked)
    assert all(PLANTED_ENVIRONMENT_SECRET not in repr(verdict) for verdict in forked)
    # the report's redaction with the same redactor finds each verdict done: the same objects come back
    report = redact_report(Report(inputs=(), verdicts=tuple(forked), groups=(), problems=()), redactor)
    assert all(a is b for a, b in zip(report.verdicts, forked, strict=True))
    assert redact_model(plain[0], redactor) is redact_model(plain[0], redactor)


_CHURN = """
import multiprocessing, resource, sys
from concurrent.futures import ProcessPoolExecutor
from forensics.report.session import _WORKER_START, InputSession, _allocator_tuning

def churn():
    # page faults while joining 1 MiB blocks with the previous block's last line, as the scanner does
    pending = b"y" * 100
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for step in range(64):
        chunk = b"x" * ((1 << 20) + 7 * step)
        data = pending + chunk
        pending = data[-(100 + step) :]
        del chunk, data
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before

def twice(_argument=None):
    churn()
    return churn()

if _allocator_tuning() is None:
    sys.exit(3)
with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("fork")) as pool:
    untuned = pool.submit(twice).result()
_WORKER_START["allocator"] = _allocator_tuning()  # what the session prepares before forking
with InputSession._pool(1) as pool:
    pool.submit(twice, None, "churn")
    pool.start()
    ((_key, tuned),) = pool.answers()
print(tuned, untuned)
"""


def test_workers_keep_freed_blocks_for_the_next_ones() -> None:
    """With glibc, every forked worker keeps the memory it frees (`mallopt`): a block's pages are not mapped and
    zeroed afresh (~256 page faults a MiB) for each block it reads. In a fresh interpreter: this one's heap
    already has room to spare."""
    import subprocess
    import sys

    import pytest

    root = Path(__file__).resolve().parents[1]
    done = subprocess.run(
        [sys.executable, "-c", _CHURN], cwd=root, capture_output=True, text=True, check=False, timeout=120
    )
    if done.returncode == 3:
        pytest.skip("the allocator is tuned with glibc only")
    assert done.returncode == 0, done.stderr
    tuned, untuned = map(int, done.stdout.split())
    assert tuned < 1_000, tuned
    assert untuned > 10_000, untuned
