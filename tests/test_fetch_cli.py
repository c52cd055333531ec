"""`ci-forensics fetch` end to end: GITHUB_API_URL at a fake GitHub on 127.0.0.1, the cache in tmp_path."""

from __future__ import annotations

import io
import json
import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from rich.console import Console

from forensics.cli.fetch import _progress
from forensics.cli.main import main
from forensics.errors import ConfigError
from forensics.sources.repository import repository_from_remote, resolve_repository
from tests.fakes.github import SIGNATURE, SIGNATURE_SECRET, TOKEN, FakeGitHub, running_github
from tests.fakes.server import Reply
from tests.support.fetch_scenario import (
    LOG_ONLY_JOB,
    REPOSITORY,
    RUN_ID,
    SGLANG_ARTIFACT,
    SGLANG_JOB,
    VLLM_ARTIFACTS,
    VLLM_JOB,
    job_log,
    scenario_zip,
    seed_nightly,
)


@pytest.fixture(scope="module")
def sglang_zip(scenario_results: Callable[..., Path], tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """The multi-GPU scenario's results, made by the real allure-pytest plugin, as an artifact zip."""
    return scenario_zip(
        scenario_results("scenario_nightly_multigpu.py"), tmp_path_factory.mktemp("sglang") / "a.zip"
    )


@pytest.fixture
def github(sglang_zip: bytes, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[FakeGitHub]:
    with running_github() as fake:
        seed_nightly(fake, sglang_zip=sglang_zip)
        monkeypatch.setenv("GITHUB_API_URL", fake.api.url)
        monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
        monkeypatch.setenv("CI_FORENSICS_CACHE", str(tmp_path / "cache"))
        yield fake


def _run(*args: str) -> Result:
    return CliRunner().invoke(main, ["fetch", *args], catch_exceptions=False)


def _assert_no_secrets(*texts: str) -> None:
    for text in texts:
        assert TOKEN not in text
        assert SIGNATURE_SECRET not in text and SIGNATURE not in text
        assert "/blob/" not in text  # not even the storage path of a signed URL


def test_fetch_a_job_reports_like_analyze_with_its_ci_context(
    github: FakeGitHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "160")
    result = _run("--job", str(VLLM_JOB), "--repo", REPOSITORY)
    assert result.exit_code == 0, result.output
    output = result.output
    assert output.splitlines()[0] == "11 failing tests: 9 explained (82%), 2 unexplained"
    assert f"GitHub Actions run {RUN_ID}" in output
    assert "│ repository ai-dynamo/dynamo" in output
    assert "│ workflow   Nightly CI Pipeline (.github/workflows/nightly-ci.yml, schedule)" in output
    assert "│ commit     0c4d0f3e5a1b on main" in output
    assert (
        "│ job        vllm / Test cuda13.0 (amd64) — failure, failed step: Run GPU tests (parallel)" in output
    )
    assert "│            runner prod-tester-amd-gpu-v2-7x2kq (self-hosted, gpu, amd64)" in output
    assert f"│            {VLLM_ARTIFACTS[1]} (stage pre_merge_gpu_parallel, 19 tests)" in output
    assert "GPU already in use: vLLM's startup free-memory check failed" in output
    _assert_no_secrets(result.output, result.stderr)


def test_fetch_a_run_as_json_names_jobs_stages_and_artifacts_without_secrets(
    github: FakeGitHub, tmp_path: Path
) -> None:
    github.logs[LOG_ONLY_JOB] = job_log(
        f"env: GITHUB_TOKEN={TOKEN}",
        f"curl https://results.blob.core.windows.net/a.zip?{SIGNATURE}",
        "[BASH] ValueError: Free memory on device cuda:0 (19.5/22.03 GiB) on startup is less than desired GPU "
        "memory utilization (0.9, 19.83 GiB).",
    )
    out = tmp_path / "report.json"
    result = _run("--run", str(RUN_ID), "--repo", REPOSITORY, "--format", "json", "-o", str(out))
    assert result.exit_code == 0, result.output
    text = out.read_text()
    _assert_no_secrets(text, result.output, result.stderr)
    document = json.loads(text)
    assert document["schema_version"] == "1.5"
    context = document["context"]
    assert (context["provider"], context["repository"], context["run_id"]) == ("github", REPOSITORY, RUN_ID)
    assert [job["id"] for job in context["jobs"]] == [VLLM_JOB, SGLANG_JOB, LOG_ONLY_JOB]
    assert context["jobs"][0]["runner_labels"] == ["self-hosted", "gpu", "amd64"]
    assert [(i["job_id"], i["stage"], i["artifact"]) for i in document["inputs"]] == [
        (VLLM_JOB, "pre_merge_gpu", VLLM_ARTIFACTS[0]),
        (VLLM_JOB, "pre_merge_gpu_parallel", VLLM_ARTIFACTS[1]),
        (SGLANG_JOB, "Test", SGLANG_ARTIFACT),
        (LOG_ONLY_JOB, None, None),
    ]
    log_test = next(t for t in document["tests"] if t["origin"] == "log")
    assert log_test["name"] == "job log: trtllm / Test cuda13.1 (amd64)"
    assert log_test["root_cause"]["rule"] == "vllm.startup-free-memory"
    assert [p["object"] for p in document["problems"]] == [
        f"job {LOG_ONLY_JOB} 'trtllm / Test cuda13.1 (amd64)'"
    ]


def test_fetch_a_run_as_markdown_groups_tests_per_job(github: FakeGitHub) -> None:
    result = _run("--run", str(RUN_ID), "--repo", REPOSITORY, "--format", "markdown")
    assert result.exit_code == 0, result.output
    markdown = result.output
    run_url = f"https://github.com/{REPOSITORY}/actions/runs/{RUN_ID}"
    assert f"**GitHub Actions run:** [Nightly CI Pipeline · run {RUN_ID}]({run_url}) (attempt 1)" in markdown
    assert (
        f"### Job [vllm / Test cuda13.0 (amd64)]({run_url}/job/{VLLM_JOB}) — 11 failing tests, 9 explained"
        in markdown
    )
    assert (
        f"### Job [sglang / Test cuda13.0 (amd64)]({run_url}/job/{SGLANG_JOB}) — 4 failing tests, 3 explained"
        in markdown
    )
    assert (
        f"### Job [trtllm / Test cuda13.1 (amd64)]({run_url}/job/{LOG_ONLY_JOB}) — 1 failing test, 1 explained"
        in markdown
    )
    vllm, sglang, trtllm = (markdown.index(f"/job/{job}) —") for job in (VLLM_JOB, SGLANG_JOB, LOG_ONLY_JOB))
    assert vllm < sglang < trtllm < markdown.index("### Problems")
    assert "<summary><b>GPU already in use: vLLM&#x27;s startup free-memory check failed</b>" in markdown
    _assert_no_secrets(markdown, result.stderr)


def test_download_only_saves_zips_and_the_fallback_log_that_analyze_reads_later(
    github: FakeGitHub, tmp_path: Path
) -> None:
    folder = tmp_path / "artifacts"
    result = _run("--run", str(RUN_ID), "--repo", REPOSITORY, "--download-only", str(folder))
    assert result.exit_code == 0, result.output
    names = sorted(path.name for path in folder.iterdir())
    assert names == sorted(
        [*(f"{name}.zip" for name in VLLM_ARTIFACTS), f"{SGLANG_ARTIFACT}.zip", f"job-{LOG_ONLY_JOB}.log"]
    )
    assert result.stdout.splitlines() == [
        str(folder / name)
        for name in [
            *(f"{n}.zip" for n in VLLM_ARTIFACTS),
            f"{SGLANG_ARTIFACT}.zip",
            f"job-{LOG_ONLY_JOB}.log",
        ]
    ]
    assert (
        f"warning: job {LOG_ONLY_JOB} 'trtllm / Test cuda13.1 (amd64)': uploaded no allure artifact"
        in result.stderr
    )
    later = CliRunner().invoke(main, ["analyze", str(folder)], catch_exceptions=False)
    assert later.exit_code == 0
    assert later.output.splitlines()[0] == "16 failing tests: 13 explained (81%), 3 unexplained"
    _assert_no_secrets(result.output, result.stderr)


def test_a_second_fetch_reuses_the_cache(github: FakeGitHub) -> None:
    assert _run("--job", str(VLLM_JOB), "--repo", REPOSITORY).exit_code == 0
    downloads = len(github.storage_downloads)
    again = _run("--job", str(VLLM_JOB), "--repo", REPOSITORY, "--format", "json")
    assert again.exit_code == 0
    assert len(github.storage_downloads) == downloads == 2
    assert json.loads(again.output)["summary"]["failing"] == 11


def test_the_latest_failed_run_of_a_workflow(github: FakeGitHub) -> None:
    github.add_run(900, created_at="2026-04-25T08:00:00Z")
    github.add_job(
        900, 9001, name="vllm / Test", log=job_log("##[error]Process completed with exit code 137.")
    )
    result = _run(
        "--workflow",
        "nightly-ci.yml",
        "--branch",
        "main",
        "--latest-failed",
        "--repo",
        REPOSITORY,
        "--format",
        "json",
    )
    assert result.exit_code == 0, result.output
    document = json.loads(result.output)
    assert document["context"]["run_id"] == 900
    assert [job["id"] for job in document["context"]["jobs"]] == [9001]


def test_the_repository_comes_from_github_repository(
    github: FakeGitHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_REPOSITORY", REPOSITORY)
    result = _run("--job", str(SGLANG_JOB), "--format", "json", "--fail-on", "unexplained")
    assert result.exit_code == 3  # the report's own exit codes, as analyze
    assert json.loads(result.stdout)["context"]["repository"] == REPOSITORY
    assert result.stderr == "--fail-on unexplained tripped: 1 of 4 failing tests unexplained\n"


def test_missing_job_and_bad_token_are_errors_with_hints(
    github: FakeGitHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    missing = _run("--job", "999", "--repo", REPOSITORY)
    assert missing.exit_code == 1
    assert (
        f"Error: cannot get job 999 of {REPOSITORY}: GitHub has no such object in {REPOSITORY}"
        in missing.stderr
    )
    assert "Hint: check the repository (--repo) and the id" in missing.stderr
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_revokedrevokedrevokedrevokedrevoked1")
    refused = _run("--job", str(VLLM_JOB), "--repo", REPOSITORY)
    assert refused.exit_code == 1
    assert "GitHub refused the request (Bad credentials)" in refused.stderr
    assert "Hint: set GITHUB_TOKEN (or GH_TOKEN) to a valid token" in refused.stderr
    assert "ghp_revoked" not in refused.stderr + refused.output


@pytest.mark.parametrize("how", ["--job", "--run", "--download-only"])
def test_without_a_token_fetch_stops_before_any_request_and_names_the_variable(
    github: FakeGitHub, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, how: str
) -> None:
    monkeypatch.delenv("GITHUB_TOKEN")
    arguments = {
        "--job": ("--job", str(SGLANG_JOB)),
        "--run": ("--run", str(RUN_ID)),
        "--download-only": ("--job", str(SGLANG_JOB), "--download-only", str(tmp_path / "saved")),
    }[how]
    result = _run(*arguments, "--repo", REPOSITORY)
    assert result.exit_code == 1
    assert "Error: fetch needs a GitHub token" in result.stderr
    assert "Hint: set GITHUB_TOKEN (or GH_TOKEN) to a token with `actions: read`" in result.stderr
    assert github.api.requests == [] and github.storage.requests == []  # not one request, so no retries
    monkeypatch.setenv("GH_TOKEN", TOKEN)  # the other name GitHub's own CLI reads
    assert _run("--job", str(SGLANG_JOB), "--repo", REPOSITORY).exit_code == 0


@pytest.mark.parametrize(
    "args",
    [
        (),
        ("--job", "1", "--run", "2"),
        ("--workflow", "nightly-ci.yml"),
        ("--run", "2", "--latest-failed"),
        ("--run", "2", "--branch", "main"),
    ],
)
def test_usage_errors(args: tuple[str, ...]) -> None:
    assert _run(*args, "--repo", REPOSITORY).exit_code == 2


@pytest.mark.parametrize(
    ("url", "repository"),
    [
        ("https://github.com/ai-dynamo/dynamo.git", "ai-dynamo/dynamo"),
        ("https://github.com/ai-dynamo/dynamo", "ai-dynamo/dynamo"),
        ("https://x-access-token:abc@github.com/ai-dynamo/dynamo.git", "ai-dynamo/dynamo"),
        ("git@github.com:ai-dynamo/dynamo.git", "ai-dynamo/dynamo"),
        ("ssh://git@ghe.example.com:2222/team/repo.name.git", "team/repo.name"),
        ("https://gitlab.example.com/group/sub/repo.git", None),
        ("/srv/git/repo.git", None),
    ],
)
def test_repository_from_a_remote_url(url: str, repository: str | None) -> None:
    assert repository_from_remote(url) == repository


def test_repository_resolution_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    checkout = tmp_path / "checkout"
    (checkout / ".git" / "objects").mkdir(parents=True)
    (checkout / ".git" / "refs").mkdir()
    (checkout / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (checkout / ".git" / "config").write_text(
        '[core]\n\trepositoryformatversion = 0\n[remote "origin"]\n\turl = git@github.com:acme/widgets.git\n'
    )
    environment = {"GITHUB_REPOSITORY": "ci/from-environment"}
    assert resolve_repository("o/explicit", environment=environment, directory=checkout) == "o/explicit"
    assert resolve_repository(None, environment=environment, directory=checkout) == "ci/from-environment"
    if shutil.which("git"):
        assert resolve_repository(None, environment={}, directory=checkout) == "acme/widgets"
    elif os.environ.get("CI"):
        pytest.fail("git is not installed: the git-remote fallback of --repo goes untested")
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ConfigError, match="which GitHub repository") as raised:
        resolve_repository(None, environment={}, directory=empty)
    assert raised.value.hint == "pass --repo owner/name"
    with pytest.raises(ConfigError, match="'not a repo' is not a GitHub repository"):
        resolve_repository("not a repo", environment={}, directory=empty)


def test_rate_limit_notices_go_to_stderr(github: FakeGitHub) -> None:
    github.api.fail_next(
        "/repos/",
        Reply.json({"message": "You have exceeded a secondary rate limit."}, 403, {"retry-after": "0"}),
    )
    result = _run("--job", str(SGLANG_JOB), "--repo", REPOSITORY, "--format", "json")
    assert result.exit_code == 0
    assert result.stderr.startswith(
        f"notice: GitHub rate limit: waiting 0 s before retrying job {SGLANG_JOB} of {REPOSITORY}"
    )
    assert json.loads(result.stdout)["context"]["jobs"][0]["id"] == SGLANG_JOB


def test_the_progress_bar_is_only_for_a_terminal() -> None:
    terminal = io.StringIO()
    with _progress(Console(file=terminal, force_terminal=True, width=100), enabled=True) as progress:
        assert progress is not None
        progress(SGLANG_ARTIFACT, 500, 1000)
    assert "0.5/1.0 kB" in terminal.getvalue() and "…" in terminal.getvalue()  # the long name is shortened
    with _progress(Console(file=io.StringIO(), force_terminal=True), enabled=False) as quiet:
        assert quiet is None
    with _progress(Console(file=io.StringIO()), enabled=True) as piped:
        assert piped is None


def test_a_download_folder_with_a_broken_zip_still_reads_its_job_log(tmp_path: Path) -> None:
    folder = tmp_path / "artifacts"
    folder.mkdir()
    (folder / "allure-results-x-1-2.zip").write_bytes(b"PK\x03\x04 truncated")
    (folder / "job-2.log").write_text(job_log("[BASH] RuntimeError: Engine core initialization failed."))
    result = CliRunner().invoke(main, ["analyze", str(folder), "--format", "json"], catch_exceptions=False)
    assert result.exit_code == 0
    document = json.loads(result.output)
    assert [test["name"] for test in document["tests"]] == ["job-2.log"]
    assert [problem["object"] for problem in document["problems"]] == [f"{folder}/allure-results-x-1-2.zip"]
