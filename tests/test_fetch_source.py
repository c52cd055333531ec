"""The GitHub Actions source against a fake GitHub and storage host: which artifacts, fallbacks, the cache."""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import multiprocessing
import threading
import zipfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from forensics.errors import ConfigError, NotFoundError, ResultsError
from forensics.report.build import analyze_source
from forensics.rules.model import RuleSet
from forensics.services.github import GitHubClient
from forensics.services.http import RetryPolicy
from forensics.sources.base import FetchResult
from forensics.sources.cache import DownloadCache
from forensics.sources.github_actions import GitHubActionsSource, GitHubActionsTarget
from forensics.sources.naming import stage_of, uploaded_artifact_ids
from tests.fakes.github import SIGNATURE_SECRET, TOKEN, FakeGitHub, running_github
from tests.fakes.server import Reply, Request
from tests.support.fetch_scenario import (
    LOG_ONLY_JOB,
    REFERENCE_ZIP,
    REPOSITORY,
    RUN_ID,
    SAMPLE_ZIP,
    SEED_LINE,
    SGLANG_ARTIFACT,
    SGLANG_JOB,
    SHORT_JOB,
    VLLM_ARTIFACTS,
    VLLM_JOB,
    job_log,
    scenario_zip,
    seed_nightly,
    upload_lines,
)

FAST = RetryPolicy(attempts=3, backoff=0.01, max_backoff=0.02, max_rate_limit_wait=5)


@pytest.fixture(scope="module")
def sglang_zip(scenario_results: Callable[..., Path], tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """The multi-GPU scenario's results, made by the real allure-pytest plugin, as an artifact zip."""
    return scenario_zip(
        scenario_results("scenario_nightly_multigpu.py"), tmp_path_factory.mktemp("sglang") / "a.zip"
    )


@pytest.fixture
def github(sglang_zip: bytes) -> Iterator[FakeGitHub]:
    with running_github() as fake:
        seed_nightly(fake, sglang_zip=sglang_zip)
        yield fake


@contextmanager
def _source(github: FakeGitHub, cache: Path, **target: object) -> Iterator[GitHubActionsSource]:
    artifact_glob = target.pop("artifact_glob", None)
    with GitHubClient(base_url=github.api.url, token=TOKEN, timeout=5, retry=FAST) as client:
        yield GitHubActionsSource(
            client=client,
            target=GitHubActionsTarget(repository=REPOSITORY, **target),  # type: ignore[arg-type]
            cache=DownloadCache(cache),
            artifact_glob=artifact_glob,  # type: ignore[arg-type]
        )


def _fetch(github: FakeGitHub, cache: Path, **target: object) -> FetchResult:
    with _source(github, cache, **target) as source:
        return source.fetch()


def test_a_job_gets_its_own_allure_artifacts_from_the_third_page(github: FakeGitHub, tmp_path: Path) -> None:
    result = _fetch(github, tmp_path, job_id=VLLM_JOB)
    assert [item.artifact for item in result.files] == list(VLLM_ARTIFACTS)
    assert [item.stage for item in result.files] == ["pre_merge_gpu", "pre_merge_gpu_parallel"]
    assert {item.job_id for item in result.files} == {VLLM_JOB}
    assert [item.path.read_bytes() for item in result.files] == [
        REFERENCE_ZIP.read_bytes(),
        SAMPLE_ZIP.read_bytes(),
    ]
    assert result.problems == ()
    assert [r.param("page", "1") for r in github.api_requests(f"/runs/{RUN_ID}/artifacts")] == ["1", "2", "3"]
    assert len(github.storage_downloads) == 2
    assert github.api_requests("/logs") == []  # the names were enough: the log is not read

    context = result.context
    assert context is not None
    assert (context.provider, context.repository, context.run_id) == ("github", REPOSITORY, RUN_ID)
    assert (context.workflow, context.workflow_path) == (
        "Nightly CI Pipeline",
        ".github/workflows/nightly-ci.yml",
    )
    assert (context.branch, context.event, context.head_sha[:7]) == ("main", "schedule", "0c4d0f3")
    assert context.run_url == f"https://github.com/{REPOSITORY}/actions/runs/{RUN_ID}"
    (job,) = context.jobs
    assert (job.job_id, job.name, job.conclusion) == (VLLM_JOB, "vllm / Test cuda13.0 (amd64)", "failure")
    assert job.url == f"https://github.com/{REPOSITORY}/actions/runs/{RUN_ID}/job/{VLLM_JOB}"
    assert (job.runner_name, job.runner_labels) == (
        "prod-tester-amd-gpu-v2-7x2kq",
        ("self-hosted", "gpu", "amd64"),
    )
    assert job.failed_steps == ("Run GPU tests (parallel)",)


def test_a_job_of_an_earlier_attempt_reports_that_attempt(github: FakeGitHub, tmp_path: Path) -> None:
    # The fake lets the attempts differ in commit and time so the context shows which attempt it came from
    github.add_run(900, head_sha="a" * 40, created_at="2026-04-21T08:00:00Z")
    github.add_job(900, 9001, name="e2e", log=job_log(SEED_LINE))  # failed in attempt 1
    github.rerun(900, head_sha="b" * 40, created_at="2026-04-22T08:00:00Z")
    github.add_job(900, 9002, name="e2e", log=job_log(SEED_LINE))  # failed again in attempt 2

    earlier = _fetch(github, tmp_path, job_id=9001).context
    assert earlier is not None
    assert (earlier.run_id, earlier.run_attempt) == (900, 1)
    assert (earlier.head_sha, earlier.created_at) == ("a" * 40, "2026-04-21T08:00:00Z")
    assert [job.job_id for job in earlier.jobs] == [9001]
    assert github.api_requests("/actions/runs/900/attempts/1")

    latest = _fetch(github, tmp_path, job_id=9002).context
    assert latest is not None
    assert (latest.run_attempt, latest.head_sha, latest.created_at) == (2, "b" * 40, "2026-04-22T08:00:00Z")

    whole_run = _fetch(github, tmp_path, run_id=900).context  # --run: the latest attempt and its jobs only
    assert whole_run is not None
    assert (whole_run.run_attempt, [job.job_id for job in whole_run.jobs]) == (2, [9002])


def test_look_alike_names_of_other_jobs_are_never_taken(github: FakeGitHub, tmp_path: Path) -> None:
    short = _fetch(github, tmp_path, job_id=SHORT_JOB)
    assert [item.artifact for item in short.files] == [f"allure-results-rust-unit-amd64-{RUN_ID}-{SHORT_JOB}"]
    assert [item.stage for item in short.files] == ["unit"]
    sglang = _fetch(github, tmp_path, job_id=SGLANG_JOB)
    assert [item.artifact for item in sglang.files] == [SGLANG_ARTIFACT]


def test_the_report_carries_job_stage_and_artifact_per_input(
    github: FakeGitHub, tmp_path: Path, rule_pack: RuleSet
) -> None:
    with _source(github, tmp_path, job_id=VLLM_JOB) as source:
        report = analyze_source(source, rules=rule_pack)
    assert [(i.artifact, i.stage, i.job_id, i.kind) for i in report.inputs] == [
        (VLLM_ARTIFACTS[0], "pre_merge_gpu", VLLM_JOB, "zip"),
        (VLLM_ARTIFACTS[1], "pre_merge_gpu_parallel", VLLM_JOB, "zip"),
    ]
    assert len(report.failing) == 4 + 7
    assert {report.job_of(verdict).job_id for verdict in report.failing} == {VLLM_JOB}  # type: ignore[union-attr]
    seed = next(v for v in report.failing if v.test.name == "test_serve_deployment[mm_epd_qwen3-vl-2b]")
    assert seed.root_cause is not None and seed.root_cause.rule_id == "vllm.startup-free-memory"
    assert report.input_of(seed).stage == "pre_merge_gpu_parallel"  # type: ignore[union-attr]


def test_a_run_reports_every_failed_job_and_only_failed_ones(
    github: FakeGitHub, tmp_path: Path, rule_pack: RuleSet
) -> None:
    with _source(github, tmp_path, run_id=RUN_ID) as source:
        report = analyze_source(source, rules=rule_pack)
    assert report.context is not None
    assert [job.job_id for job in report.context.jobs] == [VLLM_JOB, SGLANG_JOB, LOG_ONLY_JOB]
    assert [(item.job_id, item.artifact or item.label) for item in report.inputs] == [
        (VLLM_JOB, VLLM_ARTIFACTS[0]),
        (VLLM_JOB, VLLM_ARTIFACTS[1]),
        (SGLANG_JOB, SGLANG_ARTIFACT),
        (LOG_ONLY_JOB, f"job {LOG_ONLY_JOB} log"),
    ]
    assert len(report.failing) == 11 + 4 + 1
    jobs_request = github.api_requests(f"/runs/{RUN_ID}/jobs")[0]
    assert jobs_request.param("filter") == "latest"


def test_a_job_without_artifacts_is_analysed_from_its_log(
    github: FakeGitHub, tmp_path: Path, rule_pack: RuleSet
) -> None:
    with _source(github, tmp_path, job_id=LOG_ONLY_JOB) as source:
        report = analyze_source(source, rules=rule_pack)
    (verdict,) = report.failing
    assert verdict.test.name == "job log: trtllm / Test cuda13.1 (amd64)"
    assert verdict.root_cause is not None and verdict.root_cause.rule_id == "vllm.startup-free-memory"
    assert verdict.root_cause.evidence.line == 3
    (problem,) = report.problems
    assert problem.object == f"job {LOG_ONLY_JOB} 'trtllm / Test cuda13.1 (amd64)'"
    assert problem.message == (
        f"uploaded no allure artifact (none named allure-results-…-{RUN_ID}-{LOG_ONLY_JOB} and none in its "
        "log's upload lines); the job's log stands in for it"
    )
    assert "if: always()" in problem.hint
    assert (report.inputs[0].kind, report.inputs[0].job_id) == ("log", LOG_ONLY_JOB)


def test_upload_lines_in_the_log_find_artifacts_whose_names_say_nothing(
    github: FakeGitHub, tmp_path: Path
) -> None:
    github.add_run(501)
    generic = github.add_artifact(501, "allure-results", SAMPLE_ZIP.read_bytes())
    junit = github.add_artifact(501, "junit", b"<testsuites/>")
    github.add_artifact(501, "allure-results-other", SAMPLE_ZIP.read_bytes())  # another job's, not in the log
    log = job_log(
        "pytest ...",
        *upload_lines("allure-results", generic["id"], 501),
        *upload_lines("junit", junit["id"], 501),
    )
    github.add_job(501, 601, name="e2e", log=log)
    result = _fetch(github, tmp_path, job_id=601)
    assert [(item.artifact, item.stage) for item in result.files] == [("allure-results", "")]
    assert result.problems == ()
    assert len(github.api_requests("/actions/jobs/601/logs")) == 1
    assert uploaded_artifact_ids(result.files[0].path.parent.parent / "logs" / "601.log") == {
        generic["id"],
        junit["id"],
    }


def test_an_expired_artifact_falls_back_to_the_log_and_says_why(github: FakeGitHub, tmp_path: Path) -> None:
    github.add_run(502)
    name = "allure-results-vllm-Test-amd64-502-602"
    github.add_artifact(502, name, SAMPLE_ZIP.read_bytes(), expired=True)
    github.add_job(502, 602, name="vllm / Test", log=job_log(SEED_LINE))
    result = _fetch(github, tmp_path, job_id=602)
    assert [item.kind for item in result.files] == ["log"]
    (problem,) = result.problems
    assert problem.object == f"job 602 'vllm / Test': artifact '{name}'"
    assert problem.message == (
        f"cannot download artifact '{name}' (run 502): it expired on 2026-04-28; the job's log stands in for it"
    )
    assert problem.hint.startswith(
        "artifacts of this run were kept 7 days (retention-days in actions/upload-artifact)"
    )
    assert problem.severity == "warning"
    assert github.api_requests("/zip") == []  # the listing said so: no download tried


def test_a_410_on_download_falls_back_the_same_way(github: FakeGitHub, tmp_path: Path) -> None:
    github.add_run(503)
    artifact = github.add_artifact(503, "allure-results-vllm-Test-amd64-503-603", SAMPLE_ZIP.read_bytes())
    github.gone.add(artifact["id"])
    github.add_job(503, 603, name="vllm / Test", log=job_log(SEED_LINE))
    result = _fetch(github, tmp_path, job_id=603)
    assert [item.kind for item in result.files] == ["log"]
    assert "it expired on 2026-04-28" in result.problems[0].message
    assert len(github.api_requests("/zip")) == 1


def test_no_artifact_and_no_log_is_an_error_problem(
    github: FakeGitHub, tmp_path: Path, rule_pack: RuleSet
) -> None:
    github.add_run(504)
    github.add_job(504, 604, name="lost runner")  # no log either (404)
    result = _fetch(github, tmp_path, job_id=604)
    assert result.files == ()
    (problem,) = result.problems
    assert problem.severity == "error"
    assert "its log could not be read either: cannot download log of job 604" in problem.message
    with _source(github, tmp_path, job_id=604) as source, pytest.raises(ResultsError) as raised:
        analyze_source(source, rules=rule_pack)
    assert raised.value.message.startswith("job 604 'lost runner': uploaded no allure artifact")


@pytest.mark.parametrize("fault", ["redirect-loop", "dropped-connections"])
def test_a_failing_storage_host_is_the_artifacts_problem_never_the_caches(
    github: FakeGitHub, tmp_path: Path, fault: str
) -> None:
    github.add_run(505)
    name = "allure-results-vllm-Test-amd64-505-605"
    artifact = github.add_artifact(505, name, SAMPLE_ZIP.read_bytes())
    github.add_job(505, 605, name="vllm / Test", log=job_log(SEED_LINE))
    if fault == "redirect-loop":
        github.looping.add(artifact["id"])
    else:
        dropped = Reply(body=SAMPLE_ZIP.read_bytes(), drop_after=0)
        github.storage.fail_next(f"/blob/artifact-{artifact['id']}.zip", dropped, times=FAST.attempts)
    result = _fetch(github, tmp_path, job_id=605)
    assert [item.kind for item in result.files] == ["log"]
    (problem,) = result.problems
    assert problem.object == f"job 605 'vllm / Test': artifact '{name}'"
    assert f"artifact '{name}' (run 505)" in problem.message
    assert "download cache" not in problem.message
    assert SIGNATURE_SECRET not in problem.message and "sig=" not in problem.message


def test_one_broken_download_never_stops_the_others(github: FakeGitHub, tmp_path: Path) -> None:
    broken = next(a for a in github.artifacts[RUN_ID] if a["name"] == VLLM_ARTIFACTS[0])
    interrupted = Reply(body=REFERENCE_ZIP.read_bytes(), drop_after=4096)  # connection lost mid-download
    github.storage.fail_next(f"/blob/artifact-{broken['id']}.zip", interrupted, times=3)
    result = _fetch(github, tmp_path, run_id=RUN_ID)
    assert [item.artifact or item.label for item in result.files] == [
        VLLM_ARTIFACTS[1],
        SGLANG_ARTIFACT,
        f"job {LOG_ONLY_JOB} log",
    ]
    broken_problem = result.problems[0]
    assert (
        broken_problem.object
        == f"job {VLLM_JOB} 'vllm / Test cuda13.0 (amd64)': artifact '{VLLM_ARTIFACTS[0]}'"
    )
    assert broken_problem.severity == "error"
    assert "kept failing after 3 tries" in broken_problem.message
    # nothing of the broken download is left where the cache would find it
    cached = sorted(path.name for path in (tmp_path / "github").rglob("*") if path.is_file())
    assert f"{broken['id']}.zip" not in cached and not any(".part-" in name for name in cached)
    again = _fetch(github, tmp_path, run_id=RUN_ID)  # the next fetch gets it
    assert VLLM_ARTIFACTS[0] in [item.artifact for item in again.files] and again.problems[
        0
    ].object.startswith(f"job {LOG_ONLY_JOB}")


def test_a_second_fetch_downloads_nothing(github: FakeGitHub, tmp_path: Path) -> None:
    first = _fetch(github, tmp_path, run_id=RUN_ID)
    downloads = len(github.storage_downloads)
    assert downloads == first.downloaded == 4  # three artifacts and one (completed) job's log
    api_calls = len(github.api.requests)
    second = _fetch(github, tmp_path, run_id=RUN_ID)
    assert len(github.storage_downloads) == downloads and second.downloaded == 0
    assert [item.path for item in second.files] == [item.path for item in first.files]
    assert len(github.api.requests) - api_calls == 1 + 1 + 3  # run, jobs, three artifact pages: metadata only


def test_two_processes_sharing_the_cache_both_end_with_complete_files(
    github: FakeGitHub, tmp_path: Path
) -> None:
    both_asked = threading.Barrier(2, timeout=60)  # spawned processes start slowly on a busy machine

    def answer_once_both_asked(request: Request) -> None:  # so the two downloads of each file overlap
        with contextlib.suppress(threading.BrokenBarrierError):
            both_asked.wait()

    github.storage_gate = answer_once_both_asked
    cache = tmp_path / "cache"
    outcomes = [tmp_path / "first.json", tmp_path / "second.json"]
    spawn = multiprocessing.get_context("spawn")  # fork would copy the fake servers' threads
    processes = [
        spawn.Process(target=_fetch_in_another_process, args=(github.api.url, str(cache), str(outcome)))
        for outcome in outcomes
    ]
    for process in processes:
        process.start()
    for process in processes:
        process.join(timeout=60)
        if process.exitcode is None:
            process.kill()
    assert [process.exitcode for process in processes] == [0, 0]
    assert not both_asked.broken

    (first_problems, *first), (second_problems, *second) = (json.loads(o.read_text()) for o in outcomes)
    assert first == second
    assert first_problems == second_problems == [f"job {LOG_ONLY_JOB} 'trtllm / Test cuda13.1 (amd64)'"]
    assert [(name, downloaded) for name, downloaded, _ in first] == [
        *(
            (f"{artifact_id}.zip", True)
            for artifact_id in _artifact_ids(github, *VLLM_ARTIFACTS, SGLANG_ARTIFACT)
        ),
        (f"{LOG_ONLY_JOB}.log", True),
    ]
    assert len(github.storage_downloads) == 2 * 4
    cached = sorted(path for path in cache.rglob("*") if path.is_file())
    assert sorted(path.name for path in cached) == sorted(name for name, _, _ in first)  # no partial left
    blobs = {
        **{f"{a['id']}.zip": github.blobs[f"artifact-{a['id']}.zip"] for a in github.artifacts[RUN_ID]},
        f"{LOG_ONLY_JOB}.log": github.logs[LOG_ONLY_JOB].encode(),
    }
    for path in cached:
        assert path.read_bytes() == blobs[path.name]
    assert {name: digest for name, _, digest in first} == {
        path.name: hashlib.sha256(blobs[path.name]).hexdigest() for path in cached
    }


def _artifact_ids(github: FakeGitHub, *names: str) -> list[int]:
    by_name = {artifact["name"]: artifact["id"] for artifact in github.artifacts[RUN_ID]}
    return [by_name[name] for name in names]


def _fetch_in_another_process(api_url: str, cache: str, outcome: str) -> None:
    """What one CI job's ci-forensics does: fetch the nightly run into the shared cache, then read each file."""
    with GitHubClient(base_url=api_url, token=TOKEN, timeout=10, retry=FAST) as client:
        target = GitHubActionsTarget(repository=REPOSITORY, run_id=RUN_ID)
        result = GitHubActionsSource(client=client, target=target, cache=DownloadCache(Path(cache))).fetch()
    files: list[object] = [[problem.object for problem in result.problems]]
    for item in result.files:
        data = item.path.read_bytes()
        if item.kind == "zip":
            with zipfile.ZipFile(io.BytesIO(data)) as archive:
                assert archive.testzip() is None
        files.append((item.path.name, item.downloaded, hashlib.sha256(data).hexdigest()))
    Path(outcome).write_text(json.dumps(files))


def test_a_damaged_cache_entry_is_downloaded_again(github: FakeGitHub, tmp_path: Path) -> None:
    first = _fetch(github, tmp_path, job_id=SGLANG_JOB)
    cached = first.files[0].path
    data = cached.read_bytes()
    cached.write_bytes(data[:100])  # truncated
    assert _fetch(github, tmp_path, job_id=SGLANG_JOB).files[0].downloaded
    cached.write_bytes(data[:-1] + b"X")  # same size, other bytes: the digest tells
    assert _fetch(github, tmp_path, job_id=SGLANG_JOB).files[0].downloaded
    assert cached.read_bytes() == data
    assert len(github.storage_downloads) == 3


def test_an_artifact_glob_overrides_the_choice(github: FakeGitHub, tmp_path: Path) -> None:
    result = _fetch(github, tmp_path, job_id=VLLM_JOB, artifact_glob="test-results-*")
    assert [item.artifact for item in result.files] == [
        f"test-results-vllm-pre_merge_gpu-amd64-{RUN_ID}-{VLLM_JOB}"
    ]
    github.add_artifact(RUN_ID, "allure-results-merged", SAMPLE_ZIP.read_bytes())  # claims no job
    own = _fetch(github, tmp_path, job_id=VLLM_JOB, artifact_glob="allure-results-*")
    assert [item.artifact for item in own.files] == [
        "allure-results-merged",
        *VLLM_ARTIFACTS,
    ]  # no other job's
    merged = _fetch(github, tmp_path, run_id=RUN_ID, artifact_glob="allure-results-*")
    assert [(item.artifact, item.job_id) for item in merged.files if item.kind == "zip"] == [
        (VLLM_ARTIFACTS[0], VLLM_JOB),
        (VLLM_ARTIFACTS[1], VLLM_JOB),
        (SGLANG_ARTIFACT, SGLANG_JOB),
        ("allure-results-merged", None),
    ]
    assert f"allure-results-rust-unit-amd64-{RUN_ID}-{SHORT_JOB}" not in [i.artifact for i in merged.files]
    nothing = _fetch(github, tmp_path, job_id=LOG_ONLY_JOB, artifact_glob="nope-*")
    assert [item.kind for item in nothing.files] == ["log"]
    assert nothing.problems[0].message.startswith(f"no artifact of run {RUN_ID} matches --artifact 'nope-*'")


def test_the_latest_failed_run_of_a_workflow_on_a_branch(github: FakeGitHub, tmp_path: Path) -> None:
    github.add_run(700, created_at="2026-04-22T08:00:00Z", branch="release/1.0")  # newer, other branch
    github.add_run(701, created_at="2026-04-20T08:00:00Z")  # older
    github.add_run(702, created_at="2026-04-23T08:00:00Z", conclusion="success")  # newer, passed
    for run_id in (700, 701, 702):
        github.add_job(run_id, run_id * 10, log=job_log("x"))
    result = _fetch(github, tmp_path, workflow="nightly-ci.yml", branch="main")
    assert result.context is not None and result.context.run_id == RUN_ID
    (listing,) = github.api_requests("/actions/workflows/nightly-ci.yml/runs")
    assert (listing.param("branch"), listing.param("status"), listing.param("per_page")) == (
        "main",
        "failure",
        "1",
    )
    with pytest.raises(
        NotFoundError,
        match=r"workflow 'nightly-ci\.yml' of ai-dynamo/dynamo has no failed run on branch 'dev'",
    ):
        _fetch(github, tmp_path, workflow="nightly-ci.yml", branch="dev")


def test_a_run_without_failed_jobs_is_an_error(github: FakeGitHub, tmp_path: Path) -> None:
    github.add_run(800, conclusion="success")
    github.add_job(800, 8001, conclusion="success")
    with pytest.raises(ResultsError, match="run 800 of ai-dynamo/dynamo has no failed job"):
        _fetch(github, tmp_path, run_id=800)


def test_progress_is_reported_per_download(github: FakeGitHub, tmp_path: Path) -> None:
    seen: dict[str, tuple[int, int | None]] = {}
    with _source(github, tmp_path, job_id=VLLM_JOB) as source:
        source.fetch(progress=lambda label, done, total: seen.__setitem__(label, (done, total)))
    size = SAMPLE_ZIP.stat().st_size
    assert seen[VLLM_ARTIFACTS[1]] == (size, size)
    assert set(seen) == set(VLLM_ARTIFACTS)


@pytest.mark.parametrize(
    ("name", "stage"),
    [
        (f"allure-results-vllm-pre_merge_gpu_parallel-amd64-{RUN_ID}-{VLLM_JOB}", "pre_merge_gpu_parallel"),
        (f"allure-results-sglang-pre_merge_cpu_e2e-arm64-{RUN_ID}-{VLLM_JOB}", "pre_merge_cpu_e2e"),
        (f"allure-results-vllm-2-GPU_Test-amd64-{RUN_ID}-{VLLM_JOB}", "2-GPU_Test"),
        (f"allure-results-unknown-Test-amd64-{RUN_ID}-{VLLM_JOB}", "Test"),
        (f"allure-results-vllm-amd64-{RUN_ID}-{VLLM_JOB}", ""),
        ("allure-results", ""),
        ("allure-results-trtllm-pre_merge_gpu-x86_64", "pre_merge_gpu"),
    ],
)
def test_the_stage_is_read_loosely_from_the_name(name: str, stage: str) -> None:
    assert stage_of(name, run_id=RUN_ID, job_id=VLLM_JOB) == stage


def test_an_unwritable_cache_is_a_clear_error(github: FakeGitHub, tmp_path: Path) -> None:
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("a file where the cache folder should be")
    with pytest.raises(ConfigError, match="cannot write to the download cache") as raised:
        _fetch(github, blocked, job_id=SGLANG_JOB)
    assert "CI_FORENSICS_CACHE" in raised.value.hint
