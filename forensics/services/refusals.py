"""How services say no: rate-limit signals, and refused requests as ServiceError subclasses with hints.

Messages name the object and the URL path only, never a query (a signed URL's query is a credential).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from email.utils import parsedate_to_datetime
from urllib.parse import urlsplit

import requests

from forensics.errors import (
    AuthenticationError,
    GoneError,
    NotFoundError,
    ServiceError,
    UnavailableError,
)

RETRY_STATUSES = frozenset({500, 502, 503, 504})
"""Server errors worth another try."""


def standard_rate_limit_wait(
    response: requests.Response, *, now: Callable[[], float] = time.time
) -> float | None:
    """GitHub's and most REST services' rate-limit signals, as seconds to wait.

    `retry-after` (secondary limits, Jira's 429) wins; else `x-ratelimit-remaining: 0` waits until
    `x-ratelimit-reset` (epoch seconds). A 429 with neither waits a minute, as GitHub's docs advise.
    """
    if response.status_code not in (403, 429):
        return None
    retry_after = response.headers.get("retry-after")
    if retry_after:
        return _parse_retry_after(retry_after, now)
    if response.headers.get("x-ratelimit-remaining") == "0":
        reset = response.headers.get("x-ratelimit-reset", "")
        if reset.isdigit():
            return max(0.0, int(reset) - now()) + 1.0
        return 60.0
    if response.status_code == 429 or "secondary rate limit" in response.text.lower():
        return 60.0
    return None


def _parse_retry_after(value: str, now: Callable[[], float]) -> float:
    if value.strip().isdigit():
        return float(value.strip())
    try:
        return max(0.0, parsedate_to_datetime(value).timestamp() - now())
    except (TypeError, ValueError):
        return 60.0


def refusal_error(
    response: requests.Response, *, service: str, what: str, url: str, attempts: int
) -> ServiceError:
    """The generic wording of a refused request; services word their own first (HttpClient's `explain`)."""
    status = response.status_code
    detail = response_detail(response)
    where = f"{what} ({url_path(url)})"
    if status == 401:
        return AuthenticationError(
            f"{service} refused the credentials for {where}: {detail}",
            hint=f"check the {service} token: it is missing, expired or revoked",
            status=status,
        )
    if status == 403:
        return AuthenticationError(
            f"{service} forbids {where}: {detail}",
            hint="the token lacks a permission for this object",
            status=status,
        )
    if status == 404:
        return NotFoundError(
            f"{service} has no {where}",
            hint="check the id and the repository; private objects also answer 404 without access",
            status=status,
        )
    if status == 410:
        return GoneError(f"{what} is gone from {service}: {detail}", hint="it expired", status=status)
    if status in RETRY_STATUSES:
        return UnavailableError(
            f"{service} kept failing for {where} (HTTP {status}) after {attempts} tries",
            hint=f"retry later; check {service}'s status page",
            status=status,
        )
    return ServiceError(f"{service} answered HTTP {status} for {where}: {detail}", status=status)


def url_path(url: str) -> str:
    """Only the path of a URL: queries may hold signatures and are never shown."""
    return urlsplit(url).path or "/"


def response_detail(response: requests.Response) -> str:
    """The service's own message, short and on one line."""
    try:
        document = response.json()
    except ValueError:
        text = response.text.strip().splitlines()
        return text[0][:200] if text else f"HTTP {response.status_code}"
    if isinstance(document, dict):
        for key in ("message", "error", "errorMessages"):
            value = document.get(key)
            if value:
                return str(value)[:200]
    return f"HTTP {response.status_code}"
