"""Linear: every query validates against the public schema; comments are created once and edited in place.

All traffic goes to a local fake that executes each query with graphql-core against Linear's real schema.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from graphql import parse, validate

from forensics.annotate import Action, annotate_report
from forensics.errors import AuthenticationError, NotFoundError
from forensics.model import Report
from forensics.rules.model import RuleSet
from forensics.services.http import RetryPolicy
from forensics.services.linear import QUERIES, LinearClient, authorization_for
from forensics.sinks.base import Marker, Target
from forensics.sinks.linear import LinearCommentSink, comment_id_for
from tests.fakes.linear import API_KEY, FakeLinear, linear_schema, running_linear
from tests.test_annotate import RUN_ID, sample_report, with_run

FAST = RetryPolicy(attempts=3, backoff=0.01, max_backoff=0.02, max_rate_limit_wait=2.0)


@pytest.fixture
def linear() -> Iterator[FakeLinear]:
    with running_linear() as fake:
        fake.add_issue("OPS-4445", comments=("Seen again on the nightly.", "Assigning to infra."))
        yield fake


@pytest.fixture(scope="module")
def nightly(rule_pack: RuleSet) -> Report:
    return with_run(sample_report(rule_pack))


def _annotate(
    report: Report,
    fake: FakeLinear,
    *,
    retry: RetryPolicy = FAST,
    messages: list[str] | None = None,
    **options: object,
) -> tuple[Action, str, str]:
    client = LinearClient(
        api_key=fake.api_key,
        base_url=fake.url,
        timeout=5,
        retry=retry,
        notify=messages.append if messages is not None else None,
    )
    try:
        result = annotate_report(report, sinks={"linear": LinearCommentSink(client)}, **options)  # type: ignore[arg-type]
    finally:
        client.close()
    [outcome] = [o for o in result.outcomes if o.target.system == "linear"]
    return outcome.action, outcome.comment_url, outcome.message


@pytest.mark.parametrize("query", QUERIES, ids=["issue-comments", "comment-create", "comment-update"])
def test_every_query_the_client_sends_validates_against_linears_public_schema(query: str) -> None:
    assert validate(linear_schema(), parse(query)) == []


def test_a_personal_key_goes_in_authorization_without_bearer_and_an_oauth_token_with_it() -> None:
    assert authorization_for("lin_api_abc") == "lin_api_abc"
    assert authorization_for("lin_oauth_abc") == "Bearer lin_oauth_abc"


def test_create_then_edit_in_place_then_leave_alone(nightly: Report, linear: FakeLinear) -> None:
    action, url, _ = _annotate(nightly, linear)
    assert action is Action.CREATED
    comments = linear.comments_of("OPS-4445")
    assert len(comments) == 3 and url == comments[2]["url"]
    assert comments[2]["id"] == comment_id_for(_marker(comments[2]["body"]))
    assert "19.5 GiB was free" in comments[2]["body"]

    assert _annotate(nightly, linear)[0] is Action.UNCHANGED  # same report: no edit, no notification
    assert linear.writes() == ["commentCreate"]

    next_night = with_run(nightly, run_id=RUN_ID + 1)
    assert _annotate(next_night, linear)[0] is Action.UPDATED
    comments = linear.comments_of("OPS-4445")
    assert len(comments) == 3
    assert f"#{RUN_ID + 1}" in comments[2]["body"]
    assert linear.writes() == ["commentCreate", "commentUpdate"]
    assert linear.invalid_queries == []
    assert all(r.headers["authorization"] == API_KEY for r in linear.server.requests)


def _marker(body: str) -> Marker:
    digest = Marker("linear:OPS-4445", "").digest_in(body)
    assert digest is not None
    return Marker("linear:OPS-4445", digest)


def test_the_tools_comment_is_found_on_a_later_page_of_comments(nightly: Report, linear: FakeLinear) -> None:
    linear.max_page_size = 2
    assert _annotate(nightly, linear)[0] is Action.CREATED
    for index in range(5):
        linear._add_comment(
            linear.issues["OPS-4445"], f"00000000-0000-4000-8000-00000000000{index}", f"note {index}"
        )
    assert _annotate(with_run(nightly, run_id=RUN_ID + 1), linear)[0] is Action.UPDATED
    bodies = [c["body"] for c in linear.comments_of("OPS-4445")]
    assert len(bodies) == 8 and sum("ci-forensics:v1" in body for body in bodies) == 1
    assert linear.operations.count("issue") >= 4  # two runs, several pages each


def test_an_answer_lost_after_the_write_does_not_post_twice(nightly: Report, linear: FakeLinear) -> None:
    linear.drop_create_answers = 1  # Linear saves the comment, the connection drops before the answer
    action, url, _ = _annotate(nightly, linear)
    assert action is Action.CREATED and url
    ours = [c for c in linear.comments_of("OPS-4445") if "ci-forensics:v1" in c["body"]]
    assert len(ours) == 1
    assert linear.writes().count("commentCreate") == 2  # the retry reused the id and was refused


def test_a_rerun_after_a_crash_between_create_and_record_edits_the_comment(
    nightly: Report, linear: FakeLinear
) -> None:
    linear.drop_create_answers = 1  # written, answer lost, and Linear unreachable until the run gives up
    linear.outage_after_lost_answer = 10
    action, _, message = _annotate(nightly, linear)
    assert action is Action.FAILED and "HTTP 503" in message
    linear.server.faults.clear()
    assert _annotate(nightly, linear)[0] is Action.UNCHANGED
    assert _annotate(with_run(nightly, run_id=RUN_ID + 1), linear)[0] is Action.UPDATED
    assert sum("ci-forensics:v1" in c["body"] for c in linear.comments_of("OPS-4445")) == 1


@pytest.mark.parametrize(
    "reply", ["", "\n\nStill failing on our side, see above."], ids=["quote", "quote+reply"]
)
def test_a_quote_reply_of_the_tools_deleted_comment_is_never_taken_for_it(
    nightly: Report, linear: FakeLinear, reply: str
) -> None:
    assert _annotate(nightly, linear)[0] is Action.CREATED
    tool = linear.comments_of("OPS-4445")[-1]
    quote = "\n".join(f"> {line}".rstrip() for line in tool["body"].splitlines())
    human = linear.add_comment("OPS-4445", quote + reply)
    assert _marker(human["body"]).digest == _marker(tool["body"]).digest  # the marker, quoted
    linear.delete_comment("OPS-4445", tool["id"])

    assert _annotate(with_run(nightly, run_id=RUN_ID + 1), linear)[0] is Action.CREATED
    assert [c["body"] for c in linear.comments_of("OPS-4445") if c["id"] == human["id"]] == [quote + reply]
    assert linear.writes() == ["commentCreate", "commentCreate"]  # the person's comment was never edited
    assert f"#{RUN_ID + 1}" in linear.comments_of("OPS-4445")[-1]["body"]


def test_a_wrong_endpoint_names_the_setting_to_check(linear: FakeLinear) -> None:
    client = LinearClient(api_key=linear.api_key, base_url=f"{linear.server.url}/v1/graphql", retry=FAST)
    with pytest.raises(NotFoundError) as caught:
        client.issue_with_comments("OPS-4445")
    client.close()
    assert caught.value.message == "Linear has no GraphQL endpoint at /v1/graphql (asked for issue OPS-4445)"
    assert caught.value.hint == "check LINEAR_API_URL: it should be https://api.linear.app/graphql, or unset"


def test_a_missing_issue_fails_alone_and_names_the_issue(nightly: Report, linear: FakeLinear) -> None:
    client = LinearClient(api_key=linear.api_key, base_url=linear.url, retry=FAST)
    result = annotate_report(
        nightly, sinks={"linear": LinearCommentSink(client)}, extra_tickets=["OPS-9999", "DYN-1"]
    )
    client.close()
    outcomes = {o.target.key: o for o in result.outcomes if o.target.system == "linear"}
    assert outcomes["OPS-4445"].action is Action.CREATED
    for key in ("OPS-9999", "DYN-1"):
        assert outcomes[key].action is Action.FAILED
        assert outcomes[key].message.startswith(f"Linear has no issue {key}")
        assert "identifier" in outcomes[key].hint


def test_a_rate_limit_in_an_http_400_is_waited_out(nightly: Report, linear: FakeLinear) -> None:
    linear.rate_limit_next(reset_in_ms=50)
    messages: list[str] = []
    assert _annotate(nightly, linear, messages=messages)[0] is Action.CREATED
    assert any("Linear rate limit" in message for message in messages)


def test_a_long_rate_limit_fails_the_ticket_with_a_hint(nightly: Report, linear: FakeLinear) -> None:
    linear.rate_limit_next(reset_in_ms=600_000)
    action, _, message = _annotate(nightly, linear)
    assert action is Action.FAILED
    assert "Linear rate limit reached" in message and "600 s" in message


def test_a_500_is_retried_and_a_lasting_one_fails_the_ticket(nightly: Report, linear: FakeLinear) -> None:
    linear.fail_next(500)
    assert _annotate(nightly, linear)[0] is Action.CREATED
    linear.fail_next(502, times=3)
    action, _, message = _annotate(with_run(nightly, run_id=RUN_ID + 1), linear)
    assert action is Action.FAILED and "HTTP 502" in message


def test_graphql_errors_become_service_errors(linear: FakeLinear) -> None:
    client = LinearClient(api_key=linear.api_key, base_url=linear.url, retry=FAST)
    with pytest.raises(NotFoundError, match="Linear has no issue NOPE-1"):
        client.issue_with_comments("NOPE-1")
    with pytest.raises(NotFoundError, match="Could not find referenced Comment"):
        client.update_comment("00000000-0000-4000-8000-000000000000", "x")
    client.close()
    bearer = LinearClient(api_key="Bearer " + linear.api_key, base_url=linear.url, retry=FAST)
    with pytest.raises(AuthenticationError, match="Linear refused the API key") as caught:
        bearer.issue_with_comments("OPS-4445")
    bearer.close()
    assert linear.api_key not in str(caught.value) and linear.api_key not in caught.value.hint
    assert linear.api_key not in repr(bearer)


def test_the_sink_finds_only_its_own_key(linear: FakeLinear) -> None:
    linear.add_issue("OPS-1", comments=("ci-forensics:v1 key=linear:OPS-12 digest=0123456789abcdef",))
    client = LinearClient(api_key=linear.api_key, base_url=linear.url, retry=FAST)
    sink = LinearCommentSink(client)
    assert sink.find_comment(Target("linear", "OPS-1"), Marker("linear:OPS-1", "f" * 16)) is None
    found = sink.find_comment(Target("linear", "OPS-1"), Marker("linear:OPS-12", "f" * 16))
    client.close()
    assert found is not None and found.text.startswith("ci-forensics:v1")


def test_dry_run_sends_nothing(nightly: Report, linear: FakeLinear) -> None:
    client = LinearClient(api_key=linear.api_key, base_url=linear.url)
    result = annotate_report(nightly, sinks={"linear": LinearCommentSink(client)}, dry_run=True)
    client.close()
    assert {o.action for o in result.outcomes} == {Action.PLANNED}
    assert linear.server.requests == []


def test_the_comment_id_is_derived_from_marker_and_content() -> None:
    first = comment_id_for(Marker("linear:OPS-1", "0" * 16))
    assert first == comment_id_for(Marker("linear:OPS-1", "0" * 16))
    assert first != comment_id_for(Marker("linear:OPS-1", "1" * 16))
    assert first != comment_id_for(Marker("linear:OPS-2", "0" * 16))
