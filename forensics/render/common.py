"""Wording shared by every human-readable format, so text, Markdown and annotations say the same thing."""

from __future__ import annotations

from forensics.model import Finding, Report, Verdict


def plural(count: int, noun: str) -> str:
    """`1 test`, `3 tests`."""
    return f"{count} {noun}{'' if count == 1 else 's'}"


def headline(report: Report) -> str:
    """`7 failing tests: 6 explained (86%), 1 unexplained` (or that nothing failed)."""
    failing = len(report.failing)
    total = len(report.verdicts)
    if failing == 0:
        return f"no failing tests ({plural(total, 'test')} read)"
    explained = report.explained_count
    share = round(100 * explained / failing)
    noun = "test" if failing == 1 else "tests"
    return (
        f"{failing} failing {noun}: {explained} explained ({share}%), {report.unexplained_count} unexplained"
    )


def explained_share(report: Report) -> float | None:
    """Explained failing tests as a fraction, None when nothing failed."""
    failing = len(report.failing)
    return round(report.explained_count / failing, 4) if failing else None


def distinct_summaries(members: list[Verdict]) -> list[tuple[str, list[Verdict]]]:
    """The root-cause summaries of a group, each with the tests that share it (numbers may differ per test)."""
    by_summary: dict[str, list[Verdict]] = {}
    for verdict in members:
        if verdict.root_cause is not None:
            by_summary.setdefault(verdict.root_cause.summary, []).append(verdict)
    return list(by_summary.items())


def evidence_place(finding: Finding) -> str:
    """`bash.log.txt line 212, fixture 'x' (teardown)`."""
    evidence = finding.evidence
    place = f"{evidence.attachment} line {evidence.line}"
    if evidence.location and evidence.location not in ("result", "file"):
        place += f", {evidence.location}"
    return place


def tickets_of(verdict: Verdict) -> str:
    """The test's ticket keys, comma separated."""
    return ", ".join(ticket.key for ticket in verdict.test.tickets)
