"""`ci-forensics annotate`: flags and environment in, one library call, one line per ticket, exit codes."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from forensics.cli.annotate import EXIT_TICKETS_FAILED
from forensics.cli.main import main
from forensics.model import Report
from forensics.render.json_report import render_json
from forensics.rules.model import RuleSet
from tests.fakes.github_comments import TOKEN as GITHUB_TOKEN
from tests.fakes.github_comments import FakeGitHubComments, running_github_comments
from tests.fakes.jira import API_TOKEN as JIRA_TOKEN
from tests.fakes.jira import EMAIL as JIRA_EMAIL
from tests.fakes.jira import running_jira
from tests.fakes.linear import API_KEY as LINEAR_KEY
from tests.fakes.linear import FakeLinear, running_linear
from tests.support.nightly_report import crafted_report, sample_report, with_run


@pytest.fixture
def linear() -> Iterator[FakeLinear]:
    with running_linear() as fake:
        fake.add_issue("OPS-4445")
        yield fake


@pytest.fixture
def github() -> Iterator[FakeGitHubComments]:
    with running_github_comments() as fake:
        fake.add_issue("ai-dynamo/dynamo", 8443)
        yield fake


@pytest.fixture(scope="module")
def nightly_json(rule_pack: RuleSet, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("reports") / "report.json"
    path.write_text(render_json(with_run(sample_report(rule_pack))))
    return path


def _save(report: Report, path: Path) -> Path:
    path.write_text(render_json(report))
    return path


def _run(*args: str) -> Result:
    return CliRunner().invoke(main, ["annotate", *args], catch_exceptions=False)


def _environment(monkeypatch: pytest.MonkeyPatch, linear: FakeLinear, github: FakeGitHubComments) -> None:
    monkeypatch.setenv("LINEAR_API_KEY", LINEAR_KEY)
    monkeypatch.setenv("LINEAR_API_URL", linear.url)
    monkeypatch.setenv("GITHUB_TOKEN", GITHUB_TOKEN)
    monkeypatch.setenv("GITHUB_API_URL", github.url)


def test_dry_run_prints_what_each_ticket_would_get_and_sends_nothing(
    nightly_json: Path, monkeypatch: pytest.MonkeyPatch, linear: FakeLinear, github: FakeGitHubComments
) -> None:
    _environment(monkeypatch, linear, github)
    result = _run(str(nightly_json), "--dry-run")
    assert result.exit_code == 0, result.output
    assert "=== OPS-4445 (linear): would post (3 failing tests) ===" in result.stdout
    assert "=== ai-dynamo/dynamo#8443 (github): would post (3 failing tests) ===" in result.stdout
    assert "<!-- ci-forensics:v1 key=github:ai-dynamo/dynamo#8443 digest=" in result.stdout
    assert "`ci-forensics:v1 key=linear:OPS-4445 digest=" in result.stdout
    assert "#### Root cause: GPU already in use" in result.stdout
    assert linear.server.requests == [] and github.server.requests == []


def test_posts_one_comment_per_ticket_and_leaves_it_alone_when_nothing_changed(
    nightly_json: Path, monkeypatch: pytest.MonkeyPatch, linear: FakeLinear, github: FakeGitHubComments
) -> None:
    _environment(monkeypatch, linear, github)
    first = _run(str(nightly_json))
    assert first.exit_code == 0, first.output
    lines = first.stdout.splitlines()
    assert lines[0].startswith(
        "OPS-4445 (linear): created (3 failing tests) https://linear.app/nvidia/issue/OPS-4445#"
    )
    assert lines[1].startswith(
        "ai-dynamo/dynamo#8443 (github): created (3 failing tests) https://github.com/ai-dynamo/dynamo/issues/8443#"
    )
    assert lines[-1] == "2 of 2 tickets annotated"
    again = _run(str(nightly_json))
    assert [line.split(" (")[1] for line in again.stdout.splitlines()[:2]] == [
        "linear): unchanged",
        "github): unchanged",
    ]
    assert len(linear.comments_of("OPS-4445")) == 1 and len(github.comments_of("ai-dynamo/dynamo", 8443)) == 1


def test_a_tracker_without_credentials_fails_its_tickets_naming_the_variable_and_exits_4(
    nightly_json: Path, monkeypatch: pytest.MonkeyPatch, linear: FakeLinear, github: FakeGitHubComments
) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", GITHUB_TOKEN)
    monkeypatch.setenv("GITHUB_API_URL", github.url)
    result = _run(str(nightly_json))
    assert result.exit_code == EXIT_TICKETS_FAILED == 4
    assert "OPS-4445 (linear): failed (3 failing tests): no Linear API key" in result.stdout
    assert "  hint: set LINEAR_API_KEY to a Linear API key" in result.stdout
    assert "ai-dynamo/dynamo#8443 (github): created" in result.stdout
    assert "1 of 2 tickets annotated" in result.stdout


def test_one_missing_ticket_fails_alone_and_the_output_says_why(
    nightly_json: Path, monkeypatch: pytest.MonkeyPatch, linear: FakeLinear, github: FakeGitHubComments
) -> None:
    _environment(monkeypatch, linear, github)
    result = _run(str(nightly_json), "--ticket", "OPS-9999", "--format", "json")
    assert result.exit_code == 4
    document = json.loads(result.stdout)
    by_key = {ticket["key"]: ticket for ticket in document["tickets"]}
    assert by_key["OPS-9999"]["action"] == "failed"
    assert by_key["OPS-9999"]["message"].startswith("Linear has no issue OPS-9999")
    assert by_key["OPS-9999"]["tests"] == 7  # --ticket takes every failure of the report
    assert by_key["OPS-4445"]["action"] == "created"
    assert by_key["OPS-4445"]["comment_url"].startswith("https://linear.app/nvidia/issue/OPS-4445#")
    assert by_key["OPS-4445"]["marker"].startswith("ci-forensics:v1 key=linear:OPS-4445 digest=")
    assert document["dry_run"] is False and document["problems"] == []


def test_jira_from_the_environment_with_adf_in_the_json_output(
    nightly_json: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with running_jira() as jira:
        jira.add_issue("INFRA-12")
        monkeypatch.setenv("JIRA_BASE_URL", jira.url)
        monkeypatch.setenv("JIRA_EMAIL", JIRA_EMAIL)
        monkeypatch.setenv("JIRA_API_TOKEN", JIRA_TOKEN)
        monkeypatch.setenv("JIRA_PROJECTS", "INFRA, PLAT")
        result = _run(str(nightly_json), "--ticket", "INFRA-12", "--format", "json")
        assert len(jira.comments_of("INFRA-12")) == 1
    document = json.loads(result.stdout)
    jira_ticket = next(ticket for ticket in document["tickets"] if ticket["system"] == "jira")
    assert jira_ticket["action"] == "created" and jira_ticket["format"] == "adf"
    assert jira_ticket["body"]["type"] == "doc"
    assert result.exit_code == 4  # Linear and GitHub have no credentials here


def test_unresolved_references_are_problems_and_strict_makes_them_fail(
    tmp_path: Path, rule_pack: RuleSet
) -> None:
    report = _save(crafted_report(tmp_path, rule_pack, []), tmp_path / "local.json")
    relaxed = _run(str(report), "--ticket", "#12", "--dry-run")
    assert relaxed.exit_code == 0
    assert "problem: #12: names no repository" in relaxed.stdout
    assert "hint: pass --repo owner/name" in relaxed.stdout
    assert _run(str(report), "--ticket", "#12", "--dry-run", "--strict").exit_code == 4
    resolved = _run(str(report), "--ticket", "#12", "--dry-run", "--repo", "acme/tools")
    assert "=== acme/tools#12 (github): would post (1 failing test) ===" in resolved.stdout


def test_nothing_to_annotate_says_so(tmp_path: Path, rule_pack: RuleSet) -> None:
    report = _save(crafted_report(tmp_path, rule_pack, []), tmp_path / "local.json")
    result = _run(str(report))
    assert result.exit_code == 0
    assert result.stdout == "no ticket is linked to a failing test: nothing to annotate\n"


def test_environment_secrets_and_mentions_in_logs_never_reach_the_ticket(
    tmp_path: Path,
    rule_pack: RuleSet,
    monkeypatch: pytest.MonkeyPatch,
    linear: FakeLinear,
    github: FakeGitHubComments,
) -> None:
    deploy_key = "d3pl0y-k3y-value-4711"
    signing_secret = "s1gning-s3cret-0815"
    lines = [
        f"[BASH] using {deploy_key} for upload",
        f"[BASH] hmac {signing_secret} @oncall-team",
        "[BASH] @someone",
    ]
    report = _save(crafted_report(tmp_path, rule_pack, lines), tmp_path / "report.json")
    _environment(monkeypatch, linear, github)
    monkeypatch.setenv("DEPLOY_KEY", deploy_key)  # named KEY, not API_KEY: the report redactor lets it by
    monkeypatch.setenv("SIGNING_SECRET", signing_secret)
    assert deploy_key in report.read_text()  # the report was saved without knowing these
    result = _run(str(report), "--ticket", "OPS-4445")
    assert result.exit_code == 0, result.output
    [comment] = linear.comments_of("OPS-4445")
    assert deploy_key not in comment["body"] and signing_secret not in comment["body"]
    assert "[REDACTED] for upload" in comment["body"]
    assert "@\u200doncall-team" in comment["body"] and "@\u200dsomeone" in comment["body"]
    for request in [*linear.server.requests, *github.server.requests]:
        assert deploy_key.encode() not in request.body
    assert LINEAR_KEY not in result.output and GITHUB_TOKEN not in result.output


def test_a_report_that_cannot_be_read_is_an_error(tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    result = _run(str(broken))
    assert result.exit_code == 1
    assert "Error: cannot read report" in result.output and "Hint:" in result.output


def test_a_repository_option_must_be_owner_slash_name(nightly_json: Path) -> None:
    result = _run(str(nightly_json), "--repo", "not-a-repo", "--dry-run")
    assert result.exit_code == 2
    assert "is not owner/name" in result.output
