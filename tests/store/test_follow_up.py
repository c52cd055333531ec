"""The follow-up use case without the CLI: write → check → record → annotate, and the exit code it makes."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from forensics.annotate import History
from forensics.annotate.run import Action, AnnotateResult, TicketOutcome
from forensics.errors import StoreError
from forensics.model import REDACTED, Report
from forensics.report.build import analyze
from forensics.report.redact import Redactor
from forensics.rules.model import RuleSet
from forensics.sinks.base import CommentBody, Marker, Target
from forensics.store import OpenMode, Store, open_store
from forensics.usecases.exit_code import ExitCode
from forensics.usecases.follow_up import Annotate, FollowUp, OpenStore, follow_up
from tests.store.old_stores import build_version_1, schema_version

CAUSE = "vllm.startup-free-memory"  # three of the sample's failing tests


@dataclass
class Steps:
    """What each step was given, in the order the use case took them."""

    order: list[str] = field(default_factory=list)
    histories: list[int | None] = field(default_factory=list)  # the cause's total, None: no history
    ticket_fails: bool = False

    def write(self, _report: Report) -> None:
        self.order.append("write")

    def check(self, code: ExitCode) -> Callable[[Report], ExitCode]:
        def checked(_report: Report) -> ExitCode:
            self.order.append("check")
            return code

        return checked

    def annotate(self, _report: Report, history: History | None) -> AnnotateResult:
        self.order.append("annotate")
        stats = history(CAUSE) if history is not None else None  # the store is open only during the call
        self.histories.append(stats.total if stats is not None else None)
        action = Action.FAILED if self.ticket_fails else Action.CREATED
        body = CommentBody(marker=Marker(key="linear:OPS-1", digest="0" * 16), format="markdown", text="")
        outcome = TicketOutcome(target=Target("linear", "OPS-1"), action=action, tests=1, body=body)
        return AnnotateResult(outcomes=(outcome,), problems=(), quiet=(), dry_run=False)


def _opener(location: str, tmp_path: Path, steps: Steps) -> OpenStore:
    def opened(mode: OpenMode) -> Store:
        steps.order.append(f"open {mode}")
        return open_store(location, default_dir=tmp_path, mode=mode)

    return opened


def _refusing(_mode: OpenMode) -> Store:
    raise StoreError("cannot open the store 'x': disk full", hint="free space")


def _run(
    report: Report,
    steps: Steps,
    *,
    check: Callable[[Report], ExitCode] | None = None,
    store: OpenStore | None = None,
    record: bool = False,
    annotate: Annotate | None = None,
) -> FollowUp:
    return follow_up(
        report,
        write=steps.write,
        check=check or steps.check(ExitCode.OK),
        store=store,
        record=record,
        annotate=annotate,
    )


def test_writes_checks_records_then_annotates_with_a_history_that_counts_this_run(
    store_location: str, sample_report: Report, tmp_path: Path
) -> None:
    steps = Steps()
    done = _run(
        sample_report,
        steps,
        store=_opener(store_location, tmp_path, steps),
        record=True,
        annotate=steps.annotate,
    )
    assert steps.order == ["write", "check", "open create", "open create", "annotate"]
    assert (
        done.recorded is not None and done.recorded.result.tests == 19 and done.recorded.result.failing == 7
    )
    assert done.store_problems == () and done.code is ExitCode.OK and done.checked is ExitCode.OK
    assert steps.histories == [3]  # the run just recorded counts


def test_the_report_is_recorded_redacted_with_the_runs_secrets(
    store_location: str, rule_pack: RuleSet, tmp_path: Path
) -> None:
    """`analyze` knew no secret here; the follow-up's redactor (the CLI's: the environment's *_TOKEN values)
    still keeps it out of every stored row."""
    secret = "pw-7f3a9c-plain-value-41"  # no known shape: only the redactor's exact value can find it
    log = tmp_path / "job.log"
    log.write_text(f"INFO connecting with {secret}\nKeyError: 'token_ids' for {secret}\n")
    report = analyze([str(log)], rules=rule_pack)
    assert secret in repr(report)  # so only the follow-up can have taken it out
    steps = Steps()
    done = follow_up(
        report,
        write=steps.write,
        check=steps.check(ExitCode.OK),
        store=_opener(store_location, tmp_path, steps),
        record=True,
        redactor=Redactor(secrets=(secret,)),
    )
    assert done.recorded is not None and done.recorded.result.failing == 1
    with open_store(store_location, default_dir=tmp_path, mode="read") as store:
        rows = [
            store.query(f"SELECT * FROM {table}") for table in ("runs", "tests", "findings", "evidence_logs")
        ]
    assert secret not in repr(rows) and REDACTED in repr(rows)


def test_recording_the_same_run_again_adds_nothing(
    store_location: str, sample_report: Report, tmp_path: Path
) -> None:
    steps = Steps()
    opener = _opener(store_location, tmp_path, steps)
    first = _run(sample_report, steps, store=opener, record=True)
    again = _run(sample_report, steps, store=opener, record=True)
    assert first.recorded is not None and first.recorded.result.new_run
    assert (
        again.recorded is not None and not again.recorded.result.new_run and again.recorded.result.tests == 0
    )
    assert again.annotated is None and again.code is ExitCode.OK


def test_a_run_that_read_nothing_is_not_recorded(
    store_location: str, sample_report: Report, tmp_path: Path
) -> None:
    steps = Steps()
    done = _run(
        sample_report,
        steps,
        check=steps.check(ExitCode.NOTHING_READ),
        store=_opener(store_location, tmp_path, steps),
        record=True,
    )
    assert steps.order == ["write", "check"]
    assert done.recorded is None and done.code is ExitCode.NOTHING_READ


def test_a_refusing_store_is_a_problem_and_the_tickets_still_get_their_causes(sample_report: Report) -> None:
    steps = Steps(ticket_fails=True)
    done = _run(
        sample_report,
        steps,
        check=steps.check(ExitCode.CHECK_FAILED),
        store=_refusing,
        record=True,
        annotate=steps.annotate,
    )
    assert [problem.message for problem in done.store_problems] == ["cannot open the store 'x': disk full"]
    assert steps.histories == [None]  # the store is not asked again for the history
    assert done.recorded is None and done.annotated is not None and done.annotated.failed
    assert done.code is ExitCode.ERROR  # the store first, then the tickets, then --fail-on


def test_a_store_too_old_to_read_is_not_migrated_and_the_tickets_go_without_history(
    store_location: str, sample_report: Report, tmp_path: Path
) -> None:
    build_version_1(store_location)
    steps = Steps()
    done = _run(sample_report, steps, store=_opener(store_location, tmp_path, steps), annotate=steps.annotate)
    assert steps.order == ["write", "check", "open read", "annotate"]
    assert steps.histories == [None] and schema_version(store_location) == 1
    assert [type(problem) for problem in done.store_problems] == [StoreError]
    assert done.code is ExitCode.ERROR


@pytest.mark.parametrize(
    ("checked", "expected"),
    [(ExitCode.OK, ExitCode.TICKETS_FAILED), (ExitCode.CHECK_FAILED, ExitCode.TICKETS_FAILED)],
)
def test_a_ticket_that_failed_comes_before_fail_on(
    sample_report: Report, checked: ExitCode, expected: ExitCode
) -> None:
    steps = Steps(ticket_fails=True)
    done = _run(sample_report, steps, check=steps.check(checked), annotate=steps.annotate)
    assert done.code is expected and done.checked is checked and done.recorded is None


def test_without_a_store_the_tickets_get_no_history(sample_report: Report) -> None:
    steps = Steps()
    done = _run(sample_report, steps, check=steps.check(ExitCode.CHECK_FAILED), annotate=steps.annotate)
    assert steps.order == ["write", "check", "annotate"] and steps.histories == [None]
    assert done.code is ExitCode.CHECK_FAILED
