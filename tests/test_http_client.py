"""HttpClient's edges that no service wording covers: unusable URLs, redirect loops, dead hosts.

A requests exception's text carries the full URL (a signed one, query and all), so errors name only the
exception's type and do not chain the original.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from forensics.errors import ServiceError, UnavailableError
from forensics.services.http import HttpClient, RetryPolicy
from tests.fakes.server import FakeServer, Reply, running

SIGNATURE = "sig=TopSecretSignature0123"


@pytest.fixture
def server() -> Iterator[FakeServer]:
    with running() as fake:
        yield fake


def _client(base_url: str) -> HttpClient:
    return HttpClient(base_url=base_url, service="GitHub", retry=RetryPolicy(attempts=2, backoff=0.0))


@pytest.mark.parametrize("base_url", ["api.github.com", "ftp://api.github.com", "http://"])
def test_an_unusable_base_url_is_a_service_error_not_a_traceback(base_url: str) -> None:
    with pytest.raises(ServiceError) as raised:
        _client(base_url).get_json("/repos/a/b", what="repository a/b")
    assert "URL" in raised.value.hint
    assert raised.value.__cause__ is None


def test_a_redirect_loop_at_the_storage_host_names_the_artifact_not_the_signed_url(
    server: FakeServer, tmp_path: Path
) -> None:
    server.route("GET", r"/download", lambda _: Reply(status=302, headers={"Location": f"/loop?{SIGNATURE}"}))
    server.route("GET", r"/loop", lambda _: Reply(status=302, headers={"Location": f"/loop?{SIGNATURE}"}))
    with pytest.raises(ServiceError) as raised:
        _client(server.url).download("/download", tmp_path / "a.zip", what="artifact 'allure-results-x'")
    message = f"{raised.value.message} {raised.value.hint}"
    assert "artifact 'allure-results-x'" in message and "TooManyRedirects" in message
    assert SIGNATURE not in message and raised.value.__cause__ is None
    assert list(tmp_path.iterdir()) == []  # no partial download left behind


def test_a_dead_storage_host_is_retried_then_unavailable_without_its_url(
    server: FakeServer, tmp_path: Path
) -> None:
    with socket.socket() as probe:  # bound but not listening: connections are refused, and no one can take it
        probe.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{probe.getsockname()[1]}/blob?{SIGNATURE}"
        server.route("GET", r"/download", lambda _: Reply(status=302, headers={"Location": dead}))
        with pytest.raises(UnavailableError) as raised:
            _client(server.url).download("/download", tmp_path / "a.zip", what="artifact 'allure-results-x'")
    assert "kept failing after 2 tries" in raised.value.message
    assert f"the storage host: {dead.split('/')[2]} refused the connection" in raised.value.message
    assert SIGNATURE not in str(raised.value) and raised.value.__cause__ is None
    assert len([r for r in server.requests if r.path == "/download"]) == 2  # a fresh redirect per try


def test_a_dead_api_host_says_how_often_it_was_tried(tmp_path: Path) -> None:
    with socket.socket() as probe:  # bound but not listening
        probe.bind(("127.0.0.1", 0))
        base = f"http://127.0.0.1:{probe.getsockname()[1]}"
        with pytest.raises(UnavailableError) as raised:
            _client(base).get_json("/repos/a/b/actions/jobs/1", what="job 1")
    port = base.rsplit(":", 1)[1]
    assert raised.value.message == (
        f"cannot reach GitHub for job 1 (/repos/a/b/actions/jobs/1): 127.0.0.1:{port} refused the connection "
        "(tried 2 times)"
    )
    assert "check the host and port in the GitHub URL" in raised.value.hint and raised.value.__cause__ is None


def test_a_malformed_signed_url_is_a_service_error(server: FakeServer, tmp_path: Path) -> None:
    server.route(
        "GET",
        r"/download",
        lambda _: Reply(status=302, headers={"Location": f"http://127.0.0.1:99999/b?{SIGNATURE}"}),
    )
    with pytest.raises(ServiceError) as raised:
        _client(server.url).download("/download", tmp_path / "a.zip", what="artifact 'allure-results-x'")
    assert "artifact 'allure-results-x'" in raised.value.message and SIGNATURE not in str(raised.value)
