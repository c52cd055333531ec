"""The one HTTP client every service uses: retries, rate limits, pagination, safe downloads.

GitHub, Linear and Jira clients are thin layers over `HttpClient`; this is the only module (with the
sources and sinks built on it) that imports `requests`. Error messages name the object (`what`) and the
URL path, never a token or a signed URL's query.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

import requests

from forensics.errors import (
    RateLimitedError,
    ServiceError,
    UnavailableError,
    UnreachableError,
)
from forensics.services.reachability import SKIPPED, HostCircuits, Origin, connection_failure
from forensics.services.refusals import (
    RETRY_STATUSES,
    refusal_error,
    response_detail,
    standard_rate_limit_wait,
    url_path,
)
from forensics.version import __version__

__all__ = [
    "Download",
    "HostCircuits",
    "HttpClient",
    "Notify",
    "Progress",
    "RateLimitWait",
    "RetryPolicy",
    "response_detail",
    "standard_rate_limit_wait",
    "url_path",
]

CONNECT_TIMEOUT = 3.05
"""Seconds to wait for a TCP connection: just past a multiple of 3 s, TCP's first retransmission window.

Three such waits (the circuit threshold) stay under 10 s for a host that drops every packet."""
USER_AGENT = f"ci-forensics/{__version__} (+https://github.com/ci-forensics/ci-forensics)"
_CHUNK = 1 << 20

Notify = Callable[[str], None]
"""Tells the user something worth knowing while they wait (a retry, a rate-limit pause)."""

Progress = Callable[[int, int | None], None]
"""Called with (bytes so far, total bytes or None) while a download streams."""

RateLimitWait = Callable[[requests.Response], float | None]
"""Seconds the service asks us to wait before retrying this response; None when it is not a rate limit."""

Explain = Callable[[requests.Response, str], "ServiceError | None"]
"""A service's own wording for a refused request (`what` names the object); None keeps the generic one."""


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How hard to try: attempts per request, the first backoff (doubled each time), the longest wait."""

    attempts: int = 5
    backoff: float = 1.0
    max_backoff: float = 30.0
    max_rate_limit_wait: float = 300.0


@dataclass(frozen=True, slots=True)
class Download:
    """A finished download: where it landed, its size and sha256."""

    path: Path
    size: int
    sha256: str


@dataclass(slots=True)
class HttpClient:
    """A `requests` session bound to one service: base URL, credentials, timeout and retry policy."""

    base_url: str
    service: str  # "GitHub", "Linear", "Jira": used in messages
    headers: Mapping[str, str] = field(default_factory=dict)
    auth_header: str | None = field(default=None, repr=False)  # the Authorization value; never shown
    timeout: float = 30.0  # seconds to wait for an answer
    connect_timeout: float = CONNECT_TIMEOUT  # seconds to wait for a connection (at most `timeout`)
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    rate_limit_wait: RateLimitWait = standard_rate_limit_wait
    notify: Notify | None = None
    explain: Explain | None = None
    sleep: Callable[[float], None] = time.sleep
    session: requests.Session = field(default_factory=requests.Session, repr=False)
    circuits: HostCircuits = field(default_factory=HostCircuits, repr=False)  # share one across a run

    def __post_init__(self) -> None:
        self.base_url = self.base_url.rstrip("/") + "/"
        self.session.headers.update({"User-Agent": USER_AGENT, **self.headers})
        if self.auth_header:
            self.session.headers["Authorization"] = self.auth_header

    def close(self) -> None:
        """Release pooled connections."""
        self.session.close()

    def url(self, path: str) -> str:
        """Absolute URL of a path relative to the base URL (absolute URLs pass through)."""
        return urljoin(self.base_url, path.lstrip("/")) if "://" not in path else path

    def request(
        self,
        method: str,
        path: str,
        *,
        what: str,
        params: Mapping[str, Any] | None = None,
        json: Any = None,
        ok: tuple[int, ...] = (200, 201),
        allow_redirects: bool = True,
        stream: bool = False,
    ) -> requests.Response:
        """Send one request with retries; statuses in `ok` return, others become ServiceError subclasses."""
        url = self.url(path)
        origin = Origin.of(url)
        attempt = 0
        while True:
            attempt += 1
            self.circuits.check(origin, service=self.service, what=what)
            started = time.monotonic()
            try:
                response = self.session.request(
                    method,
                    url,
                    params=params,
                    json=json,
                    timeout=self.timeouts,
                    allow_redirects=allow_redirects,
                    stream=stream,
                )
            # `from None` below: str() of a requests error carries the full URL, query and all (a signed URL
            # is a credential), so only the error's type is shown and the chain is not kept.
            except (
                requests.exceptions.InvalidURL,
                requests.exceptions.InvalidSchema,
                requests.exceptions.MissingSchema,
            ) as err:
                raise ServiceError(
                    f"cannot reach {self.service} for {what}: its URL is not usable ({type(err).__name__})",
                    hint=f"check the {self.service} URL: it needs a scheme and a host, like https://host/api",
                ) from None
            except (
                requests.ConnectionError,
                requests.Timeout,
                requests.exceptions.ChunkedEncodingError,
            ) as err:
                failure = connection_failure(err, origin=origin, service=self.service, timeouts=self.timeouts)
                allowed = min(self.retry.attempts, failure.attempts or self.retry.attempts)
                opened = self.circuits.failed(
                    origin,
                    reason=failure.reason,
                    hint=failure.hint,
                    waited=time.monotonic() - started,
                    # a dropped answer or a slow one may be a hiccup; no connection at all is not
                    unreachable=attempt >= allowed and failure.attempts is not None,
                )
                if attempt >= allowed or opened:
                    tried = f" (tried {attempt} times)" if attempt > 1 else ""
                    raise UnreachableError(
                        f"cannot reach {self.service} for {what} ({url_path(url)}): {failure.reason}{tried}",
                        hint=failure.hint + (SKIPPED if opened else ""),
                        host=str(origin),
                    ) from None
                self._back_off(attempt, f"{self.service}: {failure.reason}", allowed)
                continue
            except requests.RequestException as err:  # TooManyRedirects, InvalidHeader, …
                raise ServiceError(
                    f"{self.service} request for {what} ({url_path(url)}) failed: {type(err).__name__}",
                    hint=f"check the {self.service} URL; retry later",
                ) from None
            if response.status_code in RETRY_STATUSES:
                opened = self.circuits.failed(
                    origin,
                    reason=f"{origin} answered HTTP {response.status_code}",
                    hint=f"retry later; check {self.service}'s status page",
                    waited=time.monotonic() - started,
                )
            else:
                opened = False
                self.circuits.answered(origin)
            if response.status_code in ok:
                return response
            wait = self.rate_limit_wait(response)
            if wait is not None:
                response.close()
                if wait > self.retry.max_rate_limit_wait or attempt >= self.retry.attempts:
                    raise RateLimitedError(
                        f"{self.service} rate limit reached while getting {what}: it asks to wait {wait:.0f} s",
                        hint="retry after the limit resets, or use a token with a higher rate limit",
                        status=response.status_code,
                    )
                self._say(f"{self.service} rate limit: waiting {wait:.0f} s before retrying {what}")
                self.sleep(wait)
                continue
            if response.status_code in RETRY_STATUSES and attempt < self.retry.attempts and not opened:
                response.close()
                self._back_off(attempt, f"{self.service} answered {response.status_code} for {what}")
                continue
            error = self.error_for(response, what=what, url=url, attempts=attempt)
            if opened:
                error.hint = (error.hint or f"retry later; check {self.service}'s status page") + SKIPPED
            raise error

    def get_json(self, path: str, *, what: str, params: Mapping[str, Any] | None = None) -> Any:
        """GET a JSON document."""
        response = self.request("GET", path, what=what, params=params)
        try:
            return response.json()
        except ValueError as err:
            raise ServiceError(
                f"{self.service} sent something that is not JSON for {what} ({url_path(response.url)})",
                hint=f"check that the {self.service} URL points at the API",
            ) from err

    def paginate(
        self, path: str, *, what: str, items_key: str | None, params: Mapping[str, Any] | None = None
    ) -> Iterator[Any]:
        """Every item of a paginated list, following `Link: <…>; rel="next"` (GitHub's and Jira-less REST style)."""
        url: str | None = self.url(path)
        page_params: Mapping[str, Any] | None = {"per_page": 100, **(params or {})}
        while url:
            response = self.request("GET", url, what=what, params=page_params)
            try:
                document = response.json()
            except ValueError as err:
                raise ServiceError(f"{self.service} sent a page that is not JSON for {what}") from err
            items = document if items_key is None else _field(document, items_key)
            if not isinstance(items, list):
                raise ServiceError(
                    f"{self.service} sent a page that is not a list for {what} ({url_path(response.url)})",
                    hint=f"check that the {self.service} URL points at the API",
                )
            yield from items
            link = response.links.get("next", {}).get("url")
            url = urljoin(response.url, link) if link else None
            if url and self.auth_header and Origin.of(url) != Origin.of(self.base_url):
                # requests drops Authorization on a redirect to another origin; a next link is no redirect,
                # and following it would hand the token to whoever wrote the header: refuse.
                raise ServiceError(
                    f"{self.service}'s next page of {what} is on another origin ({Origin.of(url)}, not "
                    f"{Origin.of(self.base_url)}); it was not followed, so the {self.service} token stays "
                    "with its own host",
                    hint=f"check the {self.service} URL and any proxy that rewrites Link headers",
                )
            page_params = None  # the next link carries every parameter

    def download(
        self,
        path: str,
        destination: Path,
        *,
        what: str,
        expected_size: int | None = None,
        expected_sha256: str | None = None,
        progress: Progress | None = None,
    ) -> Download:
        """Stream a file to `destination` atomically, following a redirect without our credentials.

        GitHub answers 302 with a signed storage URL valid about a minute; the storage host rejects requests
        that carry our Authorization header, and the URL itself is a credential: it is never logged.
        A dropped connection restarts the download from a fresh redirect.
        """
        destination.parent.mkdir(parents=True, exist_ok=True)
        partial = destination.with_name(f"{destination.name}.part-{os.getpid()}-{time.monotonic_ns()}")
        attempt = 0
        try:
            while True:
                attempt += 1
                try:
                    result = self._download_once(path, partial, what=what, progress=progress)
                except (requests.ConnectionError, requests.Timeout, _RetryableDownloadError) as err:
                    # str() of a requests error carries the full URL (a signed one here): name the type only
                    reason = str(err) if isinstance(err, _RetryableDownloadError) else type(err).__name__
                    if attempt >= self.retry.attempts:
                        raise UnavailableError(
                            f"download of {what} kept failing after {attempt} tries: {reason}",
                            hint="retry later; a cached partial download is never used",
                        ) from None
                    self._back_off(attempt, f"download of {what} interrupted ({type(err).__name__})")
                    continue
                if expected_size is not None and result.size != expected_size:
                    if attempt >= self.retry.attempts:
                        raise UnavailableError(
                            f"download of {what} has {result.size} bytes, {self.service} said {expected_size}",
                            hint="retry later",
                        )
                    self._back_off(attempt, f"download of {what} came out the wrong size")
                    continue
                if expected_sha256 and result.sha256 != expected_sha256.removeprefix("sha256:"):
                    raise ServiceError(
                        f"download of {what} does not match the digest {self.service} gave",
                        hint="retry; if it persists the artifact is damaged at the source",
                    )
                os.replace(partial, destination)
                return Download(path=destination, size=result.size, sha256=result.sha256)
        finally:
            partial.unlink(missing_ok=True)

    def _download_once(self, path: str, partial: Path, *, what: str, progress: Progress | None) -> Download:
        first = self.request(
            "GET", path, what=what, ok=(200, 301, 302, 303, 307, 308), allow_redirects=False, stream=True
        )
        if first.status_code == 200:
            return _stream(first, partial, progress)
        location = first.headers.get("location", "")
        first.close()
        if not location:
            raise ServiceError(f"{self.service} redirected {what} without a location", hint="retry later")
        # A fresh session: no Authorization, no service headers; the signed URL is the credential.
        with requests.Session() as storage:
            storage.headers["User-Agent"] = USER_AGENT
            signed = urljoin(first.url, location)
            host = Origin.of(signed)  # the host alone: the signed URL's query is a credential
            try:
                response = storage.get(signed, timeout=self.timeouts, stream=True)
            except (requests.ConnectionError, requests.Timeout) as err:
                failure = connection_failure(err, origin=host, service=self.service, timeouts=self.timeouts)
                raise _RetryableDownloadError(f"the storage host: {failure.reason}") from None
            except (
                requests.RequestException,
                ValueError,
            ) as err:  # a redirect loop, a malformed signed URL, …
                raise ServiceError(
                    f"the storage host failed the download of {what}: {type(err).__name__}",
                    hint="signed download URLs live about a minute: retry later",
                ) from None
            # 5xx, and 401/403 from a signed URL that expired on the way: a fresh redirect may do
            if response.status_code in RETRY_STATUSES or response.status_code in (401, 403):
                response.close()
                raise _RetryableDownloadError(f"the storage host {host} answered HTTP {response.status_code}")
            if response.status_code != 200:
                response.close()
                raise ServiceError(
                    f"the storage host {host} refused the download of {what} (HTTP {response.status_code})",
                    hint="signed download URLs live about a minute: retry; check the clock if it persists",
                    status=response.status_code,
                )
            return _stream(response, partial, progress)

    def error_for(
        self, response: requests.Response, *, what: str, url: str, attempts: int | None = None
    ) -> ServiceError:
        """The ServiceError subclass for a refused request; the service's `explain` hook words it first."""
        if self.explain is not None:
            explained = self.explain(response, what)
            if explained is not None:
                return explained
        tries = self.retry.attempts if attempts is None else attempts
        return refusal_error(response, service=self.service, what=what, url=url, attempts=tries)

    @property
    def timeouts(self) -> tuple[float, float]:
        """(connect, read) timeouts in seconds, as requests takes them."""
        return (min(self.connect_timeout, self.timeout), self.timeout)

    def _back_off(self, attempt: int, reason: str, attempts: int | None = None) -> None:
        wait = min(self.retry.backoff * 2 ** (attempt - 1), self.retry.max_backoff)
        of = self.retry.attempts if attempts is None else attempts
        self._say(f"{reason}; retrying in {wait:.1f} s (attempt {attempt + 1} of {of})")
        self.sleep(wait)

    def _say(self, message: str) -> None:
        if self.notify is not None:
            self.notify(message)


class _RetryableDownloadError(Exception):
    """A download that ended early or a storage host that failed: worth another try."""


def _stream(response: requests.Response, partial: Path, progress: Progress | None) -> Download:
    total_header = response.headers.get("content-length", "")
    total = int(total_header) if total_header.isdigit() else None
    digest = hashlib.sha256()
    size = 0
    try:
        with partial.open("wb") as sink:
            if progress is not None:
                progress(0, total)
            for chunk in response.iter_content(_CHUNK):
                sink.write(chunk)
                digest.update(chunk)
                size += len(chunk)
                if progress is not None:
                    progress(size, total)
    except (requests.exceptions.ChunkedEncodingError, requests.exceptions.ContentDecodingError) as err:
        raise _RetryableDownloadError(f"connection dropped after {size} bytes") from err
    finally:
        response.close()
    if total is not None and size != total:
        raise _RetryableDownloadError(f"connection dropped after {size} of {total} bytes")
    return Download(path=partial, size=size, sha256=digest.hexdigest())


def _field(document: Any, key: str) -> Any:
    return document.get(key, []) if isinstance(document, dict) else None
