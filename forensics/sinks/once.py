"""Creating a comment is not idempotent: send it once, and resend only after a refusal that wrote nothing.

A 5xx, a timeout or a dropped connection may come after the tracker saved the comment, so a create is
never resent on those: the error goes up and `annotate.run` looks for the marker before one more create.
A rate-limit refusal (GitHub's 403/429, Jira's 429) wrote nothing; the create waits as long as the
service asks (up to the policy's limit) and is sent again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Generic, ParamSpec, TypeVar

from forensics.errors import RateLimitedError
from forensics.services.http import HttpClient

_T = TypeVar("_T")
_P = ParamSpec("_P")


class _RememberedWait(Generic[_P]):
    """A service's rate-limit hook that also remembers the wait it last asked for."""

    def __init__(self, hook: Callable[_P, float | None]) -> None:
        self.hook = hook
        self.last: float | None = None

    def __call__(self, *args: _P.args, **kwargs: _P.kwargs) -> float | None:
        self.last = self.hook(*args, **kwargs)
        return self.last


class SendOnce:
    """A twin of a service's `HttpClient` (same session, explain hook and limits) that never resends.

    `http` is the twin to send creates through; `send` calls a create and resends it only when the
    service refused it with a rate limit, after waiting as long as it asked.
    """

    def __init__(self, http: HttpClient) -> None:
        self._policy = http.retry
        self._wait = _RememberedWait(http.rate_limit_wait)
        # attempts=1: HttpClient raises at the first 5xx or dropped connection instead of resending
        self.http = replace(http, retry=replace(http.retry, attempts=1), rate_limit_wait=self._wait)

    def send(self, create: Callable[[], _T]) -> _T:
        """`create()`, sent again after each rate-limit refusal (at most the policy's attempts in all)."""
        attempt = 0
        while True:
            attempt += 1
            self._wait.last = None
            try:
                return create()
            except RateLimitedError:
                wait = self._wait.last
                last_try = attempt >= self._policy.attempts
                if wait is None or wait > self._policy.max_rate_limit_wait or last_try:
                    raise
            if self.http.notify is not None:
                self.http.notify(f"{self.http.service} rate limit: waiting {wait:.0f} s before posting again")
            self.http.sleep(wait)
