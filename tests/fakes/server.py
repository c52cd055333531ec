"""A tiny routed HTTP server on 127.0.0.1 for tests: real sockets, recorded requests, scripted faults.

Fakes of GitHub, storage hosts, Linear and Jira register handlers on it. A handler gets the `Request`
and returns a `Reply`; `fail_next` queues faults (a status, a dropped connection) for a path prefix so a
test can script "502 then success" or "rate limited once".
"""

from __future__ import annotations

import json
import re
import threading
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Protocol
from urllib.parse import parse_qs, urlsplit


@dataclass
class Request:
    """One request as the server saw it."""

    method: str
    path: str  # without the query
    query: dict[str, list[str]]
    headers: dict[str, str]  # lower-case names
    body: bytes
    match: re.Match[str] | None = None

    def json(self) -> Any:
        return json.loads(self.body or b"null")

    def param(self, name: str, default: str = "") -> str:
        return self.query.get(name, [default])[0]


@dataclass
class Reply:
    """What to send back. `drop_after` sends that many body bytes and then closes the connection."""

    status: int = 200
    body: bytes | str | Any = b""
    headers: dict[str, str] = field(default_factory=dict)
    drop_after: int | None = None

    @classmethod
    def json(cls, document: Any, status: int = 200, headers: dict[str, str] | None = None) -> Reply:
        return cls(
            status=status,
            body=json.dumps(document).encode(),
            headers={"Content-Type": "application/json", **(headers or {})},
        )


Handler = Callable[[Request], Reply]


class FakeServer:
    """Routes (method, path regex) → handler; every request is recorded in `requests`."""

    def __init__(self) -> None:
        self.routes: list[tuple[str, re.Pattern[str], Handler]] = []
        self.requests: list[Request] = []
        self.faults: list[tuple[str, Reply]] = []  # (path prefix, reply) used once each, in order
        self.errors: list[str] = []  # handler crashes: answered 500, and stop() fails the test with them
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._httpd.daemon_threads = True
        # a short poll interval: stop() waits for the serve loop to notice
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    def route(self, method: str, pattern: str, handler: Handler) -> None:
        """Serve `method` requests whose path fully matches `pattern`."""
        self.routes.append((method.upper(), re.compile(pattern), handler))

    def fail_next(self, path_prefix: str, reply: Reply, times: int = 1) -> None:
        """The next `times` requests under `path_prefix` get `reply` instead of their handler."""
        with self._lock:
            self.faults.extend([(path_prefix, reply)] * times)

    def start(self) -> FakeServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving; a handler that crashed meanwhile fails the test here (a client may have retried it)."""
        self._httpd.shutdown()
        self._httpd.server_close()
        if self.errors:
            raise AssertionError("a fake server handler crashed:\n" + "\n".join(self.errors))

    def _dispatch(self, request: Request) -> Reply:
        with self._lock:
            self.requests.append(request)
            for index, (prefix, reply) in enumerate(self.faults):
                if request.path.startswith(prefix):
                    del self.faults[index]
                    return reply
        for method, pattern, handler in self.routes:
            match = pattern.fullmatch(request.path)
            if method == request.method and match:
                request.match = match
                return handler(request)
        return Reply.json({"message": "Not Found"}, status=404)

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class _Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # headers and body go out separately: no 40 ms delayed-ACK stall

            def log_message(self, format: str, *args: Any) -> None:
                return

            def _handle(self) -> None:
                parts = urlsplit(self.path)
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                request = Request(
                    method=self.command,
                    path=parts.path,
                    query=parse_qs(parts.query),
                    headers={name.lower(): value for name, value in self.headers.items()},
                    body=body,
                )
                try:
                    reply = server._dispatch(request)
                except Exception:  # a fake's bug or an unexpected request: never a silent dropped connection
                    server.errors.append(f"{request.method} {request.path}\n{traceback.format_exc()}")
                    reply = Reply(status=500, body="fake server handler crashed")
                payload = reply.body
                if isinstance(payload, str):
                    payload = payload.encode()
                elif not isinstance(payload, bytes):
                    payload = json.dumps(payload).encode()
                self.send_response(reply.status)
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(payload)))
                if reply.drop_after is not None:
                    self.send_header("Connection", "close")
                self.end_headers()
                if reply.drop_after is not None:
                    self.wfile.write(payload[: reply.drop_after])
                    self.wfile.flush()
                    self.close_connection = True
                    return
                self.wfile.write(payload)

            do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = _handle  # noqa: N815 - http.server names

        return _Handler


class WriteFaults(Protocol):
    """A fake tracker's scripted trouble after a create was written (GitHub comments, Jira)."""

    server: FakeServer
    answers_after_write: list[Reply]  # the next creates write, then answer these
    drop_create_answers: int  # the next N creates write, then the connection drops before the answer
    outage_after_lost_answer: int  # then this many requests answer 503 (the run gives up: a crash)


def answer_created(fake: WriteFaults, created: Any, *, outage_prefix: str) -> Reply:
    """The answer to a create that was written: 201 with it, unless a fault is scripted."""
    if fake.answers_after_write:
        return fake.answers_after_write.pop(0)
    if fake.drop_create_answers:
        fake.drop_create_answers -= 1
        if fake.outage_after_lost_answer:
            unavailable = Reply(status=503, body="unavailable")
            fake.server.fail_next(outage_prefix, unavailable, times=fake.outage_after_lost_answer)
        return Reply(status=201, body=json.dumps(created).encode(), drop_after=0)
    return Reply.json(created, status=201)


@contextmanager
def running() -> Iterator[FakeServer]:
    """A started FakeServer, stopped afterwards."""
    server = FakeServer().start()
    try:
        yield server
    finally:
        server.stop()
