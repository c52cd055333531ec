"""The download cache's contract: it reports only its own disk trouble; everything else the download raises goes on."""

from __future__ import annotations

import errno
import os
from collections.abc import Callable
from pathlib import Path

import pytest
import requests

from forensics.errors import ConfigError, UnavailableError
from forensics.sources.cache import DownloadCache
from tests.fakes.github import SIGNATURE, SIGNATURE_SECRET


def _cache(tmp_path: Path) -> tuple[DownloadCache, Path]:
    cache = DownloadCache(tmp_path / "cache")
    return cache, cache.path(
        service="github", host="api.github.com", kind="artifacts", key="1", suffix=".zip"
    )


def _raises(error: BaseException) -> object:
    def download(target: Path) -> None:
        raise error

    return download


@pytest.mark.parametrize(
    "error",
    [
        # what requests raises is an OSError with no errno, and str() carries the signed URL
        requests.ConnectionError(
            f"HTTPSConnectionPool(host='blob.example', port=443): Max retries exceeded with url: /b?{SIGNATURE}"
        ),
        requests.TooManyRedirects(f"Exceeded 30 redirects: https://blob.example/b?{SIGNATURE}"),
        OSError(f"Could not find a suitable TLS CA certificate bundle, invalid path: /etc/ca?{SIGNATURE}"),
        ConnectionResetError(errno.ECONNRESET, os.strerror(errno.ECONNRESET)),
        PermissionError(errno.EACCES, os.strerror(errno.EACCES), "/etc/ssl/private/client.key"),
    ],
    ids=["connection", "redirect-loop", "ca-bundle", "reset", "a-file-elsewhere"],
)
def test_errors_of_the_download_itself_are_not_blamed_on_the_cache(tmp_path: Path, error: OSError) -> None:
    cache, path = _cache(tmp_path)
    with pytest.raises(type(error)) as raised:
        cache.obtain(path, _raises(error))  # type: ignore[arg-type]
    assert raised.value is error


def test_service_errors_pass_as_they_are(tmp_path: Path) -> None:
    cache, path = _cache(tmp_path)
    error = UnavailableError("download of artifact 'allure-results-x' (run 1) kept failing after 3 tries")
    with pytest.raises(UnavailableError) as raised:
        cache.obtain(path, _raises(error))  # type: ignore[arg-type]
    assert raised.value is error


@pytest.mark.parametrize(
    "make_error",
    [
        lambda _folder: OSError(errno.ENOSPC, os.strerror(errno.ENOSPC)),  # write() names no file
        lambda _folder: OSError(errno.EDQUOT, os.strerror(errno.EDQUOT)),
        lambda folder: PermissionError(errno.EACCES, os.strerror(errno.EACCES), f"{folder}/1.zip.part-7-1"),
    ],
    ids=["disk-full", "quota", "cannot-create-the-partial"],
)
def test_trouble_with_the_caches_own_files_is_a_clear_error(
    tmp_path: Path, make_error: Callable[[Path], OSError]
) -> None:
    cache, path = _cache(tmp_path)
    error = make_error(path.parent)  # a fresh error per run: the parameters are shared by the session
    with pytest.raises(ConfigError) as raised:
        cache.obtain(path, _raises(error))  # type: ignore[arg-type]
    assert raised.value.message == f"cannot write to the download cache '{cache.root}': {error.strerror}"
    assert "CI_FORENSICS_CACHE" in raised.value.hint
    assert SIGNATURE_SECRET not in raised.value.message


def test_a_folder_that_cannot_be_made_is_the_caches_error_before_any_download(tmp_path: Path) -> None:
    cache, path = _cache(tmp_path)
    cache.root.write_text("a file where the cache folder should be")
    called: list[Path] = []
    with pytest.raises(ConfigError, match="cannot write to the download cache"):
        cache.obtain(path, called.append)
    assert called == []
