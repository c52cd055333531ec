"""The outcome of `annotate` rendered: pure functions of an AnnotateResult, compared with exact output."""

from __future__ import annotations

import json

from forensics.annotate import Action, AnnotateResult, TicketOutcome
from forensics.cli import annotate as annotate_cli
from forensics.model import Problem
from forensics.render.annotation import render_result, result_to_dict
from forensics.sinks.base import CommentBody, Marker, Target

LINEAR = Target("linear", "OPS-4445", "https://linear.app/nvidia/issue/OPS-4445")
GITHUB = Target("github", "ai-dynamo/dynamo#8443", "https://github.com/ai-dynamo/dynamo/pull/8443")
JIRA = Target("jira", "INFRA-12", "https://acme.atlassian.net/browse/INFRA-12")
ADF = {
    "type": "doc",
    "version": 1,
    "content": [{"type": "paragraph", "content": [{"type": "text", "text": "hi"}]}],
}


def _body(target: Target, text: str, body_format: str = "markdown") -> CommentBody:
    return CommentBody(Marker(f"{target.system}:{target.key}", "0123456789abcdef"), body_format, text)


def _result(*, dry_run: bool) -> AnnotateResult:
    action = Action.PLANNED if dry_run else None
    return AnnotateResult(
        outcomes=(
            TicketOutcome(
                LINEAR,
                action or Action.CREATED,
                3,
                _body(LINEAR, "### ci-forensics\n"),
                comment_url="https://linear.app/nvidia/issue/OPS-4445#comment-1a2b3c4d",
            ),
            TicketOutcome(
                JIRA,
                action or Action.FAILED,
                1,
                _body(JIRA, json.dumps(ADF), "adf"),
                message="Jira has no issue INFRA-12 (or this account cannot see it)",
                hint="check the issue key and JIRA_BASE_URL",
            ),
        ),
        problems=(Problem("#12", "names no repository", hint="pass --repo owner/name", severity="error"),),
        quiet=(GITHUB,),
        dry_run=dry_run,
    )


def test_one_line_per_ticket_with_hints_problems_and_the_tally() -> None:
    assert render_result(_result(dry_run=False)) == (
        "OPS-4445 (linear): created (3 failing tests) https://linear.app/nvidia/issue/OPS-4445#comment-1a2b3c4d\n"
        "INFRA-12 (jira): failed (1 failing test): Jira has no issue INFRA-12 (or this account cannot see it)\n"
        "  hint: check the issue key and JIRA_BASE_URL\n"
        "problem: #12: names no repository\n"
        "  hint: pass --repo owner/name\n"
        "not annotated (no failing test links to them): ai-dynamo/dynamo#8443 (github)\n"
        "1 of 2 tickets annotated\n"
    )


def test_a_dry_run_shows_each_body_exactly_as_it_would_be_posted() -> None:
    assert render_result(_result(dry_run=True)) == (
        "=== OPS-4445 (linear): would post (3 failing tests) ===\n"
        "### ci-forensics\n"
        "\n"
        "=== INFRA-12 (jira): would post (1 failing test) ===\n"
        f"{json.dumps(ADF, indent=2)}\n"
        "\n"
        "problem: #12: names no repository\n"
        "  hint: pass --repo owner/name\n"
        "not annotated (no failing test links to them): ai-dynamo/dynamo#8443 (github)\n"
    )


def test_nothing_to_annotate_says_so() -> None:
    empty = AnnotateResult(outcomes=(), problems=(), quiet=(), dry_run=False)
    assert render_result(empty) == "no ticket is linked to a failing test: nothing to annotate\n"


def test_the_json_form_carries_every_outcome_with_its_body() -> None:
    document = result_to_dict(_result(dry_run=False))
    assert document["dry_run"] is False
    assert document["tickets"][1] == {
        "system": "jira",
        "key": "INFRA-12",
        "url": "https://acme.atlassian.net/browse/INFRA-12",
        "action": "failed",
        "tests": 1,
        "comment_url": "",
        "message": "Jira has no issue INFRA-12 (or this account cannot see it)",
        "hint": "check the issue key and JIRA_BASE_URL",
        "marker": "ci-forensics:v1 key=jira:INFRA-12 digest=0123456789abcdef",
        "format": "adf",
        "body": ADF,
    }
    assert document["tickets"][0]["body"] == "### ci-forensics\n"
    assert document["problems"] == [
        {
            "object": "#12",
            "message": "names no repository",
            "hint": "pass --repo owner/name",
            "severity": "error",
        }
    ]
    assert document["not_annotated"] == [
        {
            "system": "github",
            "key": "ai-dynamo/dynamo#8443",
            "url": "https://github.com/ai-dynamo/dynamo/pull/8443",
        }
    ]
    json.dumps(document)  # plain JSON all the way down


def test_the_cli_prints_the_renderers_of_forensics_render() -> None:
    # `fetch --annotate` imports render_result from the CLI module: it must stay the same function
    assert annotate_cli.render_result is render_result
    assert annotate_cli.result_to_dict is result_to_dict
