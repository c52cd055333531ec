"""What every artifact source (GitHub Actions today; GitLab or Buildkite later) hands to the report builder.

A source turns "this CI job / run" into local files (artifact zips, plain job logs) that carry where they
came from, plus the run's context and per-item problems. Analysis never talks to the network: it reads
the files a source fetched exactly as it reads paths given on the command line.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol

from forensics.errors import ConfigError, ResultsError
from forensics.model import Problem, RunContext

DownloadProgress = Callable[[str, int, int | None], None]
"""Called with (what is downloading, bytes so far, total bytes or None) while a source downloads."""


@dataclass(frozen=True, slots=True)
class FetchedFile:
    """One local file a source fetched: an artifact zip or a job's plain log, with its origin."""

    path: Path
    kind: Literal["zip", "log"]
    label: str  # how the report names this input, e.g. the artifact name; unique within a fetch
    save_as: str  # file name for `--download-only`, e.g. "allure-results-….zip"
    job_id: int | None = None
    stage: str = ""  # test stage the artifact belongs to, "" when unknown
    artifact: str = ""  # artifact name ("" for a job log)
    item_name: str = ""  # for a log: the failing item's name in the report
    downloaded: bool = True  # False when it came from the cache


@dataclass(frozen=True, slots=True)
class FetchResult:
    """What a source fetched: files to analyse, the CI context, and per-item problems."""

    files: tuple[FetchedFile, ...]
    context: RunContext | None = None
    problems: tuple[Problem, ...] = ()

    @property
    def downloaded(self) -> int:
        """How many files came over the network (the rest came from the cache)."""
        return sum(1 for item in self.files if item.downloaded)


class ArtifactSource(Protocol):
    """A CI service's view of one job or run: which artifacts and logs to read, and its context."""

    def fetch(self, *, progress: DownloadProgress | None = None) -> FetchResult:
        """Download (or take from the cache) what to analyse; one broken item is a Problem, not the end."""
        ...


@dataclass(frozen=True, slots=True)
class SavedFetch:
    """What `download_source` saved, and the problems on the way."""

    paths: tuple[Path, ...]
    problems: tuple[Problem, ...]


def download_source(
    source: ArtifactSource, directory: Path, *, progress: DownloadProgress | None = None
) -> SavedFetch:
    """Fetch what a source names into `directory`: `<artifact>.zip`, and the job logs used instead.

    ResultsError when nothing at all could be fetched (naming the first problem).
    """
    result = source.fetch(progress=progress)
    if not result.files:
        first = result.problems[0] if result.problems else Problem(object="", message="nothing to download")
        raise ResultsError(f"{first.object}: {first.message}", hint=first.hint)
    return SavedFetch(paths=tuple(save_fetched(result, directory)), problems=result.problems)


def save_fetched(result: FetchResult, directory: Path) -> list[Path]:
    """Copy the fetched files into `directory` under their `save_as` names (`analyze DIR` reads it later)."""
    saved = []
    try:
        directory.mkdir(parents=True, exist_ok=True)
        for item in result.files:
            target = directory / _file_name(item.save_as)
            partial = target.with_name(f".{target.name}.partial")
            shutil.copyfile(item.path, partial)
            partial.replace(target)
            saved.append(target)
    except OSError as err:
        raise ConfigError(
            f"cannot save the downloads into '{directory}': {err.strerror or err}",
            hint="choose a writable folder with room for the artifacts",
        ) from err
    return saved


def _file_name(name: str) -> str:
    """A plain file name: names come from the CI service and must not climb out of the folder."""
    cleaned = name.replace("\\", "/").rsplit("/", 1)[-1].lstrip(".")
    return cleaned or "download"
