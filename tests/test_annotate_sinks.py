"""Ticket sinks against real local servers: one contract for GitHub, Jira and Linear, then what each has alone.

Every sink adds the tool's comment once and edits it in place (found again on a later page of comments),
finds it after a lost answer or a crash instead of posting twice, never takes a person's quote of it for it,
retries a 5xx, waits out a short rate limit and fails on a long one, fails one ticket alone with a hint, never
shows a credential, sends no secret and nothing at all on a dry run. The fakes in tests/fakes/ are routed HTTP
servers on 127.0.0.1 answering as each service does (Linear's executes every query against Linear's schema).
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from dataclasses import replace
from typing import Any, ClassVar

import pytest
from graphql import parse, validate

from forensics.annotate import Action, AnnotateOptions, AnnotateResult, TicketOutcome, annotate_report
from forensics.errors import AuthenticationError, NotFoundError
from forensics.model import Report
from forensics.report.grouping import group_verdicts
from forensics.report.redact import Redactor
from forensics.rules.model import RuleSet
from forensics.services.http import RetryPolicy
from forensics.services.jira import JiraClient, adf_text
from forensics.services.linear import QUERIES, LinearClient, authorization_for
from forensics.sinks.base import Marker, Target, TicketSink
from forensics.sinks.github import GitHubCommentSink, split_reference
from forensics.sinks.jira import JiraCommentSink
from forensics.sinks.linear import LinearCommentSink, comment_id_for
from tests.fakes import github_comments, jira, linear
from tests.fakes.github_comments import running_github_comments
from tests.fakes.jira import adf_problems, running_jira
from tests.fakes.linear import FakeLinear, linear_schema, running_linear
from tests.fakes.server import Reply
from tests.support.nightly_report import RUN_ID, many_failures, sample_report, with_run

FAST = RetryPolicy(attempts=3, backoff=0.01, max_backoff=0.02, max_rate_limit_wait=2.0)
PEOPLE = (
    "Seen again on the nightly.",
    "Probably the GPU.",
    "Assigning to infra.",
)  # two per page: ours is 4th


# --- each service behind the questions the contract asks ------------------------------------------------


class Service:
    """One tracker: its fake, its sink, and what its answers look like."""

    system: ClassVar[str]
    key: ClassVar[str]  # the ticket the tests annotate; it holds PEOPLE's comments, served two per page
    missing: ClassVar[str]  # a ticket the service does not have
    missing_message: ClassVar[str]
    wrong_credential: ClassVar[str]
    credential_setting: ClassVar[str]  # the variable a refused credential's hint names
    writes_after_a_lost_answer: ClassVar[list[str]]  # the lost create found by its marker, or refused again
    max_body: ClassVar[int] = 0  # the most the service stores in one comment (GitHub and Jira refuse more)

    def __init__(self, fake: Any) -> None:
        self.fake = fake

    def annotate(
        self,
        report: Report,
        *,
        credential: str | None = None,
        tickets: tuple[str, ...] = (),
        redactor: Redactor | None = None,
        dry_run: bool = False,
    ) -> AnnotateResult:
        sink, close = self.connect(credential)
        try:
            return annotate_report(
                report,
                sinks={self.system: sink},
                extra_tickets=tickets,
                options=self.options(redactor or Redactor()),
                dry_run=dry_run,
            )
        finally:
            close()

    def outcome(self, result: AnnotateResult, key: str | None = None) -> TicketOutcome:
        return next(o for o in result.outcomes if o.target.key == (key or self.key))

    def ours(self) -> list[str]:
        """The text of each of the tool's comments on the ticket."""
        return [text for text in self.texts() if f"ci-forensics:v1 key={self.system}:{self.key} " in text]

    def later_page_read(self) -> bool:
        raise NotImplementedError

    # what differs: how to connect, where comments live, how faults are scripted
    def connect(self, credential: str | None) -> tuple[TicketSink, Any]:
        raise NotImplementedError

    def options(self, redactor: Redactor) -> AnnotateOptions:
        return AnnotateOptions(redactor=redactor)

    def texts(self) -> list[str]:
        raise NotImplementedError

    def writes(self) -> list[str]:
        """ "create" and "update", in the order they reached the service."""
        raise NotImplementedError

    def authorization(self) -> str:
        raise NotImplementedError

    def comment_url_is_the_comments(self, url: str) -> bool:
        raise NotImplementedError

    def protocol_problems(self) -> list[str]:
        """What the service would have refused to parse in what the tool sent (none, for a correct client)."""
        return []

    def quote_the_tools_comment(self, reply: bool) -> tuple[Any, Any]:
        """A person's quote-reply of the tool's (last) comment: its id and its stored body."""
        raise NotImplementedError

    def address(self) -> tuple[Any, ...]:
        """Where the ticket's comments live in the fake (its key; GitHub: repository and number)."""
        return (self.key,)

    def comment_ids(self) -> list[Any]:
        return [comment["id"] for comment in self.fake.comments_of(*self.address())]

    def stored_size(self) -> int:
        """The size of the tool's last comment as the service measures it."""
        raise NotImplementedError

    def body_of(self, comment_id: Any) -> Any:
        return next(c["body"] for c in self.fake.comments_of(*self.address()) if c["id"] == comment_id)

    def delete(self, comment_id: Any) -> None:
        self.fake.delete_comment(*self.address(), comment_id)

    def rate_limit_reads(self, seconds: int) -> None:
        raise NotImplementedError

    def rate_limit_long(self) -> None:
        """A rate limit that resets in 600 s: the ticket fails, nothing waits that long."""
        raise NotImplementedError


class GitHubService(Service):
    system = "github"
    key = "ai-dynamo/dynamo#8443"  # the pull request the sample's tests link
    missing = "ai-dynamo/dynamo#999999"
    missing_message = "GitHub has no such object"
    wrong_credential = "ghp_WrongTokenWrongTokenWrongToken0123456"
    credential_setting = "GITHUB_TOKEN"
    writes_after_a_lost_answer: ClassVar[list[str]] = ["create"]  # found it instead of posting again
    max_body = github_comments.MAX_BODY
    pr = ("ai-dynamo/dynamo", 8443)

    def stored_size(self) -> int:
        return len(self.fake.comments_of(*self.pr)[-1]["body"])

    def connect(self, credential: str | None) -> tuple[TicketSink, Any]:
        sink = GitHubCommentSink.connect(
            token=credential or github_comments.TOKEN, base_url=self.fake.url, timeout=5, retry=FAST
        )
        return sink, sink.close

    def texts(self) -> list[str]:
        return [comment["body"] for comment in self.fake.comments_of(*self.pr)]

    def writes(self) -> list[str]:
        return [{"POST": "create", "PATCH": "update"}[r.method] for r in self.fake.writes()]

    def later_page_read(self) -> bool:
        return "2" in [r.param("page", "1") for r in self.fake.server.requests if r.method == "GET"]

    def authorization(self) -> str:
        return f"Bearer {github_comments.TOKEN}"

    def comment_url_is_the_comments(self, url: str) -> bool:
        return url.startswith("https://github.com/ai-dynamo/dynamo/issues/8443#issuecomment-")

    def quote_the_tools_comment(self, reply: bool) -> tuple[Any, Any]:
        tool = self.fake.comments_of(*self.pr)[-1]
        shown = tool["body"].partition("\n")[
            2
        ]  # "Quote reply" copies what GitHub shows: not the HTML comment
        quote = "\n".join(f"> {line}".rstrip() for line in shown.splitlines())
        body = quote + ("\n\nStill failing on my branch, see above." if reply else "")
        human = self.fake.add_comment(*self.pr, body, login="octocat")
        marker = tool["body"].partition("<!-- ")[2].partition(" -->")[0]
        assert f"`{marker}`" in human["body"]  # the visible marker, quoted
        return human["id"], body

    def address(self) -> tuple[Any, ...]:
        return self.pr

    def rate_limit_reads(self, seconds: int) -> None:
        self.fake.fail_next(429, headers={"retry-after": str(seconds)})

    def rate_limit_long(self) -> None:
        self.fake.create_faults.append(
            Reply.json({"message": "API rate limit exceeded"}, 429, {"retry-after": "600"})
        )


class JiraService(Service):
    system = "jira"
    key = "INFRA-12"
    missing = "INFRA-404"
    missing_message = "Jira has no issue INFRA-404 (or this account cannot see it)"
    wrong_credential = "ATATT3xWrongWrongWrongWrongWrong0123456789"
    credential_setting = "JIRA_API_TOKEN"
    writes_after_a_lost_answer: ClassVar[list[str]] = ["create"]
    max_body = jira.MAX_BODY  # counted over the ADF document's JSON

    def stored_size(self) -> int:
        return len(json.dumps(self.fake.comments_of(self.key)[-1]["body"]))

    def annotate(self, report: Report, *, tickets: tuple[str, ...] = (), **given: Any) -> AnnotateResult:
        return super().annotate(report, tickets=tickets or (self.key,), **given)  # Jira is linked by key

    def connect(self, credential: str | None) -> tuple[TicketSink, Any]:
        client = JiraClient(
            base_url=self.fake.url,
            email=jira.EMAIL,
            api_token=credential or jira.API_TOKEN,
            timeout=5,
            retry=FAST,
        )
        return JiraCommentSink(client), client.close

    def options(self, redactor: Redactor) -> AnnotateOptions:
        return AnnotateOptions(
            jira_base_url=self.fake.url, jira_projects=frozenset({"INFRA", "PLAT"}), redactor=redactor
        )

    def texts(self) -> list[str]:
        return [adf_text(comment["body"]) for comment in self.fake.comments_of(self.key)]

    def writes(self) -> list[str]:
        return [{"POST": "create", "PUT": "update"}[r.method] for r in self.fake.writes()]

    def later_page_read(self) -> bool:  # startAt/maxResults pagination
        return "2" in [r.param("startAt") for r in self.fake.server.requests if r.method == "GET"]

    def authorization(self) -> str:
        return "Basic " + base64.b64encode(f"{jira.EMAIL}:{jira.API_TOKEN}".encode()).decode()

    def comment_url_is_the_comments(self, url: str) -> bool:
        return url.startswith(f"{self.fake.url}/browse/{self.key}?focusedCommentId=")

    def protocol_problems(self) -> list[str]:
        return [
            problem
            for comment in self.fake.comments_of(self.key)
            if "ci-forensics:v1" in adf_text(comment["body"])
            for problem in adf_problems(comment["body"])
        ]

    def quote_the_tools_comment(self, reply: bool) -> tuple[Any, Any]:
        tool = self.fake.comments_of(self.key)[-1]
        quotable = [
            node
            for node in tool["body"]["content"]
            if node["type"] in ("paragraph", "bulletList", "codeBlock")
        ]
        answer = [{"type": "paragraph", "content": [{"type": "text", "text": "Still failing, see above."}]}]
        document = {
            "type": "doc",
            "version": 1,
            "content": [{"type": "blockquote", "content": quotable}, *(answer if reply else [])],
        }
        human = self.fake.add_comment(self.key, json.loads(json.dumps(document)))
        assert f"ci-forensics:v1 key=jira:{self.key} " in adf_text(human["body"])  # the marker, quoted
        return human["id"], document

    def rate_limit_reads(self, seconds: int) -> None:
        self.fake.rate_limit_next(retry_after=seconds)

    def rate_limit_long(self) -> None:
        self.fake.create_faults.append(
            Reply(status=429, body="Rate limit exceeded.", headers={"Retry-After": "600"})
        )


class LinearService(Service):
    system = "linear"
    key = "OPS-4445"  # the issue the sample's tests link
    missing = "OPS-9999"
    missing_message = "Linear has no issue OPS-9999"
    wrong_credential = "lin_api_WrongWrongWrongWrongWrongWrong0123"
    credential_setting = "LINEAR_API_KEY"
    # the retry reuses the comment's id (derived from the marker) and Linear refuses it: no second comment
    writes_after_a_lost_answer: ClassVar[list[str]] = ["create", "create"]

    def connect(self, credential: str | None) -> tuple[TicketSink, Any]:
        client = LinearClient(
            api_key=credential or self.fake.api_key, base_url=self.fake.url, timeout=5, retry=FAST
        )
        return LinearCommentSink(client), client.close

    def texts(self) -> list[str]:
        return [comment["body"] for comment in self.fake.comments_of(self.key)]

    def writes(self) -> list[str]:
        return [{"commentCreate": "create", "commentUpdate": "update"}[name] for name in self.fake.writes()]

    def later_page_read(self) -> bool:  # a cursor after the first page
        return any(
            (r.json().get("variables") or {}).get("after") for r in self.fake.server.requests if r.body
        )

    def authorization(self) -> str:
        return linear.API_KEY  # a personal key goes in as it is

    def comment_url_is_the_comments(self, url: str) -> bool:
        return url in [comment["url"] for comment in self.fake.comments_of(self.key)]

    def protocol_problems(self) -> list[str]:
        return list(self.fake.invalid_queries)

    def quote_the_tools_comment(self, reply: bool) -> tuple[Any, Any]:
        tool = self.fake.comments_of(self.key)[-1]
        quote = "\n".join(f"> {line}".rstrip() for line in tool["body"].splitlines())
        body = quote + ("\n\nStill failing on our side, see above." if reply else "")
        human = self.fake.add_comment(self.key, body)
        assert (
            _linear_marker(human["body"]).digest == _linear_marker(tool["body"]).digest
        )  # the marker, quoted
        return human["id"], body

    def rate_limit_reads(self, seconds: int) -> None:
        self.fake.rate_limit_next(reset_in_ms=max(50, seconds * 1000))  # Linear: HTTP 400, reset in epoch ms

    def rate_limit_long(self) -> None:
        self.fake.rate_limit_next(reset_in_ms=600_000)


def _linear_marker(body: str) -> Marker:
    digest = Marker("linear:OPS-4445", "").digest_in(body)
    assert digest is not None
    return Marker("linear:OPS-4445", digest)


@pytest.fixture(params=["github", "jira", "linear"])
def service(request: pytest.FixtureRequest) -> Iterator[Service]:
    if request.param == "github":
        with running_github_comments(page_cap=2) as github:
            github.add_issue(*GitHubService.pr, comments=PEOPLE)
            yield GitHubService(github)
    elif request.param == "jira":
        with running_jira(page_cap=2) as fake_jira:
            fake_jira.add_issue(JiraService.key, comments=PEOPLE)
            yield JiraService(fake_jira)
    else:
        with running_linear(max_page_size=2) as fake_linear:
            fake_linear.add_issue(LinearService.key, comments=PEOPLE)
            yield LinearService(fake_linear)


REST = pytest.mark.parametrize(
    "service", ["github", "jira"], indirect=True
)  # creates refused or answered late


@pytest.fixture(scope="module")
def nightly(rule_pack: RuleSet) -> Report:
    return with_run(sample_report(rule_pack))


# --- the contract every sink keeps -----------------------------------------------------------------------


def test_create_then_leave_alone_then_edit_in_place_found_on_a_later_page(
    nightly: Report, service: Service
) -> None:
    created = service.outcome(service.annotate(nightly))
    assert created.action is Action.CREATED and service.comment_url_is_the_comments(created.comment_url)
    assert len(service.texts()) == 4 and "19.5 GiB was free" in service.ours()[0]

    assert service.outcome(service.annotate(nightly)).action is Action.UNCHANGED  # no edit, no notification
    next_night = with_run(nightly, run_id=RUN_ID + 1)
    assert service.outcome(service.annotate(next_night)).action is Action.UPDATED
    assert len(service.texts()) == 4 and len(service.ours()) == 1 and f"#{RUN_ID + 1}" in service.ours()[0]
    assert service.writes() == ["create", "update"]
    assert service.later_page_read()  # the tool's comment is the fourth: found on page 2
    assert service.protocol_problems() == []
    assert {r.headers["authorization"] for r in service.fake.server.requests} == {service.authorization()}


def test_an_answer_lost_after_the_write_leaves_one_comment(nightly: Report, service: Service) -> None:
    service.fake.drop_create_answers = 1  # the comment is saved, the connection drops before the answer
    outcome = service.outcome(service.annotate(nightly))
    assert outcome.action is Action.CREATED and outcome.comment_url
    assert len(service.ours()) == 1
    assert service.writes() == service.writes_after_a_lost_answer


def test_a_rerun_after_a_crash_between_create_and_record_edits_the_comment(
    nightly: Report, service: Service
) -> None:
    service.fake.drop_create_answers = (
        1  # written, answer lost, and the service unreachable until the run gives up
    )
    service.fake.outage_after_lost_answer = 10
    outcome = service.outcome(service.annotate(nightly))
    assert outcome.action is Action.FAILED and "503" in outcome.message
    service.fake.server.faults.clear()
    assert service.outcome(service.annotate(nightly)).action is Action.UNCHANGED
    assert service.outcome(service.annotate(with_run(nightly, run_id=RUN_ID + 1))).action is Action.UPDATED
    assert len(service.ours()) == 1


@pytest.mark.parametrize("reply", [False, True], ids=["quote", "quote+reply"])
def test_a_quote_reply_of_the_tools_deleted_comment_is_never_taken_for_it(
    nightly: Report, service: Service, reply: bool
) -> None:
    assert service.outcome(service.annotate(nightly)).action is Action.CREATED
    tool = service.comment_ids()[-1]
    human, body = service.quote_the_tools_comment(reply)
    service.delete(tool)

    assert service.outcome(service.annotate(with_run(nightly, run_id=RUN_ID + 1))).action is Action.CREATED
    assert service.body_of(human) == body  # the person's comment was never edited
    assert service.writes() == ["create", "create"]
    assert f"#{RUN_ID + 1}" in service.texts()[-1]


def test_a_500_on_reading_is_retried_and_a_lasting_one_fails_the_ticket(
    nightly: Report, service: Service
) -> None:
    service.fake.fail_next(500)
    assert service.outcome(service.annotate(nightly)).action is Action.CREATED
    service.fake.fail_next(502, times=3)
    outcome = service.outcome(service.annotate(with_run(nightly, run_id=RUN_ID + 1)))
    assert outcome.action is Action.FAILED and "502" in outcome.message


def test_a_rate_limit_on_reading_is_waited_out(nightly: Report, service: Service) -> None:
    service.rate_limit_reads(0)
    assert service.outcome(service.annotate(nightly)).action is Action.CREATED
    assert len(service.ours()) == 1


def test_a_long_rate_limit_fails_the_ticket_without_waiting(nightly: Report, service: Service) -> None:
    service.rate_limit_long()
    outcome = service.outcome(service.annotate(nightly))
    assert outcome.action is Action.FAILED
    assert "rate limit" in outcome.message.lower() and "600 s" in outcome.message
    assert service.ours() == [] and service.writes() in ([], ["create"])  # tried once at most, never resent


def test_a_missing_ticket_fails_alone_and_is_named(nightly: Report, service: Service) -> None:
    result = service.annotate(nightly, tickets=(service.key, service.missing))
    assert service.outcome(result).action is Action.CREATED
    missing = service.outcome(result, service.missing)
    assert missing.action is Action.FAILED and service.missing_message in missing.message and missing.hint


def test_a_refused_credential_fails_the_ticket_without_showing_it(nightly: Report, service: Service) -> None:
    outcome = service.outcome(service.annotate(nightly, credential=service.wrong_credential))
    assert outcome.action is Action.FAILED and "refused" in outcome.message
    assert service.credential_setting in outcome.hint
    assert service.wrong_credential not in outcome.message + outcome.hint


def test_no_secret_reaches_the_service(nightly: Report, service: Service) -> None:
    """A value the redactor holds is gone from everything sent: the comment shows it redacted."""
    secret = "plain-looking-value-9f8e7d"  # no known shape: only the redactor's exact value names it
    failing = {v.test.uuid for v in nightly.failing}
    verdicts = [
        replace(v, root_cause=replace(v.root_cause, summary=f"{v.root_cause.summary} (key {secret})"))
        if v.test.uuid in failing and v.root_cause is not None
        else v
        for v in nightly.verdicts
    ]
    report = replace(nightly, verdicts=tuple(verdicts), groups=group_verdicts(verdicts))
    outcome = service.outcome(service.annotate(report, redactor=Redactor(secrets=(secret,))))
    assert outcome.action is Action.CREATED
    assert "(key [REDACTED])" in service.ours()[0].replace("\\", "")  # Markdown escapes the brackets
    assert all(secret.encode() not in r.body for r in service.fake.server.requests)


def test_dry_run_sends_nothing(nightly: Report, service: Service) -> None:
    assert service.outcome(service.annotate(nightly, dry_run=True)).action is Action.PLANNED
    assert service.fake.server.requests == []


# --- GitHub and Jira: a create refused, or answered after the write ---------------------------------------


def _refuse_next_create(service: Service) -> None:
    if service.system == "github":  # GitHub's secondary rate limit: 403 with a Retry-After
        secondary = {"message": "You have exceeded a secondary rate limit. Please wait a few minutes."}
        service.fake.create_faults.append(Reply.json(secondary, status=403, headers={"retry-after": "0"}))
    else:
        service.fake.create_faults.append(
            Reply(status=429, body="Rate limit exceeded.", headers={"Retry-After": "0"})
        )


@REST
def test_a_rate_limited_create_wrote_nothing_and_is_sent_again(nightly: Report, service: Service) -> None:
    _refuse_next_create(service)
    assert service.outcome(service.annotate(nightly)).action is Action.CREATED
    assert service.writes() == ["create", "create"]
    assert len(service.ours()) == 1


@REST
@pytest.mark.parametrize("lost", ["502 after the write", "connection dropped after the write"])
def test_a_rate_limited_create_then_a_write_whose_answer_is_lost_leaves_one_comment(
    nightly: Report, service: Service, lost: str
) -> None:
    _refuse_next_create(service)
    if lost.startswith("502"):
        service.fake.answers_after_write.append(Reply(status=502, body="<html>502 Bad Gateway</html>"))
    else:
        service.fake.drop_create_answers = 1
    assert service.outcome(service.annotate(nightly)).action is Action.CREATED
    assert len(service.ours()) == 1
    # refused (nothing written), then written with the answer lost: found by its marker, never resent
    assert service.writes() == ["create", "create"]


@REST
def test_a_huge_report_fits_in_one_comment_under_the_services_limit(
    nightly: Report, service: Service
) -> None:
    report = many_failures(nightly, 900)  # the fakes refuse bodies over GitHub's 65,536 and Jira's 32,767
    outcome = service.outcome(service.annotate(report, tickets=(service.key,)))
    assert outcome.action is Action.CREATED
    [text] = service.ours()
    assert "more tests truncated" in text
    assert service.stored_size() <= service.max_body and service.protocol_problems() == []


# --- GitHub alone --------------------------------------------------------------------------------------


@pytest.fixture
def github() -> Iterator[GitHubService]:
    with running_github_comments(page_cap=2) as fake:
        fake.add_issue(*GitHubService.pr, comments=PEOPLE)
        yield GitHubService(fake)


def test_github_bare_issue_numbers_resolve_in_the_reports_repository(
    nightly: Report, github: GitHubService
) -> None:
    github.fake.add_issue("ai-dynamo/dynamo", 8466)
    result = github.annotate(nightly, tickets=("#8466",))
    assert github.outcome(result, "ai-dynamo/dynamo#8466").action is Action.CREATED
    assert len(github.fake.comments_of("ai-dynamo/dynamo", 8466)) == 1


def test_github_a_forbidden_repository_fails_alone_and_names_the_permission(
    nightly: Report, github: GitHubService
) -> None:
    github.fake.add_issue("acme/locked", 3)
    github.fake.read_only.add("acme/locked")
    result = github.annotate(nightly, tickets=("acme/locked#3",))
    assert github.outcome(result).action is Action.CREATED
    locked = github.outcome(result, "acme/locked#3")
    assert locked.action is Action.FAILED and "forbids" in locked.message and "issues: write" in locked.hint


def test_github_the_tools_comment_is_the_bots_with_the_marker_hidden_at_the_top(
    nightly: Report, github: GitHubService
) -> None:
    assert github.outcome(github.annotate(nightly)).action is Action.CREATED
    [ours] = [c for c in github.fake.comments_of(*github.pr) if c["body"].startswith("<!-- ci-forensics:v1 ")]
    assert ours["user"]["login"] == "github-actions[bot]"


def test_github_references_split_into_repository_and_number() -> None:
    assert split_reference("ai-dynamo/dynamo#8443") == ("ai-dynamo/dynamo", 8443)


# --- Jira alone ----------------------------------------------------------------------------------------


@pytest.fixture
def jira_service() -> Iterator[JiraService]:
    with running_jira(page_cap=2) as fake:
        fake.add_issue(JiraService.key, comments=PEOPLE)
        yield JiraService(fake)


def test_jira_bare_keys_of_a_jira_project_go_to_jira(nightly: Report, jira_service: JiraService) -> None:
    jira_service.fake.add_issue("PLAT-7")
    result = jira_service.annotate(nightly, tickets=("PLAT-7", f"{jira_service.fake.url}/browse/INFRA-12"))
    assert jira_service.outcome(result, "PLAT-7").action is Action.CREATED
    assert jira_service.outcome(result).action is Action.CREATED


def test_jira_a_500_on_the_create_is_checked_then_sent_once_more(
    nightly: Report, jira_service: JiraService
) -> None:
    jira_service.fake.create_faults.append(
        Reply.json({"errorMessages": ["Internal server error"], "errors": {}}, status=500)
    )
    assert jira_service.outcome(jira_service.annotate(nightly)).action is Action.CREATED
    assert jira_service.writes() == ["create", "create"]
    assert len(jira_service.ours()) == 1


def test_jira_refusals_name_the_issue_the_permission_and_the_settings_to_check(
    nightly: Report, jira_service: JiraService
) -> None:
    jira_service.fake.add_issue("PLAT-9")
    jira_service.fake.forbidden.add("PLAT-9")
    result = jira_service.annotate(nightly, tickets=("INFRA-12", "INFRA-404", "PLAT-9"))
    assert jira_service.outcome(result).action is Action.CREATED
    missing = jira_service.outcome(result, "INFRA-404")
    assert missing.message == "Jira has no issue INFRA-404 (or this account cannot see it)"
    assert missing.hint == (
        'check the issue key and JIRA_BASE_URL, and that the account (JIRA_EMAIL) has "Browse projects" '
        "on project INFRA"
    )
    refused = jira_service.outcome(result, "PLAT-9")
    assert refused.action is Action.FAILED
    assert refused.message == (
        "Jira forbids a new comment on issue PLAT-9: You do not have the permission to comment on this issue."
    )
    assert refused.hint == (
        'the Jira account (JIRA_EMAIL) lacks the "Add comments" permission on project PLAT: '
        "ask a Jira admin to grant it, or use an account that has it"
    )

    wrong = jira_service.outcome(jira_service.annotate(nightly, credential=JiraService.wrong_credential))
    assert wrong.message == (
        "Jira refused the credentials for the comments of issue INFRA-12: "
        "You are not authenticated. Authentication required to perform this operation."
    )
    assert wrong.hint == (
        "check JIRA_EMAIL and JIRA_API_TOKEN: the API token is missing, expired or revoked, "
        "or belongs to another account than the email"
    )
    for outcome in (missing, refused, wrong):
        assert "repository" not in outcome.hint and "GitHub" not in outcome.message + outcome.hint


def test_jira_a_comment_deleted_before_its_edit_is_named(jira_service: JiraService) -> None:
    client = JiraClient(
        base_url=jira_service.fake.url, email=jira.EMAIL, api_token=jira.API_TOKEN, timeout=5, retry=FAST
    )
    document = {
        "type": "doc",
        "version": 1,
        "content": [{"type": "paragraph", "content": [{"type": "text", "text": "x"}]}],
    }
    with pytest.raises(NotFoundError) as caught:
        client.update_comment("INFRA-12", "99999", document)
    client.close()
    assert (
        caught.value.message == "Jira has no comment 99999 on issue INFRA-12 (or this account cannot see it)"
    )
    assert "next run posts a new one" in caught.value.hint


# --- Linear alone --------------------------------------------------------------------------------------


@pytest.fixture
def fake_linear() -> Iterator[FakeLinear]:
    with running_linear() as fake:
        fake.add_issue("OPS-4445", comments=PEOPLE)
        yield fake


@pytest.mark.parametrize("query", QUERIES, ids=["issue-comments", "comment-create", "comment-update"])
def test_linear_every_query_the_client_sends_validates_against_linears_public_schema(query: str) -> None:
    assert validate(linear_schema(), parse(query)) == []


def test_linear_a_personal_key_goes_in_authorization_without_bearer_and_an_oauth_token_with_it() -> None:
    assert authorization_for("lin_api_abc") == "lin_api_abc"
    assert authorization_for("lin_oauth_abc") == "Bearer lin_oauth_abc"


def test_linear_the_comment_id_is_derived_from_marker_and_content(
    nightly: Report, fake_linear: FakeLinear
) -> None:
    service = LinearService(fake_linear)
    assert service.outcome(service.annotate(nightly)).action is Action.CREATED
    tool = fake_linear.comments_of("OPS-4445")[-1]
    assert tool["id"] == comment_id_for(_linear_marker(tool["body"]))
    first = comment_id_for(Marker("linear:OPS-1", "0" * 16))
    assert first == comment_id_for(Marker("linear:OPS-1", "0" * 16))
    assert first != comment_id_for(Marker("linear:OPS-1", "1" * 16))
    assert first != comment_id_for(Marker("linear:OPS-2", "0" * 16))


def test_linear_a_wrong_endpoint_names_the_setting_to_check(fake_linear: FakeLinear) -> None:
    client = LinearClient(
        api_key=fake_linear.api_key, base_url=f"{fake_linear.server.url}/v1/graphql", retry=FAST
    )
    with pytest.raises(NotFoundError) as caught:
        client.issue_with_comments("OPS-4445")
    client.close()
    assert caught.value.message == "Linear has no GraphQL endpoint at /v1/graphql (asked for issue OPS-4445)"
    assert caught.value.hint == "check LINEAR_API_URL: it should be https://api.linear.app/graphql, or unset"


def test_linear_a_missing_issue_hint_names_the_identifier(nightly: Report, fake_linear: FakeLinear) -> None:
    result = LinearService(fake_linear).annotate(nightly, tickets=("OPS-9999", "DYN-1"))
    outcomes = {o.target.key: o for o in result.outcomes if o.target.system == "linear"}
    assert outcomes["OPS-4445"].action is Action.CREATED
    for key in ("OPS-9999", "DYN-1"):
        assert outcomes[key].action is Action.FAILED
        assert outcomes[key].message.startswith(f"Linear has no issue {key}")
        assert "identifier" in outcomes[key].hint


def test_linear_a_rate_limit_in_an_http_400_is_announced_while_waited_out(
    nightly: Report, fake_linear: FakeLinear
) -> None:
    fake_linear.rate_limit_next(reset_in_ms=50)
    messages: list[str] = []
    client = LinearClient(
        api_key=fake_linear.api_key, base_url=fake_linear.url, timeout=5, retry=FAST, notify=messages.append
    )
    result = annotate_report(nightly, sinks={"linear": LinearCommentSink(client)})
    client.close()
    assert LinearService(fake_linear).outcome(result).action is Action.CREATED
    assert any("Linear rate limit" in message for message in messages)


def test_linear_graphql_errors_become_service_errors(fake_linear: FakeLinear) -> None:
    client = LinearClient(api_key=fake_linear.api_key, base_url=fake_linear.url, retry=FAST)
    with pytest.raises(NotFoundError, match="Linear has no issue NOPE-1"):
        client.issue_with_comments("NOPE-1")
    with pytest.raises(NotFoundError, match="Could not find referenced Comment"):
        client.update_comment("00000000-0000-4000-8000-000000000000", "x")
    client.close()
    bearer = LinearClient(api_key="Bearer " + fake_linear.api_key, base_url=fake_linear.url, retry=FAST)
    with pytest.raises(AuthenticationError, match="Linear refused the API key") as caught:
        bearer.issue_with_comments("OPS-4445")
    bearer.close()
    assert fake_linear.api_key not in str(caught.value) and fake_linear.api_key not in caught.value.hint
    assert fake_linear.api_key not in repr(bearer)


def test_linear_the_sink_finds_only_its_own_key(fake_linear: FakeLinear) -> None:
    fake_linear.add_issue("OPS-1", comments=("ci-forensics:v1 key=linear:OPS-12 digest=0123456789abcdef",))
    client = LinearClient(api_key=fake_linear.api_key, base_url=fake_linear.url, retry=FAST)
    sink = LinearCommentSink(client)
    assert sink.find_comment(Target("linear", "OPS-1"), Marker("linear:OPS-1", "f" * 16)) is None
    found = sink.find_comment(Target("linear", "OPS-1"), Marker("linear:OPS-12", "f" * 16))
    client.close()
    assert found is not None and found.text.startswith("ci-forensics:v1")
