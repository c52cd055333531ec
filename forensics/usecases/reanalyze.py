"""Run today's rules over what the store kept of earlier failures, and say what moved.

A failing test is re-decided over its whole artifact when the file recorded for it is still there, still
holds what was recorded (the same content identity: a log's SHA-256, a zip's directory of CRCs) and that
execution (same Allure uuid) — e.g. fetch's cache. A log overwritten by a later night's, or a row recorded
before content identities were kept (schema version 1), falls back to what the store kept: up to 200 lines
around the old evidence line, plus the test's status message. A new rule whose proof sits elsewhere in the
log, or that `requires` a line outside that window, cannot match there. As in `analyze`, a failure no rule explains
there has the fatal-line family rules tried on the likely-cause line the picker chooses in the window (or message),
then on the failure lines of its excerpt.

Moves: `explained` (unexplained → a cause), `changed` (another cause), `lost` (a cause → unexplained).
A fingerprint that changes into another fingerprint is not a move. `apply` writes `explained` and `changed`
moves into the store; a `lost` cause is kept, since it was found over more text than is left.
"""

from __future__ import annotations

import functools
from collections import defaultdict
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

from forensics.engine.fatal_line import likely_line_cause
from forensics.engine.scanner import CompiledRules, LogScan, scan_text
from forensics.engine.verdict import decide
from forensics.engine.verdict_inputs import ScannedLog
from forensics.errors import ResultsError
from forensics.inputs.allure import MESSAGE_RANK
from forensics.model import ExcerptLine, Finding, GroupKind, LogRef, Status, TestCase, Verdict
from forensics.progress import StepProgress
from forensics.report.build import AnalyzeOptions, analyze
from forensics.report.identity import input_identity, kind_of
from forensics.report.redact import redact_model
from forensics.rules.model import RuleSet
from forensics.store.answers import Move, MoveChange, MoveSource, Reanalysis, StoredFailure, stored_failures
from forensics.store.base import Store
from forensics.store.queries import Filters
from forensics.store.writer import finding_of, rewrite_finding


def reanalyze(
    store: Store,
    *,
    rules: RuleSet,
    filters: Filters | None = None,
    since: datetime | None = None,
    apply: bool = False,
    options: AnalyzeOptions | None = None,
    progress: StepProgress | None = None,
) -> Reanalysis:
    """Re-decide every stored failing test (of the selected runs, since `since`) with `rules`.

    `progress` hears of each artifact read again, then of each failing test decided.
    """
    failures = stored_failures(store, filters or Filters(), since=int(since.timestamp()) if since else None)
    options = options or AnalyzeOptions(read_evidence=False)  # nothing here keeps a window
    verdicts = _from_artifacts(failures, rules, options, progress)
    compiled = CompiledRules(rules, use_literals=options.use_literals)
    moves = []
    for number, failure in enumerate(failures):
        if progress is not None:
            progress("deciding the stored failing tests", number, len(failures))
        source: MoveSource = "artifact" if failure.test_pk in verdicts else "evidence"
        # evidence an older version stored may hold what this one redacts: what is written back is redacted
        verdict = verdicts.get(failure.test_pk) or redact_model(
            _from_evidence(failure, compiled), options.redactor
        )
        move = _move(failure, verdict, source)
        if move is None:
            continue
        if apply and move.change != "lost":
            _apply(store, failure, verdict)
            move = replace(move, applied=True)
        moves.append(move)
    return Reanalysis(
        rules_loaded=len(rules),
        examined=len(failures),
        from_artifacts=len(verdicts),
        from_evidence=len(failures) - len(verdicts),
        moves=tuple(sorted(moves, key=lambda move: (move.change, move.after_key, move.run_at, move.test))),
    )


def _from_artifacts(
    failures: list[StoredFailure], rules: RuleSet, options: AnalyzeOptions, progress: StepProgress | None
) -> dict[int, Verdict]:
    """Verdicts from the inputs still on disk that hold what was recorded, for the executions they hold."""
    by_input: dict[tuple[str, str], list[StoredFailure]] = defaultdict(list)
    for failure in failures:
        if failure.input_identity and failure.input_path not in ("", "-"):
            by_input[(failure.input_path, failure.input_identity)].append(failure)
    held_now = functools.cache(input_identity)  # one read per file, however many nights recorded that path
    found: dict[int, Verdict] = {}
    for number, ((path, identity), members) in enumerate(sorted(by_input.items())):
        if progress is not None:
            progress(f"reading {Path(path).name} again", number, len(by_input))
        if (
            held_now(path, kind_of(identity)) != identity
        ):  # gone, or another file (tonight's log over last night's)
            continue
        try:
            report = analyze([path], rules=rules, options=options)
        except ResultsError:
            continue
        by_uuid = {verdict.test.uuid: verdict for verdict in report.verdicts}
        for failure in members:
            verdict = by_uuid.get(_uuid_when_read_again(failure, path))
            if verdict is not None and verdict.test.status.is_failing:
                found[failure.test_pk] = verdict
    return found


def _uuid_when_read_again(failure: StoredFailure, path: str) -> str:
    """An Allure test keeps its uuid. A plain log is one item named `log:<label>`, and its label was the path as
    given then (relative, or a fetched job's name): read again by its absolute path, it is `log:<path>`."""
    return f"log:{path}" if failure.test_uuid.startswith("log:") else failure.test_uuid


def _from_evidence(failure: StoredFailure, compiled: CompiledRules) -> Verdict:
    """The verdict over the stored window (line numbers as in the original log) and the status message."""
    logs = []
    if failure.text:
        ref = LogRef(
            input_label=failure.input_label,
            source=failure.source,
            attachment=failure.attachment,
            location=failure.location,
            rank=0,
        )
        scan = scan_text(failure.text, compiled, name=f"{failure.input_label}: {failure.source}")
        logs.append(ScannedLog(ref, _shifted(scan, failure.first_line - 1)))
    if failure.message:
        ref = LogRef(
            input_label=failure.input_label,
            source="",
            attachment="status message",
            location="result",
            rank=MESSAGE_RANK,
            inline_text=failure.message,
        )
        logs.append(ScannedLog(ref, scan_text(failure.message, compiled, name="status message")))
    test = TestCase(
        uuid=failure.test_uuid,
        name=failure.name,
        full_name="",
        status=Status.parse(failure.status),
        input_label=failure.input_label,
        message=failure.message,
    )
    verdict = decide(test, logs, compiled)
    if verdict.root_cause is None and test.status.is_failing:
        # as analyze does: the fatal-line family rules on the likely-cause line the picker chooses in what was kept
        texts = [text for text in (failure.text, failure.message) if text]
        cause = _fatal_line_cause(list(zip(logs, texts, strict=True)), failure.first_line - 1, compiled)
        if cause is not None:
            return replace(verdict, root_cause=cause, fingerprint=None)
    return verdict


def _fatal_line_cause(
    logs: list[tuple[ScannedLog, str]], offset: int, compiled: CompiledRules
) -> Finding | None:
    """A fatal-line rule's cause on the likely-cause line of the kept window (its lines numbered from `offset` + 1)
    or of the status message, chosen as `InputSession` chooses among a test's logs."""
    if not compiled.fatal_line_rules:
        return None
    from forensics.engine.likely import LikelyLine, choose_among_logs, pick_likely_cause

    chosen = choose_among_logs(
        ((log, offset if log.ref.inline_text is None else 0), pick_likely_cause(text.split("\n")))
        for log, text in logs
    )
    if chosen is None:
        return None
    (log, shift), picked = chosen
    excerpt = tuple(ExcerptLine(line.number + shift, line.text) for line in picked.excerpt)
    shifted = LikelyLine(picked.line + shift, picked.text, picked.reason, excerpt)
    return likely_line_cause(shifted, log.evidence, compiled)  # as InputSession tries the tiers


def _shifted(scan: LogScan, offset: int) -> LogScan:
    """The scan of a window as if of the whole log: every line number moved by `offset`."""
    if offset <= 0:
        return scan

    def line(excerpt: ExcerptLine) -> ExcerptLine:
        return ExcerptLine(excerpt.number + offset, excerpt.text)

    return LogScan(
        hits={
            probe: [
                replace(hit, line=hit.line + offset, excerpt=tuple(line(item) for item in hit.excerpt))
                for hit in hits
            ]
            for probe, hits in scan.hits.items()
        },
        counts=dict(scan.counts),
        last_error=line(scan.last_error) if scan.last_error else None,
        lines=scan.lines + offset,
        bytes_read=scan.bytes_read,
        truncated=scan.truncated,
        problems=list(scan.problems),
    )


def _move(failure: StoredFailure, verdict: Verdict, source: MoveSource) -> Move | None:
    cause = verdict.root_cause
    after_kind: GroupKind = "cause" if cause else "unexplained"
    after_key = cause.rule_id if cause else _fingerprint_key(verdict)
    change: MoveChange
    if failure.cause_kind == "cause" and cause is None:
        change = "lost"
    elif cause is None or (failure.cause_kind == "cause" and failure.cause_key == cause.rule_id):
        return None
    else:
        change = "changed" if failure.cause_kind == "cause" else "explained"
    return Move(
        test=failure.name,
        run_url=failure.run_url,
        run_at=datetime.fromtimestamp(failure.run_at, UTC),
        change=change,
        before_kind=failure.cause_kind,
        before_key=failure.cause_key,
        after_kind=after_kind,
        after_key=after_key,
        after_title=cause.title if cause else (verdict.fingerprint.masked if verdict.fingerprint else ""),
        source=source,
        applied=False,
    )


def _fingerprint_key(verdict: Verdict) -> str:
    return verdict.fingerprint.key if verdict.fingerprint else ""


def _apply(store: Store, failure: StoredFailure, verdict: Verdict) -> None:
    """Rewrite the test's cause and finding; the tickets recorded with it stay, the new rule's are added."""
    finding = finding_of(verdict)
    if finding is None:
        return
    finding = replace(finding, tickets=tuple(dict.fromkeys((*failure.tickets, *finding.tickets))))
    rewrite_finding(store, failure.test_pk, finding)
