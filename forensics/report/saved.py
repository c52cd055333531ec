"""Saved JSON reports (`--format json`) read back: the one place that recognises one.

`load_saved_report` gives the raw document (rule tools read it as data); `load_report` rebuilds the
`Report` model from it, so annotate, record and reanalyze work on a report saved by an earlier run.
A saved report is input like any other: its size is bounded, each test is its own fault boundary (a
damaged one is left out with a problem), and times and names are checked as the Allure reader checks them.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from forensics.errors import ResultsError
from forensics.inputs.archive import open_regular
from forensics.model import (
    Category,
    EnvironmentFacts,
    Evidence,
    EvidenceWindow,
    ExcerptLine,
    Finding,
    Fingerprint,
    FoundBy,
    Group,
    InputInfo,
    JobContext,
    LikelyCause,
    LikelyReason,
    Link,
    LogRef,
    Problem,
    Report,
    RuleKind,
    RunContext,
    Status,
    TestCase,
    Ticket,
    Verdict,
)
from forensics.report.evidence import MAX_WINDOW_BYTES
from forensics.values import MAX_TEXT_CHARS, BadValueError, count_of, epoch_milliseconds, text_of

_HINT = "pass a file written by `ci-forensics analyze --format json` (or `fetch --format json`)"
MAX_REPORT_BYTES = 512 * 1024 * 1024
_DAMAGED = (KeyError, TypeError, ValueError, AttributeError)


def load_saved_report(path: str | os.PathLike[str], *, max_bytes: int = MAX_REPORT_BYTES) -> dict[str, Any]:
    """The report's JSON document; ResultsError when the file is not a schema 1.x report."""
    path = Path(path)
    try:
        with open_regular(path) as stream:
            raw = stream.read(max_bytes + 1)
        if len(raw) > max_bytes:
            raise ResultsError(
                f"report '{path}' is larger than {max_bytes // (1024 * 1024)} MiB; it was not read",
                hint=_HINT,
            )
        document = json.loads(raw.decode("utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError) as err:
        raise ResultsError(f"cannot read report '{path}': {err}", hint=_HINT) from err
    if not isinstance(document, dict) or not str(document.get("schema_version", "")).startswith("1."):
        raise ResultsError(f"'{path}' is not a ci-forensics JSON report (schema 1.x)", hint=_HINT)
    return document


def saved_report_at(path: str) -> dict[str, Any] | None:
    """The saved JSON report at `path`, or None when it is not one (then it is read as results or a log)."""
    if not path.endswith(".json") or not Path(path).is_file():
        return None
    try:
        return load_saved_report(Path(path))
    except ResultsError:
        return None


def load_report(path: str | os.PathLike[str]) -> Report:
    """The Report model of a saved JSON report; ResultsError naming the file when it does not parse."""
    document = load_saved_report(path)
    try:
        return report_from_dict(document)
    except _DAMAGED as err:
        raise ResultsError(f"report '{path}' is damaged: {err!r}", hint=_HINT) from err


def report_from_dict(document: dict[str, Any]) -> Report:
    """Inverse of `render.json_report.report_to_dict` (fields the JSON does not carry get defaults).

    A damaged test is left out with a problem naming it, and so is its place in the groups.
    """
    context = document.get("context")
    damaged: list[Problem] = []
    verdicts = []
    for number, test in enumerate(_list(document.get("tests", [])), start=1):
        try:
            verdicts.append(_verdict(test, damaged))
        except _DAMAGED as err:
            damaged.append(
                Problem(
                    object=f"saved report: test {number}",
                    message=f"damaged ({text_of(repr(err), limit=200)}); left out",
                    hint=_HINT,
                )
            )
    known = {verdict.test.uuid for verdict in verdicts}
    return Report(
        inputs=tuple(
            InputInfo(
                path=item["path"],
                kind=item["kind"],
                label=item["label"],
                tests=int(item.get("tests", 0)),
                job_id=item.get("job_id"),
                stage=item.get("stage") or "",
                artifact=item.get("artifact") or "",
                identity=text_of(item.get("identity") or ""),
                environment=_environment(item.get("environment")),
            )
            for item in document.get("inputs", [])
        ),
        verdicts=tuple(verdicts),
        groups=tuple(
            Group(
                kind=group["kind"],
                key=group["key"],
                title=group["title"],
                category=_group_category(group.get("category")),
                test_uuids=tuple(uuid for uuid in group["tests"] if uuid in known),
            )
            for group in document.get("groups", [])
            if any(uuid in known for uuid in group["tests"])
        ),
        problems=(*(_problem(problem) for problem in document.get("problems", [])), *damaged),
        rules_loaded=int(document.get("summary", {}).get("rules_loaded", 0)),
        context=_context(context) if isinstance(context, dict) and context.get("run_id") else None,
    )


def _context(data: dict[str, Any]) -> RunContext:
    return RunContext(
        provider=data.get("provider", "github"),
        repository=data["repository"],
        run_id=int(data["run_id"]),
        workflow=data.get("workflow", ""),
        workflow_path=data.get("workflow_path", ""),
        run_attempt=int(data.get("run_attempt", 1)),
        run_url=data.get("run_url", ""),
        head_sha=data.get("head_sha", ""),
        branch=data.get("branch", ""),
        event=data.get("event", ""),
        created_at=data.get("created_at", ""),
        jobs=tuple(
            JobContext(
                job_id=int(job["id"]),
                name=job["name"],
                url=job.get("url", ""),
                conclusion=job.get("conclusion", ""),
                runner_name=job.get("runner_name", ""),
                runner_labels=tuple(job.get("runner_labels", [])),
                failed_steps=tuple(job.get("failed_steps", [])),
                started_at=job.get("started_at", ""),
                completed_at=job.get("completed_at", ""),
            )
            for job in data.get("jobs", [])
        ),
    )


def _verdict(data: dict[str, Any], problems: list[Problem]) -> Verdict:
    fingerprint = data.get("fingerprint")
    root_cause = data.get("root_cause")
    uuid = _required_text(data["id"])
    test = TestCase(
        uuid=uuid,
        name=_required_text(data["name"]),
        full_name=text_of(data.get("full_name", "")),
        status=Status.parse(data.get("status")),
        input_label=text_of(data.get("input", "")),
        message=text_of(data.get("message", ""), limit=MAX_TEXT_CHARS),
        history_id=text_of(data.get("history_id") or ""),
        links=tuple(
            Link(type=link["type"], name=link.get("name", ""), url=link.get("url", ""))
            for link in data.get("links", [])
        ),
        tickets=tuple(
            Ticket(system=t["system"], key=t["key"], url=t.get("url") or "", origin=t.get("origin", "link"))
            for t in data.get("tickets", [])
        ),
        labels=tuple((label["name"], label["value"]) for label in data.get("labels", [])),
        parameters=tuple((param["name"], param["value"]) for param in data.get("parameters", [])),
        start=_time(data, "start", uuid, problems),
        stop=_time(data, "stop", uuid, problems),
        retries=count_of(data.get("retries"), field="retries"),
        previous_statuses=tuple(Status.parse(status) for status in data.get("previous_statuses", [])),
        logs=tuple(
            LogRef(
                input_label=data.get("input", ""),
                source=log.get("source", ""),
                attachment=log.get("attachment", ""),
                location=log.get("location", ""),
                rank=rank,
            )
            for rank, log in enumerate(data.get("logs", []))
        ),
        origin=data.get("origin", "allure"),
    )
    return Verdict(
        test=test,
        root_cause=_finding(root_cause) if root_cause else None,
        symptoms=tuple(_finding(symptom) for symptom in data.get("symptoms", [])),
        fingerprint=_fingerprint(fingerprint) if fingerprint else None,
        likely_cause=_likely_cause(data.get("likely_cause")),
        window=_window(data.get("evidence_window")),
    )


def _environment(data: Any) -> EnvironmentFacts:
    """An input's GPU facts (schema 1.3); none in older reports."""
    if not isinstance(data, dict):
        return EnvironmentFacts()
    return EnvironmentFacts(
        gpu_model=text_of(data.get("gpu_model") or ""), gpu_memory=text_of(data.get("gpu_memory") or "")
    )


def _window(data: Any) -> EvidenceWindow | None:
    """A failing test's evidence window (schema 1.3); None in older reports."""
    if not isinstance(data, dict):
        return None
    return EvidenceWindow(
        source=text_of(data.get("source") or ""),
        attachment=text_of(data.get("attachment") or ""),
        location=text_of(data.get("location") or ""),
        first_line=count_of(data.get("first_line", 0), field="first_line"),
        text=text_of(data.get("text") or "", limit=MAX_WINDOW_BYTES),
    )


def _likely_cause(data: Any) -> LikelyCause | None:
    """The likely cause of an unexplained test (schema 1.2); None in older reports."""
    known = {reason.value for reason in LikelyReason}
    if (
        not isinstance(data, dict)
        or not isinstance(data.get("evidence"), dict)
        or data.get("reason") not in known
    ):
        return None  # a reason this version does not word: the pointer is not shown rather than misnamed
    return LikelyCause(reason=LikelyReason(data["reason"]), evidence=_evidence(data["evidence"]))


def _list(value: object) -> list[Any]:
    if not isinstance(value, list):
        raise TypeError(f"expected a list, not {type(value).__name__}")
    return value


def _required_text(value: object) -> str:
    if not isinstance(value, str):
        raise TypeError(f"expected text, not {type(value).__name__}")
    return text_of(value)


def _time(data: dict[str, Any], field: str, uuid: str, problems: list[Problem]) -> int | None:
    try:
        return epoch_milliseconds(data.get(field), field=f'"{field}"')
    except BadValueError as err:
        problems.append(Problem(object=f"saved report: test '{uuid}'", message=f"{err}; ignored", test=uuid))
        return None


def _finding(data: dict[str, Any]) -> Finding:
    return Finding(
        rule_id=data["rule"],
        title=data["title"],
        category=Category(data["category"]),
        kind=RuleKind(data["kind"]),
        summary=data.get("summary", ""),
        advice=data.get("advice", ""),
        fields=tuple(data.get("fields", {}).items()),
        evidence=_evidence(data["evidence"]),
        tickets=tuple(data.get("tickets", [])),
        found_by=_found_by(data.get("found_by")),
    )


def _found_by(data: Any) -> FoundBy:
    """How a finding was found (schema 1.5); a report before it, or a value this version does not word, was a scan."""
    known = {found_by.value: found_by for found_by in FoundBy}
    return known.get(data, FoundBy.SCAN) if isinstance(data, str) else FoundBy.SCAN


def _evidence(data: dict[str, Any]) -> Evidence:
    return Evidence(
        attachment=data.get("attachment", ""),
        line=int(data.get("line", 0)),
        text=data.get("text", ""),
        location=data.get("location", ""),
        source=data.get("source", ""),
        excerpt=tuple(ExcerptLine(number=int(e["line"]), text=e["text"]) for e in data.get("excerpt", [])),
    )


def _fingerprint(data: dict[str, Any]) -> Fingerprint:
    evidence = data.get("evidence")
    return Fingerprint(
        key=data["key"],
        masked=data.get("masked", ""),
        line=data.get("line", ""),
        evidence=_evidence(evidence) if evidence else None,
    )


def _problem(data: dict[str, Any]) -> Problem:
    return Problem(
        object=data.get("object", ""),
        message=data.get("message", ""),
        hint=data.get("hint") or "",
        severity=data.get("severity", "warning"),
        test=data.get("test") or "",
    )


def _group_category(value: object) -> Category | None:
    """A group's category as saved (null for an unexplained group); one this version does not know is none."""
    known = {category.value for category in Category}
    return Category(value) if isinstance(value, str) and value in known else None
