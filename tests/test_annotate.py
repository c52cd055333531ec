"""annotate without a network: which tickets, what each comment says, and that it is safe to post.

Reports come from the real `analyze()` over the bundled sample nightly artifact (OPS-4445 and
ai-dynamo/dynamo#8443 in its links and skip reasons) or over crafted logs (tests/support/nightly_report.py);
test_annotate_sinks.py runs the sinks against local fake Linear, GitHub and Jira servers with the same reports.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

import pytest
import regex

from forensics.annotate import Action, AnnotateOptions, SinkUnavailable, annotate_report
from forensics.annotate.compose import BODY_LIMITS, ComposeOptions, compose_comment
from forensics.annotate.targets import LinkedTarget, TargetOptions, resolve_targets
from forensics.model import ExcerptLine, Report, Status, Ticket
from forensics.report.redact import Redactor
from forensics.rules.model import RuleSet
from forensics.services.jira import adf_text
from forensics.sinks.base import Marker, Target
from tests.fakes.jira import adf_problems
from tests.support.nightly_report import (
    HEAD_SHA,
    JOB_ID,
    REPOSITORY,
    RUN_ID,
    crafted_report,
    many_failures,
    sample_report,
    with_run,
)

SECRETS = {
    "github classic": ("ghp_0123456789abcdefghijABCDEFGHIJ012345", "using {}"),
    "github oauth": ("gho_abcdefghijklmnopqrstuvwxyz0123", "token {} loaded"),
    "github server": (
        "ghs_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123",
        "git clone https://x-access-token:{}@github.com/a/b.git",
    ),
    "github fine-grained": ("github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz", "GH={}"),
    "hugging face": ("hf_abcdefghijklmnopqrstuvwxyzABCD", "export HF_TOKEN={}"),
    "linear": ("lin_api_abcdefghijklmnopqrstuvwxyz123456", "key {} loaded"),
    "aws key id": ("AKIAIOSFODNN7EXAMPLE", "AWS_ACCESS_KEY_ID={}"),
    "aws secret": ("wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY", "aws_secret_access_key = {}"),
    "authorization header": ("c2VjcmV0OnBhc3N3b3Jk", "curl -H 'Authorization: Basic {}'"),
    "bearer": ("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl", "DEBUG Bearer {}"),
    "url credentials": ("pa55w0rd-in-url", "pip install --index-url https://ci:{}@pypi.internal/simple vllm"),
    "signed url": (
        "sig=AbCdEf%2BGhIj%3D",
        "GET https://x.blob.core.windows.net/r/a.zip?sv=2021&se=2026&{}&sp=r",
    ),
    "environment value": ("plain-looking-value-9f8e7d", "config loaded: {}"),
}
ENVIRONMENT_SECRET = SECRETS["environment value"][0]


def linked_to_all(report: Report, target: Target) -> LinkedTarget:
    return LinkedTarget(target, tuple(verdict.test.uuid for verdict in report.failing))


@dataclass(frozen=True)
class StoredHistory:
    """Shaped like the history store's CauseStats (datetimes, optional run links)."""

    first_seen_at: datetime
    first_seen_run_url: str | None
    first_seen_sha: str | None
    last_seen_at: datetime
    last_seen_run_url: str | None
    count_24h: int
    count_7d: int
    count_30d: int
    total: int


@pytest.fixture(scope="module")
def nightly(rule_pack: RuleSet) -> Report:
    return with_run(sample_report(rule_pack))


def _target(report: Report, system: str, key: str, **options: object) -> LinkedTarget:
    resolution = resolve_targets(report, options=TargetOptions(**options))  # type: ignore[arg-type]
    return next(t for t in resolution.targets if t.target.system == system and t.target.key == key)


def _compose(report: Report, linked: LinkedTarget, **options: object) -> str:
    return compose_comment(report, linked, options=ComposeOptions(**options)).text  # type: ignore[arg-type]


# --- which tickets ---------------------------------------------------------------------------------


def test_tickets_from_links_and_skip_reasons_resolve_with_the_tests_linked_to_each(nightly: Report) -> None:
    resolution = resolve_targets(nightly)
    by_key = {(t.target.system, t.target.key): t for t in resolution.targets}
    assert set(by_key) == {("linear", "OPS-4445"), ("github", "ai-dynamo/dynamo#8443")}
    names = nightly.verdict_by_uuid()
    ops = by_key[("linear", "OPS-4445")]
    assert [names[uuid].test.name for uuid in ops.failing] == [
        "test_serve_deployment[mm_e_pd_qwen3-vl-2b]",
        "test_serve_deployment[mm_epd_qwen3-vl-2b]",
        "test_serve_deployment[mm_epd_qwen3-vl-2b-video]",
    ]
    assert [names[uuid].test.status for uuid in ops.others] == [Status.SKIPPED]  # its skip reason names it
    assert ops.target.url == "https://linear.app/nvidia/issue/OPS-4445"
    assert by_key[("github", "ai-dynamo/dynamo#8443")].target.url.endswith("/ai-dynamo/dynamo/pull/8443")
    assert resolution.problems == ()


def test_a_ticket_named_only_by_passing_or_skipped_tests_is_not_annotated(nightly: Report) -> None:
    skipped = next(v for v in nightly.verdicts if v.test.status is Status.SKIPPED and not v.test.tickets)
    quiet_test = replace(skipped.test, tickets=(Ticket("linear", "DYN-2602", "", "skip-reason"),))
    report = replace(
        nightly, verdicts=tuple(replace(v, test=quiet_test) if v is skipped else v for v in nightly.verdicts)
    )
    resolution = resolve_targets(report)
    assert Target("linear", "DYN-2602") in resolution.quiet
    assert all(t.target.key != "DYN-2602" for t in resolution.targets)


def test_tickets_of_the_matched_rule_and_of_the_command_line_cover_their_failures(nightly: Report) -> None:
    gated = next(v for v in nightly.failing if v.root_cause and v.root_cause.rule_id == "hf.gated-repo")
    assert gated.root_cause is not None
    with_rule_ticket = replace(gated, root_cause=replace(gated.root_cause, tickets=("DYN-2602",)))
    report = replace(nightly, verdicts=tuple(with_rule_ticket if v is gated else v for v in nightly.verdicts))
    resolution = resolve_targets(report, extra_tickets=["OPS-1"])
    by_key = {t.target.key: t for t in resolution.targets}
    assert by_key["DYN-2602"].failing == (gated.test.uuid,)
    assert len(by_key["OPS-1"].failing) == len(report.failing) == 7


def test_bare_issue_numbers_need_a_repository(rule_pack: RuleSet, nightly: Report) -> None:
    local = sample_report(rule_pack)
    unresolved = resolve_targets(local, extra_tickets=["#8466"])
    assert [(p.object, p.message) for p in unresolved.problems] == [("#8466", "names no repository")]
    assert "--repo" in unresolved.problems[0].hint
    from_run = resolve_targets(nightly, extra_tickets=["#8466"])
    assert Target("github", "ai-dynamo/dynamo#8466", "https://github.com/ai-dynamo/dynamo/issues/8466") in {
        t.target for t in from_run.targets
    }
    given = resolve_targets(nightly, extra_tickets=["#7"], options=TargetOptions(repository="Acme/Tools"))
    assert "acme/tools#7" in {t.target.key for t in given.targets}


def test_jira_tickets_need_a_site_and_bare_keys_are_jira_only_for_listed_projects(nightly: Report) -> None:
    references = [
        "https://acme.atlassian.net/browse/INFRA-12",
        "PLAT-7",
        "https://linear.app/nvidia/issue/PLAT-8",
    ]
    without_site = resolve_targets(nightly, extra_tickets=references)
    assert [p.object for p in without_site.problems] == ["INFRA-12"]
    assert "JIRA_BASE_URL" in without_site.problems[0].hint
    assert {("linear", "PLAT-7"), ("linear", "PLAT-8")} <= {
        (t.target.system, t.target.key) for t in without_site.targets
    }

    site = TargetOptions(jira_base_url="https://acme.atlassian.net/", jira_projects=frozenset({"PLAT"}))
    with_site = resolve_targets(nightly, extra_tickets=references, options=site)
    systems = {t.target.key: t.target for t in with_site.targets}
    assert systems["INFRA-12"] == Target("jira", "INFRA-12", "https://acme.atlassian.net/browse/INFRA-12")
    assert systems["PLAT-7"] == Target("jira", "PLAT-7", "https://acme.atlassian.net/browse/PLAT-7")
    assert systems["PLAT-8"].system == "linear"  # a Linear URL says where it lives

    elsewhere = resolve_targets(
        nightly, extra_tickets=["https://other.atlassian.net/browse/INFRA-1"], options=site
    )
    assert "other.atlassian.net" in elsewhere.problems[0].message


def test_an_unreadable_ticket_option_is_a_problem_not_a_crash(nightly: Report) -> None:
    resolution = resolve_targets(nightly, extra_tickets=["not a ticket"])
    assert [(p.object, p.severity) for p in resolution.problems] == [("not a ticket", "error")]


# --- what gets posted ------------------------------------------------------------------------------


def test_the_comment_aggregates_the_linked_tests_with_cause_numbers_evidence_and_run(nightly: Report) -> None:
    body = _compose(nightly, _target(nightly, "linear", "OPS-4445"))
    assert body.startswith("### ci-forensics: 3 failing tests linked to `OPS-4445`\n")
    assert "#### Root cause: GPU already in use: vLLM's startup free-memory check failed — 3 tests" in body
    assert (
        "vLLM wanted 0.9 × 22.03 GiB = 19.83 GiB on cuda:0 but only 19.5 GiB was free: 0.33 GiB short."
        in body
    )
    assert "`free_gib = 19.5`" in body and "`max_utilization = 0.88`" in body
    job_link = (
        f"[vllm / Test cuda13.0 (amd64)](https://github.com/{REPOSITORY}/actions/runs/{RUN_ID}/job/{JOB_ID})"
    )
    assert f"- `test_serve_deployment[mm_epd_qwen3-vl-2b-video]` (broken) — job {job_link}" in body
    assert "**Evidence** — bash.log.txt line 146, fixture 'dynamo\\_deployment::1' (teardown)" in body
    assert regex.search(r"(?m)^> 146 \| .*ValueError: Free memory on device cuda:0", body)
    assert regex.search(r"(?m)^  143 \| ", body) and not regex.search(
        r"(?m)^  139 \| ", body
    )  # short excerpt
    assert (
        "**Symptoms it explains:** vLLM EngineCore process failed (wrapper) (bash.log.txt line 124)" in body
    )
    assert (
        f"Run [Nightly CI Pipeline \\#{RUN_ID}](https://github.com/{REPOSITORY}/actions/runs/{RUN_ID})"
        in body
    )
    assert f"commit `{HEAD_SHA[:12]}` on `main`" in body
    assert "**Also linked in this run:** `test_serve_deployment[mm_agg_qwen2-audio-7b]` (skipped)" in body
    assert body.endswith(
        "Posted by ci-forensics and edited in place after every run · "
        f"`ci-forensics:v1 key=linear:OPS-4445 digest={Marker('linear:OPS-4445', '').digest_in(body)}`\n"
    )
    assert "<!--" not in body  # Linear's editor does not promise to keep HTML comments
    assert "History" not in body  # no store given


def test_github_gets_the_marker_hidden_at_the_top_as_well(nightly: Report) -> None:
    body = _compose(nightly, _target(nightly, "github", "ai-dynamo/dynamo#8443"))
    first_line, _, rest = body.partition("\n")
    assert first_line.startswith("<!-- ci-forensics:v1 key=github:ai-dynamo/dynamo#8443 digest=")
    assert first_line.endswith(" -->") and rest.startswith("### ci-forensics: 3 failing tests")


def test_unexplained_failures_are_reported_as_such_with_their_fingerprint(nightly: Report) -> None:
    linked = resolve_targets(nightly, extra_tickets=["OPS-1"]).targets
    ops1 = next(t for t in linked if t.target.key == "OPS-1")
    body = _compose(nightly, ops1)
    assert "### ci-forensics: 7 failing tests linked to `OPS-1`" in body
    assert "#### Unexplained — 1 test" in body
    assert "No rule explains this failure yet. Fingerprint `c9103a15f5a3`" in body
    assert "- `test_request_migration[qwen3-0.6b]` (broken)" in body
    assert "**Likely cause (no rule) — " in body  # here also the last error line: shown once
    assert body.count("#### Root cause:") == 4
    assert body.index("#### Unexplained") > body.rindex("#### Root cause:")  # causes first, as in the report


def test_history_adds_first_and_last_seen_and_counts(nightly: Report) -> None:
    asked: list[str] = []

    def history(key: str) -> StoredHistory | None:
        asked.append(key)
        return StoredHistory(
            first_seen_at=datetime(2026, 4, 1, 2, 5, tzinfo=UTC),
            first_seen_run_url=f"https://github.com/{REPOSITORY}/actions/runs/1",
            first_seen_sha="abcdef0123456789",
            last_seen_at=datetime(2026, 4, 20, 2, 7, tzinfo=UTC),
            last_seen_run_url=None,
            count_24h=3,
            count_7d=9,
            count_30d=21,
            total=40,
        )

    body = _compose(nightly, _target(nightly, "linear", "OPS-4445"), history=history)
    assert asked == ["vllm.startup-free-memory"]
    assert (
        f"**History:** first seen 2026-04-01 02:05 UTC in [this run](https://github.com/{REPOSITORY}/actions/runs/1)"
        " at `abcdef012345` · last seen 2026-04-20 02:07 UTC · 3× in 24 h, 9× in 7 days, 21× in 30 days, 40× in all"
    ) in body
    unknown = _compose(nightly, _target(nightly, "linear", "OPS-4445"), history=lambda key: None)
    assert "History" not in unknown


def test_the_same_report_gives_the_same_marker_and_a_new_run_a_new_digest(
    rule_pack: RuleSet, nightly: Report
) -> None:
    linked = _target(nightly, "linear", "OPS-4445")
    first = compose_comment(nightly, linked, options=ComposeOptions())
    again = compose_comment(with_run(sample_report(rule_pack)), linked, options=ComposeOptions())
    later = compose_comment(with_run(nightly, run_id=RUN_ID + 1), linked, options=ComposeOptions())
    assert first.text == again.text
    assert first.marker.key == later.marker.key == "linear:OPS-4445"
    assert first.marker.digest != later.marker.digest
    assert Marker("linear:OPS-4445", "0" * 16).digest_in(first.text) == first.marker.digest
    assert Marker("linear:OPS-444", "0" * 16).digest_in(first.text) is None  # keys match whole
    scoped = compose_comment(nightly, linked, options=ComposeOptions(scope="Nightly CI / vllm"))
    assert scoped.marker.key == "linear:OPS-4445@Nightly-CI-vllm"


def test_jira_gets_a_valid_adf_document_with_the_marker_in_its_last_paragraph(nightly: Report) -> None:
    target = Target("jira", "INFRA-12", "https://acme.atlassian.net/browse/INFRA-12")
    body = compose_comment(nightly, linked_to_all(nightly, target), options=ComposeOptions())
    document = body.document()
    assert body.format == "adf" and adf_problems(document) == []
    assert document["content"][-1]["type"] == "paragraph"
    assert body.marker.text in adf_text(document["content"][-1])
    assert body.marker.digest_in(adf_text(document)) == body.marker.digest
    code_blocks = [node for node in document["content"] if node["type"] == "codeBlock"]
    assert any("> 146 | " in node["content"][0]["text"] for node in code_blocks)
    links = [
        mark["attrs"]["href"]
        for node in json.loads(body.text)["content"]
        for child in node.get("content", [])
        for mark in child.get("marks", [])
        if mark["type"] == "link"
    ]
    assert f"https://github.com/{REPOSITORY}/actions/runs/{RUN_ID}" in links


@pytest.mark.parametrize("system", ["github", "linear", "jira"])
def test_bodies_stay_under_each_services_limit_and_say_how_many_tests_were_left_out(
    nightly: Report, system: str
) -> None:
    report = many_failures(nightly, 900)
    body = compose_comment(report, linked_to_all(report, Target(system, "ABC-1")), options=ComposeOptions())
    text = adf_text(body.document()) if body.format == "adf" else body.text
    assert len(body.text) <= BODY_LIMITS[system]
    shown = len(set(regex.findall(r"test_\d+_x{180}", text)))
    left_out = regex.search(
        r"… (\d+) more tests truncated to stay under \w+'s limit of ([\d,]+) characters", text
    )
    assert left_out is not None, text[-500:]
    assert shown + int(left_out[1]) == 900
    assert left_out[2] == f"{BODY_LIMITS[system]:,}"
    assert shown >= 20  # whole tests are dropped from the end only as far as needed
    assert body.marker.digest_in(text) == body.marker.digest


def test_a_small_report_is_not_truncated(nightly: Report) -> None:
    body = _compose(nightly, _target(nightly, "github", "ai-dynamo/dynamo#8443"))
    assert "truncated" not in body


# --- safety ----------------------------------------------------------------------------------------


def _inject(report: Report, text: str) -> Report:
    """A report as another machine saved it: raw text in the summary, a value, and the evidence excerpt."""
    explained = next(v for v in report.failing if v.explained)
    cause = explained.root_cause
    assert cause is not None
    evidence = replace(
        cause.evidence,
        excerpt=tuple(
            ExcerptLine(line.number, text if line.number == cause.evidence.line - 1 else line.text)
            for line in cause.evidence.excerpt
        ),
    )
    poisoned = replace(
        explained,
        root_cause=replace(
            cause, summary=f"{cause.summary} {text}", fields=(("free_gib", text),), evidence=evidence
        ),
    )
    verdicts = tuple(poisoned if v is explained else v for v in report.verdicts)
    return replace(report, verdicts=verdicts)


@pytest.mark.parametrize("system", ["github", "linear", "jira"])
@pytest.mark.parametrize("kind", sorted(SECRETS))
def test_every_kind_of_secret_is_redacted_from_what_is_posted(
    nightly: Report, kind: str, system: str
) -> None:
    secret, context = SECRETS[kind]
    report = _inject(nightly, context.format(secret))
    redactor = Redactor.from_environment({"DEPLOY_SECRET": ENVIRONMENT_SECRET})
    body = compose_comment(
        report, linked_to_all(report, Target(system, "OPS-1")), options=ComposeOptions(redactor=redactor)
    )
    assert secret not in body.text
    assert "[REDACTED]" in body.text


@pytest.mark.parametrize("kind", sorted(SECRETS))
def test_secrets_and_mentions_in_logs_never_reach_a_posted_body_end_to_end(
    tmp_path: Path, rule_pack: RuleSet, kind: str
) -> None:
    secret, context = SECRETS[kind]
    neighbour = f"setup step before {kind}:"  # plain text on the secret's line: proves the line was posted
    lines = [  # the three lines before the cause: inside the excerpt's ±3 lines
        f"[BASH] {neighbour} {context.format(secret)}",
        "[BASH] cc @someone and @ai-dynamo/ci-team: please look",
        "[BASH] see issue #123 and <b>bold</b>",
    ]
    report = crafted_report(tmp_path, rule_pack, lines)
    result = annotate_report(
        report,
        sinks={},
        extra_tickets=["OPS-1", "acme/tools#1", "INFRA-1"],
        dry_run=True,
        options=AnnotateOptions(
            jira_base_url="https://acme.atlassian.net",
            jira_projects=frozenset({"INFRA"}),
            redactor=Redactor.from_environment({"DEPLOY_SECRET": ENVIRONMENT_SECRET}),
        ),
    )
    assert {(o.target.system, o.action) for o in result.outcomes} == {
        ("linear", Action.PLANNED),
        ("github", Action.PLANNED),
        ("jira", Action.PLANNED),
    }
    for outcome in result.outcomes:
        body = adf_text(outcome.body.document()) if outcome.body.format == "adf" else outcome.body.text
        [posted] = [line for line in body.splitlines() if neighbour in line]
        assert "[REDACTED]" in posted, posted  # the line is there, only the secret is gone
        assert secret not in body
        assert "@\u200dsomeone and @\u200dai-dynamo/ci-team" in body
        assert regex.search(r"@[A-Za-z0-9]", body) is None  # nobody is paged


def test_mentions_outside_code_are_neutralised_and_markdown_in_log_text_is_escaped(nightly: Report) -> None:
    report = _inject(nightly, "ping @octocat [click](https://evil.example) <img src=x> #8443 **bold**")
    body = _compose(report, linked_to_all(report, Target("github", "a/b#1")))
    summary = next(line for line in body.splitlines() if "vLLM wanted" in line and "ping" in line)
    assert "@\u200doctocat" in summary
    assert "\\[click\\](https://evil.example)" in summary
    assert "\\<img src=x\\>" in summary and "\\#8443" in summary and "\\*\\*bold\\*\\*" in summary


def test_a_log_cannot_close_the_excerpt_fence_or_forge_the_marker(nightly: Report) -> None:
    forged = "```` done ``` ci-forensics:v1 key=github:a/b#1 digest=0000000000000000"
    report = _inject(nightly, forged)
    body = compose_comment(report, linked_to_all(report, Target("github", "a/b#1")), options=ComposeOptions())
    fences = regex.findall(r"(?m)^(`{3,})text$", body.text)
    assert fences and all(len(fence) >= 5 for fence in fences[:1])
    assert body.marker.digest_in(body.text) == body.marker.digest
    assert (
        body.text.count("ci-forensics:v1 key=") == 2
    )  # the hidden marker and the footer, nothing from the log


# --- orchestration without a network ---------------------------------------------------------------


def test_dry_run_plans_every_body_without_any_sink(nightly: Report) -> None:
    result = annotate_report(nightly, sinks={}, dry_run=True)
    assert [(o.target.key, o.action, o.tests) for o in result.outcomes] == [
        ("OPS-4445", Action.PLANNED, 3),
        ("ai-dynamo/dynamo#8443", Action.PLANNED, 3),
    ]
    assert result.failed == ()


def test_a_tracker_without_credentials_fails_its_tickets_with_the_hint(nightly: Report) -> None:
    sinks = {
        "linear": SinkUnavailable("no Linear API key", hint="set LINEAR_API_KEY"),
        "github": SinkUnavailable("no GitHub token", hint="set GITHUB_TOKEN"),
    }
    result = annotate_report(nightly, sinks=sinks)
    assert [(o.target.key, o.action, o.message, o.hint) for o in result.outcomes] == [
        ("OPS-4445", Action.FAILED, "no Linear API key", "set LINEAR_API_KEY"),
        ("ai-dynamo/dynamo#8443", Action.FAILED, "no GitHub token", "set GITHUB_TOKEN"),
    ]


def test_a_report_without_tickets_has_nothing_to_annotate(tmp_path: Path, rule_pack: RuleSet) -> None:
    result = annotate_report(crafted_report(tmp_path, rule_pack, []), sinks={})
    assert result.outcomes == () and result.problems == () and result.quiet == ()


def test_failing_verdicts_only_are_posted(nightly: Report) -> None:
    linked = _target(nightly, "linear", "OPS-4445")
    failing = {v.test.uuid for v in nightly.failing}
    assert set(linked.failing) <= failing
    assert not set(linked.others) & failing
