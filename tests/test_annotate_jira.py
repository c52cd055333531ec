"""Jira Cloud: ADF comments found by the marker in their text, added once and edited in place."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator

import pytest

from forensics.annotate import Action, AnnotateOptions, AnnotateResult, TicketOutcome, annotate_report
from forensics.errors import NotFoundError
from forensics.model import Report
from forensics.rules.model import RuleSet
from forensics.services.http import RetryPolicy
from forensics.services.jira import JiraClient, adf_text
from forensics.sinks.jira import JiraCommentSink
from tests.fakes.jira import API_TOKEN, EMAIL, MAX_BODY, FakeJira, adf_problems, running_jira
from tests.fakes.server import Reply
from tests.test_annotate import RUN_ID, many_failures, sample_report, with_run

FAST = RetryPolicy(attempts=3, backoff=0.01, max_backoff=0.02, max_rate_limit_wait=2.0)
KEY = "INFRA-12"


@pytest.fixture
def jira() -> Iterator[FakeJira]:
    with running_jira(page_cap=2) as fake:
        fake.add_issue(KEY, comments=("first look", "probably the GPU", "assigning"))
        yield fake


@pytest.fixture(scope="module")
def nightly(rule_pack: RuleSet) -> Report:
    return with_run(sample_report(rule_pack))


def _annotate(
    report: Report,
    fake: FakeJira,
    *,
    tickets: tuple[str, ...] = (KEY,),
    api_token: str = API_TOKEN,
    **options: object,
) -> AnnotateResult:
    client = JiraClient(base_url=fake.url, email=EMAIL, api_token=api_token, timeout=5, retry=FAST)
    try:
        return annotate_report(
            report,
            sinks={"jira": JiraCommentSink(client)},
            extra_tickets=tickets,
            options=AnnotateOptions(jira_base_url=fake.url, jira_projects=frozenset({"INFRA", "PLAT"})),
            **options,  # type: ignore[arg-type]
        )
    finally:
        client.close()


def _outcome(result: AnnotateResult, key: str = KEY) -> tuple[Action, str, str]:
    outcome = next(o for o in result.outcomes if o.target.key == key)
    return outcome.action, outcome.comment_url, outcome.message


def _ours(fake: FakeJira, key: str = KEY) -> list[str]:
    texts = [adf_text(c["body"]) for c in fake.comments_of(key)]
    return [text for text in texts if f"ci-forensics:v1 key=jira:{key} " in text]


def test_add_then_edit_in_place_with_valid_adf_found_across_pages(nightly: Report, jira: FakeJira) -> None:
    action, url, _ = _outcome(_annotate(nightly, jira))
    assert action is Action.CREATED
    assert url.startswith(f"{jira.url}/browse/{KEY}?focusedCommentId=")
    posted = jira.comments_of(KEY)[-1]["body"]
    assert adf_problems(posted) == []
    assert "19.5 GiB was free" in adf_text(posted)

    assert _outcome(_annotate(nightly, jira))[0] is Action.UNCHANGED
    assert _outcome(_annotate(with_run(nightly, run_id=RUN_ID + 1), jira))[0] is Action.UPDATED
    assert len(jira.comments_of(KEY)) == 4 and len(_ours(jira)) == 1
    assert f"#{RUN_ID + 1}" in _ours(jira)[0]
    assert [r.method for r in jira.writes()] == ["POST", "PUT"]
    starts = [r.param("startAt") for r in jira.server.requests if r.method == "GET"]
    assert "2" in starts  # startAt/maxResults pagination followed
    expected = "Basic " + base64.b64encode(f"{EMAIL}:{API_TOKEN}".encode()).decode()
    assert all(r.headers["authorization"] == expected for r in jira.server.requests)


def test_bare_keys_of_a_jira_project_go_to_jira(nightly: Report, jira: FakeJira) -> None:
    jira.add_issue("PLAT-7")
    result = _annotate(nightly, jira, tickets=("PLAT-7", f"{jira.url}/browse/{KEY}"))
    assert _outcome(result, "PLAT-7")[0] is Action.CREATED
    assert _outcome(result)[0] is Action.CREATED


def test_an_answer_lost_after_the_write_leaves_one_comment(nightly: Report, jira: FakeJira) -> None:
    jira.drop_create_answers = 1
    assert _outcome(_annotate(nightly, jira))[0] is Action.CREATED
    assert len(_ours(jira)) == 1
    assert [r.method for r in jira.writes()] == ["POST"]


def test_a_rerun_after_a_crash_between_create_and_record_edits_the_comment(
    nightly: Report, jira: FakeJira
) -> None:
    jira.drop_create_answers = 1
    jira.outage_after_lost_answer = 10
    action, _, message = _outcome(_annotate(nightly, jira))
    assert action is Action.FAILED and "503" in message
    jira.server.faults.clear()
    assert _outcome(_annotate(with_run(nightly, run_id=RUN_ID + 1), jira))[0] is Action.UPDATED
    assert len(_ours(jira)) == 1


def test_a_500_on_the_create_is_checked_then_sent_once_more(nightly: Report, jira: FakeJira) -> None:
    jira.create_faults.append(
        Reply.json({"errorMessages": ["Internal server error"], "errors": {}}, status=500)
    )
    assert _outcome(_annotate(nightly, jira))[0] is Action.CREATED
    assert [r.method for r in jira.writes()] == ["POST", "POST"]
    assert len(_ours(jira)) == 1


def test_rate_limits_are_waited_out_on_reads_and_on_the_create(nightly: Report, jira: FakeJira) -> None:
    jira.rate_limit_next(retry_after=0)
    jira.create_faults.append(Reply(status=429, body="Rate limit exceeded.", headers={"Retry-After": "0"}))
    assert _outcome(_annotate(nightly, jira))[0] is Action.CREATED
    assert [r.method for r in jira.writes()] == ["POST", "POST"]
    assert len(_ours(jira)) == 1


@pytest.mark.parametrize("lost", ["502 after the write", "connection dropped after the write"])
def test_a_rate_limited_create_then_a_write_whose_answer_is_lost_leaves_one_comment(
    nightly: Report, jira: FakeJira, lost: str
) -> None:
    jira.create_faults.append(Reply(status=429, body="Rate limit exceeded.", headers={"Retry-After": "0"}))
    if lost.startswith("502"):
        jira.answers_after_write.append(Reply(status=502, body="<html>502 Bad Gateway</html>"))
    else:
        jira.drop_create_answers = 1
    assert _outcome(_annotate(nightly, jira))[0] is Action.CREATED
    assert len(_ours(jira)) == 1
    # refused (nothing written), then written with the answer lost: found by its marker, never resent
    assert [r.method for r in jira.writes()] == ["POST", "POST"]


@pytest.mark.parametrize("reply", [False, True], ids=["quote", "quote+reply"])
def test_a_quote_of_the_tools_deleted_comment_is_never_taken_for_it(
    nightly: Report, jira: FakeJira, reply: bool
) -> None:
    assert _outcome(_annotate(nightly, jira))[0] is Action.CREATED
    tool = jira.comments_of(KEY)[-1]
    quotable = [
        node for node in tool["body"]["content"] if node["type"] in ("paragraph", "bulletList", "codeBlock")
    ]
    answer = [{"type": "paragraph", "content": [{"type": "text", "text": "Still failing, see above."}]}]
    document = {
        "type": "doc",
        "version": 1,
        "content": [{"type": "blockquote", "content": quotable}, *(answer if reply else [])],
    }
    human = jira.add_comment(KEY, json.loads(json.dumps(document)))
    assert "ci-forensics:v1 key=jira:INFRA-12 " in adf_text(human["body"])  # the marker, quoted
    jira.delete_comment(KEY, tool["id"])

    assert _outcome(_annotate(with_run(nightly, run_id=RUN_ID + 1), jira))[0] is Action.CREATED
    assert [c["body"] for c in jira.comments_of(KEY) if c["id"] == human["id"]] == [document]
    assert [r.method for r in jira.writes()] == ["POST", "POST"]  # the person's comment was never edited
    assert f"#{RUN_ID + 1}" in adf_text(jira.comments_of(KEY)[-1]["body"])


def _outcomes(result: AnnotateResult) -> dict[str, TicketOutcome]:
    return {outcome.target.key: outcome for outcome in result.outcomes}


def test_refusals_name_the_issue_the_permission_and_the_settings_to_check(
    nightly: Report, jira: FakeJira
) -> None:
    jira.add_issue("PLAT-9")
    jira.forbidden.add("PLAT-9")
    outcomes = _outcomes(_annotate(nightly, jira, tickets=("INFRA-404", "PLAT-9")))
    missing = outcomes["INFRA-404"]
    assert missing.message == "Jira has no issue INFRA-404 (or this account cannot see it)"
    assert missing.hint == (
        'check the issue key and JIRA_BASE_URL, and that the account (JIRA_EMAIL) has "Browse projects" '
        "on project INFRA"
    )
    refused = outcomes["PLAT-9"]
    assert refused.message == (
        "Jira forbids a new comment on issue PLAT-9: You do not have the permission to comment on this issue."
    )
    assert refused.hint == (
        'the Jira account (JIRA_EMAIL) lacks the "Add comments" permission on project PLAT: '
        "ask a Jira admin to grant it, or use an account that has it"
    )

    wrong = _outcomes(_annotate(nightly, jira, api_token="ATATT3xWrongWrongWrongWrongWrong0123456789"))[KEY]
    assert wrong.message == (
        f"Jira refused the credentials for the comments of issue {KEY}: "
        "You are not authenticated. Authentication required to perform this operation."
    )
    assert wrong.hint == (
        "check JIRA_EMAIL and JIRA_API_TOKEN: the API token is missing, expired or revoked, "
        "or belongs to another account than the email"
    )
    for outcome in (missing, refused, wrong):
        assert "repository" not in outcome.hint and "GitHub" not in outcome.message + outcome.hint


def test_a_comment_deleted_before_its_edit_is_named(jira: FakeJira) -> None:
    client = JiraClient(base_url=jira.url, email=EMAIL, api_token=API_TOKEN, timeout=5, retry=FAST)
    document = {
        "type": "doc",
        "version": 1,
        "content": [{"type": "paragraph", "content": [{"type": "text", "text": "x"}]}],
    }
    with pytest.raises(NotFoundError) as caught:
        client.update_comment(KEY, "99999", document)
    client.close()
    assert caught.value.message == f"Jira has no comment 99999 on issue {KEY} (or this account cannot see it)"
    assert "next run posts a new one" in caught.value.hint


def test_a_missing_issue_and_a_refused_comment_fail_alone(nightly: Report, jira: FakeJira) -> None:
    jira.add_issue("PLAT-9")
    jira.forbidden.add("PLAT-9")
    result = _annotate(nightly, jira, tickets=(KEY, "INFRA-404", "PLAT-9"))
    assert _outcome(result)[0] is Action.CREATED
    missing = _outcome(result, "INFRA-404")
    assert missing[0] is Action.FAILED and "INFRA-404" in missing[2]
    refused = _outcome(result, "PLAT-9")
    assert refused[0] is Action.FAILED and "forbids" in refused[2]


def test_a_huge_report_fits_under_jiras_limit(nightly: Report, jira: FakeJira) -> None:
    report = many_failures(nightly, 900)
    assert _outcome(_annotate(report, jira))[0] is Action.CREATED  # the fake refuses bodies over 32,767
    [text] = _ours(jira)
    assert "more tests truncated" in text
    assert len(json.dumps(jira.comments_of(KEY)[-1]["body"])) <= MAX_BODY


def test_bad_credentials_fail_without_showing_the_token(nightly: Report, jira: FakeJira) -> None:
    wrong = "ATATT3xWrongWrongWrongWrongWrong0123456789"
    action, _, message = _outcome(_annotate(nightly, jira, api_token=wrong))
    assert action is Action.FAILED and "Jira refused the credentials" in message
    assert wrong not in message


def test_dry_run_sends_nothing(nightly: Report, jira: FakeJira) -> None:
    assert _outcome(_annotate(nightly, jira, dry_run=True))[0] is Action.PLANNED
    assert jira.server.requests == []
