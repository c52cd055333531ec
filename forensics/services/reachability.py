"""Whether a host can be reached: what a failed connection means, and which hosts to stop asking this run.

A connection that fails says why in layers (requests → urllib3 → socket); `connection_failure` reads the
layers and answers with a sentence naming the host (never a URL: a signed URL's query is a credential),
what to check, and how many tries the failure deserves. A name that does not resolve will not resolve a
second later; a refused port may be a service restarting, so it gets one more try; a timeout or a dropped
connection may be a passing hiccup.

`HostCircuits` is the run's memory of hosts that keep failing: after 3 failed tries in a row to one
origin, 8 s spent on such tries, or one request that gave up connecting to it, every later request to it
fails at once, so twenty tickets on an unreachable tracker give one slow failure and nineteen instant
ones, not twenty slow ones.
"""

from __future__ import annotations

import socket
import ssl
import threading
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import requests

from forensics.errors import UnreachableError

DEFAULT_PORTS = {"http": 80, "https": 443}
SKIPPED = "; it is not contacted again in this run"
CIRCUIT_THRESHOLD = 3
"""Failed tries in a row (no answer, or a 5xx) after which a host is not contacted again this run."""
CIRCUIT_BUDGET = 8.0
"""Seconds of failed tries in a row (timeouts) after which a host is not contacted again this run."""


@dataclass(frozen=True, slots=True)
class Origin:
    """Scheme, host and port of a URL: what credentials and circuits are kept per (RFC 6454)."""

    scheme: str
    host: str
    port: int

    @classmethod
    def of(cls, url: str) -> Origin:
        """The origin of an absolute URL (user info, path and query are dropped)."""
        parts = urlsplit(url)
        scheme = parts.scheme.lower()
        try:
            port = parts.port
        except ValueError:  # a port out of range: no origin anything else shares
            port = -1
        return cls(scheme, (parts.hostname or "").lower(), port or DEFAULT_PORTS.get(scheme, -1))

    def __str__(self) -> str:
        """`host`, or `host:port` when the port is not the scheme's default."""
        if DEFAULT_PORTS.get(self.scheme) == self.port:
            return self.host
        return f"{self.host}:{self.port}"


@dataclass(frozen=True, slots=True)
class ConnectionFailure:
    """Why a request got no answer: a clause naming the host, what to check, and how many tries it deserves."""

    reason: str  # "api.linear.app refused the connection"
    hint: str
    attempts: int | None  # most tries for this kind of failure; None: as many as the retry policy allows


def connection_failure(
    error: requests.RequestException, *, origin: Origin, service: str, timeouts: tuple[float, float]
) -> ConnectionFailure:
    """What a requests connection error or timeout means for `origin`, worded for a person."""
    connect_timeout, read_timeout = timeouts
    causes = _causes(error)
    if isinstance(error, requests.exceptions.ProxyError):
        return ConnectionFailure(
            f"the proxy did not connect to {origin}",
            "check HTTPS_PROXY, HTTP_PROXY and NO_PROXY, and that the proxy is up",
            attempts=2,
        )
    if isinstance(error, requests.exceptions.SSLError) or any(isinstance(c, ssl.SSLError) for c in causes):
        return ConnectionFailure(
            f"the TLS handshake with {origin} failed",
            f"check that the {service} URL has the right scheme (https) and port; a private certificate "
            "authority needs REQUESTS_CA_BUNDLE",
            attempts=1,
        )
    if any(isinstance(cause, socket.gaierror) for cause in causes):
        return ConnectionFailure(
            f"the host name {origin.host} does not resolve",
            f"check the host in the {service} URL, and this machine's DNS and network (is it offline?)",
            attempts=1,
        )
    if any(isinstance(cause, ConnectionRefusedError) for cause in causes):
        return ConnectionFailure(
            f"{origin} refused the connection",
            f"check the host and port in the {service} URL, and that the service is running there",
            attempts=2,
        )
    if isinstance(error, requests.ConnectTimeout):
        return ConnectionFailure(
            f"{origin} did not accept a connection within {connect_timeout:g} s",
            f"check the network, any firewall or proxy (HTTPS_PROXY), and the host in the {service} URL",
            attempts=2,
        )
    if isinstance(error, requests.Timeout):
        return ConnectionFailure(
            f"{origin} did not answer within {read_timeout:g} s",
            f"retry later; check {service}'s status page",
            attempts=None,
        )
    if any(isinstance(cause, OSError) and cause.errno is not None for cause in causes):
        errno_error = next(c for c in causes if isinstance(c, OSError) and c.errno is not None)
        return ConnectionFailure(
            f"cannot connect to {origin} ({errno_error.strerror or type(errno_error).__name__})",
            f"check the network and the host in the {service} URL",
            attempts=2,
        )
    return ConnectionFailure(
        f"{origin} dropped the connection ({type(error).__name__})",
        f"retry later; check the network and {service}'s status page",
        attempts=None,
    )


def _causes(error: BaseException) -> list[BaseException]:
    """The error, its `args`' exceptions (urllib3 wraps its reason there) and their causes and contexts."""
    found: list[BaseException] = []
    pending: list[BaseException] = [error]
    while pending and len(found) < 32:
        current = pending.pop()
        if any(current is seen for seen in found):
            continue
        found.append(current)
        pending += [arg for arg in current.args if isinstance(arg, BaseException)]
        reason = getattr(current, "reason", None)
        if isinstance(reason, BaseException):
            pending.append(reason)
        pending += [link for link in (current.__cause__, current.__context__) if link is not None]
    return found


@dataclass(slots=True)
class _Circuit:
    """One host's record of failed tries in a row and whether it is given up on (open)."""

    failures: int = 0  # failed tries in a row
    waited: float = 0.0  # seconds those tries took
    open: bool = False
    reason: str = ""
    hint: str = ""


@dataclass(slots=True)
class HostCircuits:
    """The run's record of failing hosts, shared by every client of the run (thread-safe).

    A failed try (no answer, or a 5xx) counts against its origin; any other answer resets the count. The
    origin opens, and `check` refuses further requests to it, after `threshold` failed tries in a row, once
    such tries have cost `budget` seconds of waiting (a host that accepts and never answers), or when one
    request gave up connecting to it.
    """

    threshold: int = CIRCUIT_THRESHOLD
    budget: float = CIRCUIT_BUDGET
    _circuits: dict[Origin, _Circuit] = field(default_factory=dict, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def check(self, origin: Origin, *, service: str, what: str) -> None:
        """Raise UnreachableError when `origin` is open; otherwise return at once."""
        with self._lock:
            circuit = self._circuits.get(origin)
            if circuit is None or not circuit.open:
                return
            failures, reason, hint = circuit.failures, circuit.reason, circuit.hint
        tries = "1 try" if failures == 1 else f"{failures} tries in a row"
        raise UnreachableError(
            f"{service} was not asked for {what}: {tries} to {origin} failed in this run (last: {reason})",
            hint=hint + SKIPPED,
            host=str(origin),
        )

    def failed(
        self, origin: Origin, *, reason: str, hint: str, waited: float = 0.0, unreachable: bool = False
    ) -> bool:
        """Count a failed try that took `waited` seconds; True when the circuit is now open.

        `unreachable`: a request gave up on a host it could not connect to (no name, refused, no answer to
        a connection, TLS): the host is down for this run, whatever the count says.
        """
        with self._lock:
            circuit = self._circuits.setdefault(origin, _Circuit())
            circuit.failures += 1
            circuit.waited += waited
            circuit.reason, circuit.hint = reason, hint
            circuit.open = (
                circuit.open
                or unreachable
                or circuit.failures >= self.threshold
                or circuit.waited >= self.budget
            )
            return circuit.open

    def answered(self, origin: Origin) -> None:
        """The origin answered (anything but a 5xx): its count starts again."""
        with self._lock:
            self._circuits.pop(origin, None)

    def is_open(self, origin: Origin) -> bool:
        """Whether requests to `origin` are refused for the rest of the run."""
        with self._lock:
            circuit = self._circuits.get(origin)
            return circuit is not None and circuit.open
