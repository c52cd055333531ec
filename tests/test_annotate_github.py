"""GitHub issues and pull requests: one comment per ticket through the shared GitHubClient, never two."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from forensics.annotate import Action, AnnotateResult, annotate_report
from forensics.model import Report
from forensics.rules.model import RuleSet
from forensics.services.http import RetryPolicy
from forensics.sinks.github import GitHubCommentSink, split_reference
from tests.fakes.github_comments import MAX_BODY, TOKEN, FakeGitHubComments, running_github_comments
from tests.fakes.server import Reply
from tests.test_annotate import RUN_ID, many_failures, sample_report, with_run

FAST = RetryPolicy(attempts=3, backoff=0.01, max_backoff=0.02, max_rate_limit_wait=2.0)
PR = ("ai-dynamo/dynamo", 8443)


@pytest.fixture
def github() -> Iterator[FakeGitHubComments]:
    with running_github_comments(page_cap=2) as fake:
        fake.add_issue(*PR, comments=("LGTM", "Blocked on OPS-4445", "rebased"))
        yield fake


@pytest.fixture(scope="module")
def nightly(rule_pack: RuleSet) -> Report:
    return with_run(sample_report(rule_pack))


def _annotate(
    report: Report, fake: FakeGitHubComments, *, token: str = TOKEN, **options: object
) -> AnnotateResult:
    sink = GitHubCommentSink.connect(token=token, base_url=fake.url, timeout=5, retry=FAST)
    try:
        return annotate_report(report, sinks={"github": sink}, **options)  # type: ignore[arg-type]
    finally:
        sink.close()


def _outcome(result: AnnotateResult, key: str = "ai-dynamo/dynamo#8443") -> tuple[Action, str, str, str]:
    outcome = next(o for o in result.outcomes if o.target.key == key)
    return outcome.action, outcome.comment_url, outcome.message, outcome.hint


def _ours(fake: FakeGitHubComments) -> list[str]:
    return [
        c["body"]
        for c in fake.comments_of(*PR)
        if "<!-- ci-forensics:v1 key=github:ai-dynamo/dynamo#8443" in c["body"]
    ]


def test_create_on_the_pull_request_then_edit_in_place_across_pages(
    nightly: Report, github: FakeGitHubComments
) -> None:
    action, url, _, _ = _outcome(_annotate(nightly, github))
    assert action is Action.CREATED
    assert url.startswith("https://github.com/ai-dynamo/dynamo/issues/8443#issuecomment-")
    assert len(github.comments_of(*PR)) == 4  # after three comments: found on page 2 next time

    assert _outcome(_annotate(nightly, github))[0] is Action.UNCHANGED
    assert _outcome(_annotate(with_run(nightly, run_id=RUN_ID + 1), github))[0] is Action.UPDATED
    assert len(_ours(github)) == 1 and f"#{RUN_ID + 1}" in _ours(github)[0]
    assert [r.method for r in github.writes()] == ["POST", "PATCH"]
    pages = [r.param("page", "1") for r in github.server.requests if r.method == "GET"]
    assert "2" in pages  # Link pagination followed
    assert all(r.headers["authorization"] == f"Bearer {TOKEN}" for r in github.server.requests)


def test_bare_issue_numbers_resolve_in_the_reports_repository(
    nightly: Report, github: FakeGitHubComments
) -> None:
    github.add_issue("ai-dynamo/dynamo", 8466)
    result = _annotate(nightly, github, extra_tickets=["#8466"])
    assert _outcome(result, "ai-dynamo/dynamo#8466")[0] is Action.CREATED
    assert len(github.comments_of("ai-dynamo/dynamo", 8466)) == 1


def test_an_answer_lost_after_the_write_leaves_one_comment(
    nightly: Report, github: FakeGitHubComments
) -> None:
    github.drop_create_answers = 1
    action, url, _, _ = _outcome(_annotate(nightly, github))
    assert action is Action.CREATED and url
    assert len(_ours(github)) == 1
    assert [r.method for r in github.writes()] == ["POST"]  # found it instead of posting again


def test_a_rerun_after_a_crash_between_create_and_record_edits_the_comment(
    nightly: Report, github: FakeGitHubComments
) -> None:
    github.drop_create_answers = 1
    github.outage_after_lost_answer = 10
    action, _, message, _ = _outcome(_annotate(nightly, github))
    assert action is Action.FAILED and "HTTP 503" in message
    github.server.faults.clear()
    assert _outcome(_annotate(with_run(nightly, run_id=RUN_ID + 1), github))[0] is Action.UPDATED
    assert len(_ours(github)) == 1


def test_a_missing_issue_and_a_forbidden_repository_fail_alone(
    nightly: Report, github: FakeGitHubComments
) -> None:
    github.add_issue("acme/locked", 3)
    github.read_only.add("acme/locked")
    result = _annotate(nightly, github, extra_tickets=["ai-dynamo/dynamo#999999", "acme/locked#3"])
    assert _outcome(result)[0] is Action.CREATED
    missing = _outcome(result, "ai-dynamo/dynamo#999999")
    assert missing[0] is Action.FAILED and "GitHub has no such object" in missing[2]
    locked = _outcome(result, "acme/locked#3")
    assert locked[0] is Action.FAILED and "forbids" in locked[2] and "issues: write" in locked[3]


def test_a_rate_limit_on_reading_is_waited_out(nightly: Report, github: FakeGitHubComments) -> None:
    github.fail_next(429, headers={"retry-after": "0"})
    assert _outcome(_annotate(nightly, github))[0] is Action.CREATED
    assert len(_ours(github)) == 1


def test_a_rate_limited_create_wrote_nothing_and_is_sent_again(
    nightly: Report, github: FakeGitHubComments
) -> None:
    secondary = {"message": "You have exceeded a secondary rate limit. Please wait a few minutes."}
    github.create_faults.append(Reply.json(secondary, status=403, headers={"retry-after": "0"}))
    assert _outcome(_annotate(nightly, github))[0] is Action.CREATED
    assert [r.method for r in github.writes()] == ["POST", "POST"]
    assert len(_ours(github)) == 1


@pytest.mark.parametrize("lost", ["502 after the write", "connection dropped after the write"])
def test_a_rate_limited_create_then_a_write_whose_answer_is_lost_leaves_one_comment(
    nightly: Report, github: FakeGitHubComments, lost: str
) -> None:
    secondary = {"message": "You have exceeded a secondary rate limit. Please wait a few minutes."}
    github.create_faults.append(Reply.json(secondary, status=403, headers={"retry-after": "0"}))
    if lost.startswith("502"):
        github.answers_after_write.append(Reply.json({"message": "Bad Gateway"}, status=502))
    else:
        github.drop_create_answers = 1
    assert _outcome(_annotate(nightly, github))[0] is Action.CREATED
    assert len(_ours(github)) == 1
    # refused (nothing written), then written with the answer lost: found by its marker, never resent
    assert [r.method for r in github.writes()] == ["POST", "POST"]


def test_a_long_rate_limit_on_the_create_fails_the_ticket_without_waiting(
    nightly: Report, github: FakeGitHubComments
) -> None:
    github.create_faults.append(
        Reply.json({"message": "API rate limit exceeded"}, 429, {"retry-after": "600"})
    )
    action, _, message, _ = _outcome(_annotate(nightly, github))
    assert action is Action.FAILED and "rate limit" in message and "600 s" in message
    assert [r.method for r in github.writes()] == ["POST"] and _ours(github) == []


@pytest.mark.parametrize(
    "reply", ["", "\n\nStill failing on my branch, see above."], ids=["quote", "quote+reply"]
)
def test_a_quote_reply_of_the_tools_deleted_comment_is_never_taken_for_it(
    nightly: Report, github: FakeGitHubComments, reply: str
) -> None:
    assert _outcome(_annotate(nightly, github))[0] is Action.CREATED
    [tool] = [c for c in github.comments_of(*PR) if c["body"].startswith("<!-- ci-forensics:v1 ")]
    shown = tool["body"].partition("\n")[2]  # "Quote reply" copies what GitHub shows: not the HTML comment
    quote = "\n".join(f"> {line}".rstrip() for line in shown.splitlines())
    human = github.add_comment(*PR, quote + reply, login="octocat")
    assert f"`{_marker_text(tool['body'])}`" in human["body"]  # the visible marker, quoted
    github.delete_comment(*PR, tool["id"])

    assert _outcome(_annotate(with_run(nightly, run_id=RUN_ID + 1), github))[0] is Action.CREATED
    assert [c["body"] for c in github.comments_of(*PR) if c["id"] == human["id"]] == [quote + reply]
    assert [r.method for r in github.writes()] == ["POST", "POST"]  # the person's comment was never edited
    [ours] = [c for c in github.comments_of(*PR) if c["body"].startswith("<!-- ci-forensics:v1 ")]
    assert f"#{RUN_ID + 1}" in ours["body"] and ours["user"]["login"] == "github-actions[bot]"


def _marker_text(body: str) -> str:
    return body.partition("<!-- ")[2].partition(" -->")[0]


def test_a_500_on_reading_is_retried_and_a_lasting_one_fails_the_ticket(
    nightly: Report, github: FakeGitHubComments
) -> None:
    github.fail_next(500)
    assert _outcome(_annotate(nightly, github))[0] is Action.CREATED
    github.fail_next(502, times=3)
    action, _, message, _ = _outcome(_annotate(with_run(nightly, run_id=RUN_ID + 1), github))
    assert action is Action.FAILED and "502" in message


def test_a_huge_report_fits_in_one_comment(nightly: Report, github: FakeGitHubComments) -> None:
    report = many_failures(nightly, 900)
    result = _annotate(report, github, extra_tickets=["ai-dynamo/dynamo#8443"])
    assert _outcome(result)[0] is Action.CREATED  # the fake refuses bodies over 65,536 characters
    [body] = _ours(github)
    assert len(body) <= MAX_BODY and "more tests truncated" in body


def test_a_bad_token_fails_every_github_ticket_without_showing_it(
    nightly: Report, github: FakeGitHubComments
) -> None:
    wrong = "ghp_WrongTokenWrongTokenWrongToken0123456"
    action, _, message, hint = _outcome(_annotate(nightly, github, token=wrong))
    assert action is Action.FAILED and "refused" in message and "GITHUB_TOKEN" in hint
    assert wrong not in message + hint


def test_dry_run_sends_nothing(nightly: Report, github: FakeGitHubComments) -> None:
    result = _annotate(nightly, github, dry_run=True)
    assert _outcome(result)[0] is Action.PLANNED
    assert github.server.requests == []


def test_references_split_into_repository_and_number() -> None:
    assert split_reference("ai-dynamo/dynamo#8443") == ("ai-dynamo/dynamo", 8443)
