"""A nightly run as the first users' CI leaves it, put into a FakeGitHub: several failed jobs, one to four
allure artifacts per job among hundreds of others, look-alike names of other jobs, a job with no artifact.

Artifact bytes are real allure-pytest output: the bundled sample artifact (7 failing tests), the shared
reference artifact (4 failing tests), and the multi-GPU scenario run under the plugin (`scenario_zip`).
"""

from __future__ import annotations

from pathlib import Path

from tests.fakes.github import FakeGitHub
from tests.support.allure_runner import zip_results

SAMPLE_ZIP = Path(__file__).resolve().parents[2] / "forensics" / "samples" / "nightly-allure-results.zip"
REFERENCE_ZIP = Path(__file__).resolve().parents[1] / "data" / "allure-results.zip"

REPOSITORY = "ai-dynamo/dynamo"
RUN_ID = 24685348314
VLLM_JOB = 72349014718  # two stages, two allure artifacts
SGLANG_JOB = 72193276317  # one allure artifact
SHORT_JOB = 7219  # passed; its artifact's name ends like a prefix of SGLANG_JOB's
LOG_ONLY_JOB = 72193276999  # killed before its upload step: only its log
VLLM_ARTIFACTS = (
    f"allure-results-vllm-pre_merge_gpu-amd64-{RUN_ID}-{VLLM_JOB}",
    f"allure-results-vllm-pre_merge_gpu_parallel-amd64-{RUN_ID}-{VLLM_JOB}",
)
SGLANG_ARTIFACT = f"allure-results-sglang-Test-amd64-{RUN_ID}-{SGLANG_JOB}"
SEED_LINE = (
    "[BASH] [rank0]: ValueError: Free memory on device cuda:0 (19.5/22.03 GiB) on startup is less than desired "
    "GPU memory utilization (0.9, 19.83 GiB). Decrease GPU memory utilization or reduce GPU memory used by other "
    "processes."
)


def job_log(*lines: str) -> str:
    """A job log as GitHub serves it: every line prefixed with a timestamp."""
    return "".join(
        f"2026-04-21T08:{index // 60:02d}:{index % 60:02d}.1234567Z {line}\n"
        for index, line in enumerate(lines)
    )


def upload_lines(name: str, artifact_id: int, run_id: int = RUN_ID, size: int = 137096) -> list[str]:
    """What actions/upload-artifact v4 prints for one upload."""
    return [
        "##[group]Run actions/upload-artifact@ea165f8d65b6e75b540449e92b4886f43607fa02",
        "With the provided path, there will be 101 files uploaded",
        "Artifact name is valid!",
        f"Artifact {name} has been successfully uploaded! Final size is {size} bytes. Artifact ID is {artifact_id}",
        f"Artifact download URL: https://github.com/{REPOSITORY}/actions/runs/{run_id}/artifacts/{artifact_id}",
        "##[endgroup]",
    ]


def scenario_zip(results: Path, target: Path) -> bytes:
    """Allure results (made by the real plugin) zipped as actions/upload-artifact stores them."""
    zip_results(results, target)
    return target.read_bytes()


def seed_nightly(github: FakeGitHub, *, sglang_zip: bytes, fillers: int = 230) -> None:
    """The run, its jobs and artifacts; the jobs' own artifacts come after `fillers` others (page 3)."""
    github.add_run(RUN_ID)
    github.add_job(RUN_ID, VLLM_JOB, name="vllm / Test cuda13.0 (amd64)")
    github.add_job(
        RUN_ID, SGLANG_JOB, name="sglang / Test cuda13.0 (amd64)", runner_name="prod-tester-amd-gpu-v2-9p4tz"
    )
    github.add_job(RUN_ID, SHORT_JOB, name="rust-tests", conclusion="success", labels=("ubuntu-latest",))
    github.add_job(
        RUN_ID,
        LOG_ONLY_JOB,
        name="trtllm / Test cuda13.1 (amd64)",
        failed_step="Run GPU tests (sequential)",
        log=job_log(
            "##[group]Run pytest -m 'trtllm and gpu_1'",
            "[BASH] starting engine",
            SEED_LINE,
            "##[error]The operation was canceled.",
        ),
    )
    for index in range(fillers):
        github.add_artifact(RUN_ID, f"coverage-python-{index}-{RUN_ID}-{VLLM_JOB + index + 1}", b"x")
    github.add_artifact(
        RUN_ID, f"allure-results-rust-unit-amd64-{RUN_ID}-{SHORT_JOB}", REFERENCE_ZIP.read_bytes()
    )
    github.add_artifact(RUN_ID, f"test-results-vllm-pre_merge_gpu-amd64-{RUN_ID}-{VLLM_JOB}", b"junit")
    github.add_artifact(RUN_ID, VLLM_ARTIFACTS[1], SAMPLE_ZIP.read_bytes())
    github.add_artifact(RUN_ID, VLLM_ARTIFACTS[0], REFERENCE_ZIP.read_bytes())
    github.add_artifact(RUN_ID, SGLANG_ARTIFACT, sglang_zip)
