"""How GitHub Actions artifacts say which job and test stage they belong to, and which ones a job uploaded.

The first users name allure artifacts `allure-results-{framework}-{stage}-{arch}-{run_id}-{job_id}`
(`job.check_run_id` is the job id), one per test stage; the job's log names every artifact id that
`actions/upload-artifact` uploaded. Both are read loosely: naming drifts between workflow versions.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Sequence
from pathlib import Path

import regex

from forensics.services.github import GitHubArtifact

ALLURE_PREFIX = "allure-results-"
_ARCHITECTURES = frozenset(
    {"amd64", "arm64", "x86_64", "x86-64", "aarch64", "x64", "x86", "arm", "ppc64le", "s390x"}
)
# actions/upload-artifact v4+: "Artifact ID is 123" and "Artifact download URL: https://…/artifacts/123"
_UPLOADED_ID = regex.compile(rb"Artifact ID is (\d+)|Artifact download URL: \S*/artifacts/(\d+)")
_UPLOAD_MARKER = b"Artifact"


def job_suffix(run_id: int, job_id: int) -> str:
    """The end of the names of a job's artifacts: `-{run_id}-{job_id}`."""
    return f"-{run_id}-{job_id}"


def is_job_allure_artifact(name: str, *, run_id: int, job_id: int) -> bool:
    """Named `allure-results-…-{run_id}-{job_id}`: never another job's (`…-7219` is not `…-72193276317`)."""
    return name.startswith(ALLURE_PREFIX) and name.endswith(job_suffix(run_id, job_id))


def looks_like_allure(name: str) -> bool:
    """An artifact whose name says it holds Allure results."""
    return "allure" in name.lower()


def matches_glob(name: str, pattern: str) -> bool:
    """`--artifact GLOB` (case-sensitive, like artifact names)."""
    return fnmatch.fnmatchcase(name, pattern)


def owner_job(name: str, *, run_id: int, job_ids: Sequence[int]) -> int | None:
    """The job whose `-{run_id}-{job_id}` ends the name; for a name that names no job, the only job.

    None for another job's artifact, or a name that names no job when several are selected.
    """
    for job_id in job_ids:
        if name.endswith(job_suffix(run_id, job_id)):
            return job_id
    if names_a_job(name, run_id=run_id):
        return None
    return job_ids[0] if len(job_ids) == 1 else None


def names_a_job(name: str, *, run_id: int) -> bool:
    """Ends with `-{run_id}-{some job id}`: the artifact belongs to that job, selected or not."""
    head, _, job = name.rpartition("-")
    return job.isdigit() and head.endswith(f"-{run_id}")


def stage_of(name: str, *, run_id: int | None = None, job_id: int | None = None) -> str:
    """The test stage in an artifact name, e.g. `pre_merge_gpu_parallel`; "" when it cannot be told.

    `allure-results-vllm-pre_merge_gpu_parallel-amd64-24685348314-72193276317`: drop the prefix, the
    run and job ids (or any trailing numbers), the architecture and the first token (the framework).
    """
    bare = ALLURE_PREFIX.rstrip("-")
    rest = name[len(bare) :].lstrip("-_") if name.lower().startswith(bare) else name
    if run_id is not None and job_id is not None and rest.endswith(job_suffix(run_id, job_id)):
        rest = rest[: -len(job_suffix(run_id, job_id))]
    tokens = [token for token in rest.split("-") if token]
    while tokens and tokens[-1].isdigit() and len(tokens[-1]) >= 4:  # ids, not "2" of "2-GPU_Test"
        tokens.pop()
    if tokens and tokens[-1].lower() in _ARCHITECTURES:
        tokens.pop()
    if len(tokens) < 2:
        return ""
    return "-".join(tokens[1:])


def uploaded_artifact_ids(log: Path) -> frozenset[int]:
    """Ids of the artifacts `actions/upload-artifact` says it uploaded, read from a job's log."""
    found: set[int] = set()
    with log.open("rb") as stream:
        for line in stream:
            if _UPLOAD_MARKER in line:
                found.update(_ids(_UPLOADED_ID.finditer(line)))
    return frozenset(found)


def _ids(matches: Iterable[regex.Match[bytes]]) -> Iterable[int]:
    for match in matches:
        yield int(match[1] or match[2])


def pick_by_log(artifacts: Iterable[GitHubArtifact], uploaded: frozenset[int]) -> list[GitHubArtifact]:
    """The allure-looking artifacts among those the job's log says it uploaded."""
    return [item for item in artifacts if item.id in uploaded and looks_like_allure(item.name)]
