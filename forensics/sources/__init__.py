"""Artifact sources: where a CI job's results come from (GitHub Actions today), as local files + context.

Only `base` is imported here, so the report builder can use the data types without pulling in HTTP.
"""

from forensics.sources.base import (
    ArtifactSource,
    DownloadProgress,
    FetchedFile,
    FetchResult,
    SavedFetch,
    download_source,
    save_fetched,
)

__all__ = [
    "ArtifactSource",
    "DownloadProgress",
    "FetchResult",
    "FetchedFile",
    "SavedFetch",
    "download_source",
    "save_fetched",
]
