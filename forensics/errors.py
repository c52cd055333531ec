"""The exceptions that end a whole run; each names the object and a hint for the next step.

Per-item trouble (one broken artifact, file or log) is not an exception but a `Problem` in the report.
"""

from __future__ import annotations

import sys


class ForensicsError(Exception):
    """A whole-run failure with a message naming the object and a hint naming the next action."""

    def __init__(self, message: str, *, hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return self.message


class ConfigError(ForensicsError):
    """Options or environment that cannot work together."""


class RulesError(ForensicsError):
    """A rule file that cannot be loaded: bad TOML, a missing field, a bad regex."""


class ResultsError(ForensicsError):
    """Inputs that cannot be read at all: no such path, not a results folder, zip or log."""


class ServiceError(ForensicsError):
    """A remote service (GitHub, Linear, Jira) refused or failed; `status` is the HTTP status when one came."""

    def __init__(self, message: str, *, hint: str = "", status: int | None = None) -> None:
        super().__init__(message, hint=hint)
        self.status = status


class AuthenticationError(ServiceError):
    """Credentials are missing or lack a permission."""


class NotFoundError(ServiceError):
    """The remote object does not exist (or is not visible with these credentials)."""


class GoneError(NotFoundError):
    """The remote object existed but is gone for good (HTTP 410: an expired artifact)."""


class RateLimitedError(ServiceError):
    """The service asked us to slow down for longer than we are willing to wait."""


class UnavailableError(ServiceError):
    """The service kept failing (5xx, dropped connections) after retries."""


class UnreachableError(UnavailableError):
    """No answer from the service's host (DNS, refused, timeout), or a host skipped after failing in a row.

    `host` is the host (and port when not the default), never a URL: a URL's query may be a credential.
    """

    def __init__(self, message: str, *, hint: str = "", host: str, status: int | None = None) -> None:
        super().__init__(message, hint=hint, status=status)
        self.host = host


class StoreError(ForensicsError):
    """The history store cannot be opened or migrated."""


class StoreNotFoundError(StoreError):
    """No history store where one was to be read: reading commands never create one."""


def zip_read_errors(*others: type[Exception]) -> tuple[type[Exception], ...]:
    """`others` and `zipfile.BadZipFile` once `zipfile` is loaded (no code can raise it before): an `except`
    clause names it this way without importing `zipfile` and what it pulls in (`shutil`, `bz2`, `lzma`: ~15 M
    instructions) on the way to a plain log."""
    zipfile = sys.modules.get("zipfile")
    return (*others, zipfile.BadZipFile) if zipfile is not None else others
