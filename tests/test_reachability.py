"""Fail fast and say where: what is retried, the per-host circuit, errors naming the host, credentials per origin.

Every host here is real and local (tests/fakes/unreachable.py): a reserved port that refuses, a socket that
accepts and never answers, a full accept queue that drops SYNs. Bounds are asserted on tries, not time;
the elapsed time is printed (`pytest -s`) for the record.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests
import urllib3
from click.testing import CliRunner

from forensics.annotate import Action, annotate_report
from forensics.cli.main import main
from forensics.errors import ServiceError, UnavailableError, UnreachableError
from forensics.model import Report
from forensics.render.annotation import render_result
from forensics.render.json_report import render_json
from forensics.rules.model import RuleSet
from forensics.services.github import GitHubClient
from forensics.services.http import HostCircuits, HttpClient, RetryPolicy
from forensics.services.linear import LinearClient
from forensics.services.reachability import CIRCUIT_THRESHOLD, Origin, connection_failure
from forensics.sinks.linear import LinearCommentSink
from tests.fakes.server import FakeServer, Reply, Request, running
from tests.fakes.unreachable import blackhole_url, refused_url, silent_host
from tests.support.nightly_report import sample_report, with_run

TICKETS = tuple(f"OPS-{number}" for number in range(1, 21))
TOKEN = "ghp_ReachabilityTestToken0123456789abcdef"
HANG_GUARD = 30.0  # seconds: not a timing assertion, only a guard against a run that hangs


@pytest.fixture(scope="module")
def nightly(rule_pack: RuleSet) -> Report:
    return with_run(sample_report(rule_pack))


@pytest.fixture
def server() -> Iterator[FakeServer]:
    with running() as fake:
        yield fake


def _client(base_url: str, *, sleeps: list[float], **options: object) -> HttpClient:
    return HttpClient(
        base_url=base_url,
        service="Linear",
        retry=RetryPolicy(attempts=5, backoff=0.01, max_backoff=0.02),
        sleep=sleeps.append,
        **options,  # type: ignore[arg-type]
    )


def test_a_refused_port_is_tried_twice_then_the_host_is_skipped_for_the_run() -> None:
    sleeps: list[float] = []
    with refused_url() as url:
        client = _client(url, sleeps=sleeps)
        errors = []
        for number in range(5):
            with pytest.raises(UnreachableError) as raised:
                client.get_json("/graphql", what=f"issue OPS-{number}")
            errors.append(raised.value)
    port = url.rsplit(":", 1)[1]
    assert errors[0].message == (
        f"cannot reach Linear for issue OPS-0 (/graphql): 127.0.0.1:{port} refused the connection (tried 2 times)"
    )
    assert errors[0].hint == (
        "check the host and port in the Linear URL, and that the service is running there; "
        "it is not contacted again in this run"
    )
    assert len(sleeps) == 1  # one retry, once
    for error in errors[1:]:
        assert error.message.startswith("Linear was not asked for issue OPS-")
        assert f"in a row to 127.0.0.1:{port} failed in this run" in error.message
        assert error.hint == errors[0].hint and error.host == f"127.0.0.1:{port}"
        assert error.__cause__ is None


def test_twenty_tickets_on_a_tracker_that_never_answers_cost_three_tries_and_give_one_hint(
    nightly: Report,
) -> None:
    with silent_host() as host:
        client = LinearClient(
            api_key="lin_api_ReachabilityTestKey0123456789",
            base_url=f"{host.url}/graphql",
            timeout=0.2,
            retry=RetryPolicy(attempts=5, backoff=0.01, max_backoff=0.02),
        )
        started = time.monotonic()
        try:
            result = annotate_report(
                nightly, sinks={"linear": LinearCommentSink(client)}, extra_tickets=TICKETS
            )
        finally:
            client.close()
        elapsed = time.monotonic() - started
        tries = host.connections
    print(f"\n20 tickets, tracker never answers (read timeout 0.2 s): {elapsed:.2f} s, {tries} tries")
    assert tries == CIRCUIT_THRESHOLD  # not 20 × 5
    assert elapsed < HANG_GUARD
    labels = {outcome.target.key for outcome in result.outcomes}
    assert labels >= set(TICKETS)  # and the tickets the report itself links to
    assert {outcome.action for outcome in result.outcomes} == {Action.FAILED}
    text = render_result(result)
    assert text.count("  hint: ") == 1, text  # one thing to check for the service, not one per ticket
    assert "did not answer within 0.2 s" in text and f"0 of {len(labels)} tickets annotated" in text


def test_a_host_is_given_up_once_its_failed_tries_have_cost_the_time_budget() -> None:
    circuits = HostCircuits(threshold=10, budget=0.3)  # the count alone would allow 10 tries
    with silent_host() as host:
        client = _client(host.url, sleeps=[], timeout=0.2, circuits=circuits)
        for number in range(5):
            with pytest.raises(UnavailableError):
                client.get_json("/graphql", what=f"issue OPS-{number}")
        tries = host.connections
    assert 1 <= tries <= 2  # two timeouts of 0.2 s pass the 0.3 s budget (one, on a very slow machine)
    assert circuits.is_open(Origin.of(host.url))


def test_a_host_that_drops_every_packet_is_given_up_after_two_connection_timeouts() -> None:
    sleeps: list[float] = []
    notices: list[str] = []
    with blackhole_url() as url:
        client = _client(url, sleeps=sleeps, timeout=5.0, connect_timeout=0.2, notify=notices.append)
        started = time.monotonic()
        messages = []
        for number in range(20):
            with pytest.raises(UnreachableError) as raised:
                client.get_json("/graphql", what=f"issue OPS-{number}")
            messages.append(raised.value.message)
        elapsed = time.monotonic() - started
    print(f"\n20 requests, SYN-dropping host (connect timeout 0.2 s): {elapsed:.2f} s")
    assert "did not accept a connection within 0.2 s (tried 2 times)" in messages[0]
    assert "any firewall or proxy (HTTPS_PROXY)" in str(raised.value.hint)
    assert all(message.startswith("Linear was not asked") for message in messages[1:])
    assert len(notices) == 1 and "retrying" in notices[0]  # two tries in all, one notice between them
    assert elapsed < HANG_GUARD


def test_a_5xx_outage_is_tried_three_times_then_skipped(server: FakeServer) -> None:
    server.route("GET", r"/api/.*", lambda _: Reply.json({"message": "Service Unavailable"}, status=503))
    sleeps: list[float] = []
    client = _client(server.url, sleeps=sleeps)
    with pytest.raises(UnavailableError) as first:
        client.get_json("/api/one", what="issue OPS-1")
    with pytest.raises(UnreachableError) as second:
        client.get_json("/api/two", what="issue OPS-2")
    assert len(server.requests) == CIRCUIT_THRESHOLD  # the policy allows 5; the circuit stops at 3
    assert "(HTTP 503) after 3 tries" in first.value.message
    assert first.value.hint.endswith("it is not contacted again in this run")
    assert f"(last: 127.0.0.1:{server.url.rsplit(':', 1)[1]} answered HTTP 503)" in second.value.message


def test_an_answer_resets_the_count_and_circuits_are_per_origin(server: FakeServer) -> None:
    replies = iter([502, 502, 200, 502, 502, 200])
    server.route("GET", r"/api", lambda _: Reply.json({}, status=next(replies)))
    client = _client(server.url, sleeps=[])
    assert client.get_json("/api", what="first") == {}  # 502, 502, then 200: two failures, then reset
    assert client.get_json("/api", what="second") == {}  # two more, never three in a row
    assert len(server.requests) == 6
    with refused_url() as dead:
        circuits = HostCircuits()
        with pytest.raises(UnreachableError):
            _client(dead, sleeps=[], circuits=circuits).get_json("/x", what="x")
        assert circuits.is_open(Origin.of(dead)) and not circuits.is_open(Origin.of(server.url))
        server.route("GET", r"/ok", lambda _: Reply.json({"ok": True}))
        assert _client(server.url, sleeps=[], circuits=circuits).get_json("/ok", what="ok") == {"ok": True}


def test_clients_sharing_the_runs_circuits_do_not_ask_a_host_another_client_gave_up() -> None:
    circuits = HostCircuits()
    with refused_url() as url:
        fetching = GitHubClient(base_url=url, token=TOKEN, circuits=circuits, sleep=lambda _: None)
        commenting = GitHubClient(base_url=url, token=TOKEN, circuits=circuits, sleep=lambda _: None)
        with pytest.raises(UnreachableError):
            fetching.get_job("o/r", 1)
        with pytest.raises(UnreachableError) as raised:
            list(commenting.list_issue_comments("o/r", 2))
    assert raised.value.message.startswith("GitHub was not asked for comments of o/r#2")


def test_a_name_that_does_not_resolve_is_never_retried() -> None:
    # the exception chain requests raises for a failed lookup, raised as urllib3 raises it (a real lookup
    # would need DNS, and tests use no network)
    try:
        try:
            raise socket.gaierror(-2, "Name or service not known")
        except socket.gaierror as lookup:
            raise urllib3.exceptions.NameResolutionError("api.linear.example", None, lookup) from lookup  # type: ignore[arg-type]
    except urllib3.exceptions.NameResolutionError as reason:
        error = requests.ConnectionError(urllib3.exceptions.MaxRetryError(None, "/graphql?token=x", reason))  # type: ignore[arg-type]
    failure = connection_failure(
        error, origin=Origin.of("https://api.linear.example/graphql"), service="Linear", timeouts=(3.05, 30)
    )
    assert failure.reason == "the host name api.linear.example does not resolve"
    assert failure.attempts == 1
    assert "this machine's DNS" in failure.hint


def test_a_tls_handshake_with_a_plain_http_port_fails_once_naming_the_host(server: FakeServer) -> None:
    port = server.url.rsplit(":", 1)[1]
    client = _client(f"https://127.0.0.1:{port}", sleeps=[])
    with pytest.raises(UnreachableError) as raised:
        client.get_json("/graphql", what="issue OPS-1")
    assert f"the TLS handshake with 127.0.0.1:{port} failed" in raised.value.message
    assert "REQUESTS_CA_BUNDLE" in raised.value.hint
    assert server.requests == []  # no retry, and nothing readable reached the server


def test_errors_name_the_host_never_the_users_password_or_the_query() -> None:
    with refused_url() as url:
        secret_url = url.replace("http://", "http://robot:Pa55word@") + "/api?token=QuerySecret"
        with pytest.raises(UnreachableError) as raised:
            _client(secret_url, sleeps=[]).get_json("?token=QuerySecret", what="issue OPS-1")
    shown = f"{raised.value.message} {raised.value.hint} {raised.value.host}"
    assert "127.0.0.1:" in shown and "Pa55word" not in shown and "robot" not in shown
    assert "QuerySecret" not in shown


# --- Credentials go only to the origin they were given for ----------------------------------------------


def _pages(first: FakeServer, next_url: str) -> None:
    first.route(
        "GET",
        r"/repos/o/r/issues/1/comments",
        lambda _: Reply.json(
            [{"id": 1, "body": "page one", "html_url": "", "user": {"login": "a"}}],
            headers={"Link": f'<{next_url}>; rel="next"'},
        ),
    )


def _page_two(request: Request) -> Reply:
    return Reply.json([{"id": 2, "body": "page two", "html_url": "", "user": {"login": "b"}}])


def test_a_next_link_to_another_origin_is_not_followed_with_the_token(server: FakeServer) -> None:
    with running() as elsewhere:
        elsewhere.route("GET", r"/steal", _page_two)
        _pages(server, f"{elsewhere.url}/steal?page=2")
        client = GitHubClient(base_url=server.url, token=TOKEN)
        with pytest.raises(ServiceError) as raised:
            list(client.list_issue_comments("o/r", 1))
        seen_elsewhere = list(elsewhere.requests)
    assert seen_elsewhere == []  # not even without the token: a rewritten Link is refused
    port = elsewhere.url.rsplit(":", 1)[1]
    assert f"is on another origin (127.0.0.1:{port}, not 127.0.0.1:" in raised.value.message
    assert "token" in raised.value.message and TOKEN not in str(raised.value)
    assert "Link headers" in raised.value.hint


def test_a_next_link_on_the_same_origin_is_followed_with_the_token(server: FakeServer) -> None:
    server.route("GET", r"/page-two", _page_two)
    _pages(server, f"{server.url}/page-two?page=2")
    comments = list(GitHubClient(base_url=server.url, token=TOKEN).list_issue_comments("o/r", 1))
    assert [comment.body for comment in comments] == ["page one", "page two"]
    assert {request.headers.get("authorization") for request in server.requests} == {f"Bearer {TOKEN}"}


def test_a_redirect_to_another_port_arrives_without_the_token(server: FakeServer) -> None:
    with running() as elsewhere:
        elsewhere.route("GET", r"/moved", lambda _: Reply.json({"id": 7, "run_id": 1}))
        server.route(
            "GET", r"/.*", lambda _: Reply(status=302, headers={"Location": f"{elsewhere.url}/moved"})
        )
        HttpClient(base_url=server.url, service="GitHub", auth_header=f"Bearer {TOKEN}").get_json(
            "/repos/o/r", what="repository o/r"
        )
        [moved] = elsewhere.requests
    assert server.requests[0].headers["authorization"] == f"Bearer {TOKEN}"
    assert "authorization" not in moved.headers  # requests strips it when scheme, host or port change


def test_annotate_on_a_refused_tracker_fails_every_ticket_with_one_hint(
    nightly: Report, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    report = tmp_path / "report.json"
    report.write_text(render_json(nightly), encoding="utf-8")
    with refused_url() as url:
        monkeypatch.setenv("LINEAR_API_KEY", "lin_api_ReachabilityTestKey0123456789")
        monkeypatch.setenv("LINEAR_API_URL", f"{url}/graphql")
        started = time.monotonic()
        tickets = [argument for key in TICKETS for argument in ("--ticket", key)]
        result = CliRunner().invoke(main, ["annotate", str(report), *tickets], catch_exceptions=False)
        elapsed = time.monotonic() - started
    print(f"\nannotate, 20 tickets on a refused tracker (the CLI's own retry policy): {elapsed:.2f} s")
    assert result.exit_code == 4
    lines = result.stdout.splitlines()
    linear = [line for line in lines if line.startswith("OPS-")]
    assert len(linear) == len(TICKETS) + 1  # and OPS-4445, which the report links
    assert sum("refused the connection (tried 2 times)" in line for line in linear) == 1
    assert sum(": Linear was not asked for issue OPS-" in line for line in linear) == len(linear) - 1
    linear_hints = [line for line in lines if line.startswith("  hint: ") and "Linear URL" in line]
    assert len(linear_hints) == 1
    assert elapsed < HANG_GUARD
