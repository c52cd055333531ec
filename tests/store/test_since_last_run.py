"""Since the last run: new, returning and gone causes, new unexplained clusters and flaky tests of one recorded
run, over simulated nights — in the answer, the step summary and the ticket comments (real local servers)."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner

from forensics.annotate import Action, AnnotateOptions, annotate_report
from forensics.cli.main import main
from forensics.model import Report
from forensics.render.markdown import render_markdown
from forensics.report.redact import Redactor
from forensics.services.http import RetryPolicy
from forensics.services.jira import JiraClient
from forensics.services.linear import LinearClient
from forensics.sinks.github import GitHubCommentSink
from forensics.sinks.jira import JiraCommentSink
from forensics.sinks.linear import LinearCommentSink
from forensics.store import Store
from forensics.store.since_last_run import SinceLastRun, since_last_run
from forensics.store.writer import record_report
from tests.fakes.github_comments import TOKEN, running_github_comments
from tests.fakes.jira import API_TOKEN, EMAIL, running_jira
from tests.fakes.linear import linear_schema, running_linear
from tests.store.nightly import REPOSITORY, START, nightly, run_url

SEED_KEY = "vllm.startup-free-memory"
UNEXPLAINED = "c9103a15f5a3"
SAMPLE_CAUSES = {SEED_KEY, "hf.gated-repo", "nccl.system-error", "network.address-in-use"}
FLAKY_TEST = "test_kv_router_decisions[nats]"  # the sample's test that failed, then passed on a retry
NIGHTS = {0: "A10G", 1: "L40S", 2: "sample", 3: "sample", 4: "L40S", 5: "L40S", 6: "L40S", 7: "sample"}
FAST = RetryPolicy(attempts=3, backoff=0.01, max_backoff=0.02, max_rate_limit_wait=2.0)


@dataclass(frozen=True)
class Nights:
    """The store after each night, and each night's report as recorded."""

    store: Store
    reports: dict[int, Report]

    def since(self, day: int) -> SinceLastRun:
        found = since_last_run(self.store, self.reports[day], now=START + timedelta(days=day, hours=6))
        assert found is not None
        return found


@pytest.fixture
def nights(store: Store, sample_report: Report, gpu_report: Callable[[str], Report]) -> Nights:
    reports = {}
    for day, kind in NIGHTS.items():
        report = sample_report if kind == "sample" else gpu_report(kind)
        reports[day] = nightly(report, day=day, gpu="L40S" if kind == "L40S" else "A10G")
        record_report(store, reports[day])
    return Nights(store, reports)


def _changes(since: SinceLastRun) -> set[tuple[str, str, str]]:
    return {(change.status, change.kind, change.key) for change in since.changes}


def test_the_first_night_has_nothing_to_compare_with(nights: Nights) -> None:
    first = nights.since(0)
    assert first.previous is None and first.changes == () and first.run.run_id == 9_000_000
    assert (first.repository, first.workflow, first.branch) == (REPOSITORY, "Nightly CI Pipeline", "main")


def test_a_cause_new_on_night_n_is_new_then_and_not_on_n_plus_1(nights: Nights) -> None:
    night2 = nights.since(2)
    assert night2.previous is not None and night2.previous.run_id == 9_000_001
    # the seed cause failed night 0, then missed one night only: it recurs, it is not "returning"
    assert _changes(night2) == {
        ("new", "cause", "hf.gated-repo"),
        ("new", "cause", "nccl.system-error"),
        ("new", "cause", "network.address-in-use"),
        ("new", "unexplained", UNEXPLAINED),
    }
    gated = next(change for change in night2.changes if change.key == "hf.gated-repo")
    assert (
        gated.tests == 1 and gated.first_seen.run_id == 9_000_002 and gated.title.startswith("Hugging Face")
    )
    assert gated.commits is not None
    assert (gated.commits.base_sha, gated.commits.head_sha) == (f"{9_000_001:040x}", f"{9_000_002:040x}")
    assert gated.commits.compare_url == (
        f"https://github.com/{REPOSITORY}/compare/{9_000_001:040x}...{9_000_002:040x}"
    )
    assert [change.key for change in night2.of_status("new", "unexplained")] == [UNEXPLAINED]
    assert night2.status_of("hf.gated-repo") == "new" and night2.status_of(SEED_KEY) is None
    assert nights.since(3).changes == ()  # the same causes as the night before


def test_gone_causes_keep_their_tickets_and_returning_ones_say_how_long_they_were_away(
    nights: Nights,
) -> None:
    night4 = nights.since(4)
    assert _changes(night4) == {("gone", "cause", key) for key in SAMPLE_CAUSES} | {
        ("gone", "unexplained", UNEXPLAINED)
    }
    seed = next(change for change in night4.changes if change.key == SEED_KEY)
    assert seed.tests == 3 and seed.first_seen.run_id == 9_000_000  # first seen on night 0
    assert {"OPS-4445", "ai-dynamo/dynamo#8443"} <= set(seed.tickets)
    night7 = nights.since(7)
    assert _changes(night7) == {("returning", "cause", key) for key in SAMPLE_CAUSES} | {
        ("returning", "unexplained", UNEXPLAINED)
    }
    assert {change.absent_runs for change in night7.changes} == {3}  # nights 4, 5 and 6
    assert night7.status_of(SEED_KEY) == "returning"


def test_a_test_that_passes_on_a_retry_is_flaky_with_its_flip_rate(nights: Nights) -> None:
    [flaky] = nights.since(3).flaky
    assert (flaky.name, flaky.flips, flaky.executions, flaky.flip_rate) == (FLAKY_TEST, 3, 4, 1.0)
    assert flaky.first_failed.run_id == 9_000_002
    assert nights.since(4).flaky == ()  # it did not run that night


def test_a_run_the_store_does_not_hold_has_no_answer(store: Store, sample_report: Report) -> None:
    assert since_last_run(store, nightly(sample_report, day=0), now=START) is None


def test_the_step_summary_starts_with_what_changed_and_marks_the_overview(nights: Nights) -> None:
    markdown = render_markdown(nights.reports[2], since=nights.since(2))
    top = markdown[: markdown.index("### Overview")]
    assert "### Since the last run\n" in top
    assert f"[run 9000001]({run_url(9_000_001)})" in top
    assert "- **New causes:** 3\n" in top and "- **New unexplained clusters:** 1\n" in top
    assert "**Flaky tests** (pass and fail on one commit and GPU, or flip often): 1" in top
    assert f"`{FLAKY_TEST}`: flip rate 100% (1 flip in 2 tries)" in top
    compare = f"https://github.com/{REPOSITORY}/compare/{9_000_001:040x}...{9_000_002:040x}"
    base, head = f"{9_000_001:040x}"[:12], f"{9_000_002:040x}"[:12]
    assert f"commits since the last good run: [`{base}`…`{head}`]({compare})" in top
    assert "| root cause | category | tests | since last run | tickets |" in markdown
    assert "(`hf.gated-repo`) | external-service | 1 | new |" in markdown
    overview = markdown[markdown.index("### Overview") : markdown.index("<details>")]
    assert overview.index("hf.gated-repo") < overview.index(SEED_KEY)  # what is new comes first
    assert "· <b>new</b></summary>" in markdown
    gone = render_markdown(nights.reports[4], since=nights.since(4))
    assert "- **Gone (failed the last run, not this one):** 5" in gone and "fixed within" in gone
    assert "Since the last run" not in render_markdown(nights.reports[2])  # no store, no section


def test_ticket_comments_say_what_changed_on_every_tracker_and_stay_idempotent(nights: Nights) -> None:
    report, since = nights.reports[7], nights.since(7)
    secret = "s3cr3t-linear-key-value"
    redactor = Redactor(secrets=(secret,))
    # a title the store kept from an older, unredacted recording: the comment redacts it again
    since = dataclasses.replace(
        since, changes=tuple(dataclasses.replace(c, title=f"{c.title} {secret}") for c in since.changes)
    )
    linear_schema()  # built once per session: not inside the first request's timeout
    with running_linear() as linear, running_github_comments() as github, running_jira() as jira:
        linear.add_issue("OPS-4445")
        github.add_issue("ai-dynamo/dynamo", 8443)
        jira.add_issue("INFRA-12")
        clients = (
            LinearClient(api_key=linear.api_key, base_url=linear.url, timeout=20, retry=FAST),
            JiraClient(base_url=jira.url, email=EMAIL, api_token=API_TOKEN, timeout=20, retry=FAST),
        )
        github_sink = GitHubCommentSink.connect(token=TOKEN, base_url=github.url, timeout=20, retry=FAST)
        sinks = {
            "linear": LinearCommentSink(clients[0]),
            "github": github_sink,
            "jira": JiraCommentSink(clients[1]),
        }
        options = AnnotateOptions(
            jira_base_url=jira.url, jira_projects=frozenset({"INFRA"}), redactor=redactor
        )

        def annotate() -> dict[str, Action]:
            result = annotate_report(
                report, sinks=sinks, extra_tickets=("INFRA-12",), options=options, since=since
            )  # type: ignore[arg-type]
            ours = [
                o
                for o in result.outcomes
                if o.target.key in ("OPS-4445", "ai-dynamo/dynamo#8443", "INFRA-12")
            ]
            assert len(ours) == 3 and not [o for o in ours if o.action is Action.FAILED], [
                (o.target.key, o.action, o.message) for o in ours
            ]
            return {o.target.key: o.action for o in ours}

        try:
            assert set(annotate().values()) == {Action.CREATED}
            assert set(annotate().values()) == {Action.UNCHANGED}  # the same run: the same comment
        finally:
            github_sink.close()
            for client in clients:
                client.close()
        [linear_body] = [c["body"] for c in linear.comments_of("OPS-4445")]
        [github_body] = [c["body"] for c in github.comments_of("ai-dynamo/dynamo", 8443)]
        [jira_body] = [json.dumps(c["body"]) for c in jira.comments_of("INFRA-12")]
    for body in (linear_body, github_body):
        since_part = body[body.index("#### Since the last run") : body.index("#### Root cause")]
        assert "**Returning:** GPU already in use" in since_part
        assert "back after 3 runs without it" in since_part
        assert f"[run 9000000]({run_url(9_000_000)})" in since_part  # first seen on night 0
        assert f"https://github.com/{REPOSITORY}/compare/{9_000_006:040x}...{9_000_007:040x}" in since_part
        assert "hf.gated-repo" not in since_part and "Hugging Face" not in since_part  # not this ticket's
        assert secret not in body and "free-memory check failed \\[REDACTED\\]" in since_part
    assert "Since the last run" in jira_body and "Returning:" in jira_body and "Hugging Face" in jira_body
    assert secret not in jira_body and "check failed [REDACTED]" in jira_body
    assert "New unexplained failure" not in jira_body and "KeyError" in jira_body  # returning, not new


def test_analyze_record_writes_a_summary_with_the_changes_and_without_a_store_none(tmp_path: Path) -> None:
    store = tmp_path / "history.sqlite3"
    first, second = tmp_path / "first.log", tmp_path / "second.log"
    first.write_text("starting\nRuntimeError: the amber anchor refused the lease\n")
    second.write_text("collecting\nE   ModuleNotFoundError: No module named 'sniffio'\n")
    runner = CliRunner()

    def analyze(log: Path, summary: Path, *store_args: str) -> str:
        done = runner.invoke(
            main,
            [
                "analyze",
                str(log),
                "--format",
                "json",
                "-o",
                str(tmp_path / "r.json"),
                "--summary-output",
                str(summary),
                *store_args,
            ],
            catch_exceptions=False,
        )
        assert done.exit_code == 0, done.output
        return summary.read_text(encoding="utf-8")

    assert "Since the last run" not in analyze(second, tmp_path / "plain.md")  # no store in use
    assert not store.exists()
    night1 = analyze(first, tmp_path / "1.md", "--record", "--store", str(store))
    assert (
        "### Since the last run\n\nThis is the first recorded run of this series: nothing to compare with yet."
        in night1
    )
    night2 = analyze(second, tmp_path / "2.md", "--record", "--store", str(store))
    top = night2[: night2.index("### Overview")]
    assert "- **New causes:** 1\n  - **Python module not found" in top or "python.module-not-found" in top
    assert (
        "- **Gone (failed the last run, not this one):** 1\n  - `RuntimeError: the amber anchor refused the lease`"
        in top
    )
    assert "a local run (" in top
    assert "| new |" in night2  # the overview marks the new cause


def test_annotate_shows_the_section_when_its_store_holds_the_run(tmp_path: Path) -> None:
    store, report = tmp_path / "history.sqlite3", tmp_path / "report.json"
    runner = CliRunner()
    recorded = runner.invoke(
        main,
        ["analyze", "--demo", "--record", "--store", str(store), "--format", "json", "-o", str(report)],
        catch_exceptions=False,
    )
    assert recorded.exit_code == 0, recorded.output
    with_store = runner.invoke(main, ["annotate", str(report), "--dry-run", "--store", str(store)])
    assert with_store.exit_code == 0, with_store.output
    assert "#### Since the last run\n\nFirst recorded run of this workflow and branch" in with_store.output
    without = runner.invoke(main, ["annotate", str(report), "--dry-run"])
    assert without.exit_code == 0 and "Since the last run" not in without.output


def test_render_caps_the_markdown_it_writes(tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    runner = CliRunner()
    assert runner.invoke(main, ["analyze", "--demo", "--format", "json", "-o", str(report)]).exit_code == 0
    small = runner.invoke(
        main, ["render", str(report), "--format", "markdown", "--summary-max-bytes", "5KiB"]
    )
    assert small.exit_code == 0
    assert len(small.stdout.encode()) <= 5 * 1024 + 1  # and the newline the console ends with
    assert "_Left out to stay under 5 KiB (GitHub's limit for a step summary is 1 MiB):" in small.stdout
    whole = runner.invoke(main, ["render", str(report), "--format", "markdown"])
    assert "Left out" not in whole.stdout and whole.stdout.count("<details>") == 5
    bad = runner.invoke(main, ["render", str(report), "--format", "markdown", "--summary-max-bytes", "lots"])
    assert bad.exit_code == 2 and "is not a size like 512MiB or 2G" in bad.output


def test_returning_after_sets_how_many_runs_without_a_cause_make_it_returning(tmp_path: Path) -> None:
    store = tmp_path / "history.sqlite3"
    nights = iter(range(100))
    runner = CliRunner()

    def analyze(error: str, *more: str) -> str:
        log, summary = tmp_path / "night.log", tmp_path / "summary.md"
        log.write_text(f"night {next(nights)}\n{error}\n")  # each night its own run
        outputs = ("--format", "json", "-o", str(tmp_path / "r.json"), "--summary-output", str(summary))
        done = runner.invoke(
            main,
            ["analyze", str(log), *outputs, "--record", "--store", str(store), *more],
            catch_exceptions=False,
        )
        assert done.exit_code == 0, done.output
        return summary.read_text(encoding="utf-8")

    amber, sniffio = (
        "RuntimeError: the amber anchor refused the lease",
        "E   ModuleNotFoundError: No module named 'x'",
    )
    for error in (amber, sniffio, sniffio):
        analyze(error)
    # the amber cause is back after 2 runs without it: "returning" only when 2 runs are enough
    assert "Returning" not in analyze(amber)  # the default, 3
    for error in (sniffio, sniffio):
        analyze(error)
    back = analyze(amber, "--returning-after", "2")
    assert "- **Returning (absent 2 runs or more):** 1\n  - `RuntimeError: the amber anchor" in back

    site = tmp_path / "site"
    for runs, status in (("2", "returning"), ("3", "recurring")):
        done = runner.invoke(
            main, ["dashboard", "--store", str(store), "--out", str(site), "--returning-after", runs]
        )
        assert done.exit_code == 0, done.output
        since = json.loads((site / "data.json").read_text(encoding="utf-8"))["since_last_run"]
        assert since["returning_after_runs"] == int(runs)
        [series] = since["series"]
        assert {change["status"] for change in series["changes"]} >= {status}, series["changes"]
    refused = runner.invoke(
        main, ["dashboard", "--data", str(site / "data.json"), "--out", str(site), "--returning-after", "2"]
    )
    assert refused.exit_code == 2 and "--returning-after apply to --store" in refused.output
