"""Failing tests as the store kept them — verdict, evidence text, where the artifact was — and how `reanalyze`
moves them (`Move`, `Reanalysis`)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from forensics.store.base import Store
from forensics.store.queries import VALID_TIME, Filters, json_items


@dataclass(frozen=True, slots=True)
class StoredFailure:
    """One recorded failing test with the evidence kept for it."""

    test_pk: int
    name: str
    status: str
    cause_kind: str
    cause_key: str
    tickets: tuple[tuple[str, str], ...]
    run_url: str
    run_at: int
    test_uuid: str
    input_path: str
    input_identity: str
    input_label: str
    source: str
    attachment: str
    location: str
    first_line: int
    text: str
    message: str


def stored_failures(store: Store, filters: Filters, *, since: int | None = None) -> list[StoredFailure]:
    """Every recorded failing test of the selected runs (recorded at or after `since`), oldest run first."""
    where, parameters = filters.where()
    if since is not None:
        where += " AND r.at >= ?"
        parameters.append(since)
    rows = store.query(
        "SELECT t.id, t.name, t.status, t.cause_kind, t.cause_key, f.tickets, r.run_url, r.at,"
        " e.test_uuid, e.input_path, e.input_identity, e.input_label, e.source, e.attachment, e.location, e.first_line, e.text,"
        " e.message"
        " FROM tests t JOIN runs r ON r.id = t.run"
        " LEFT JOIN findings f ON f.test = t.id LEFT JOIN evidence_logs e ON e.test = t.id"
        f" WHERE t.failing = 1 AND t.cause_key IS NOT NULL{VALID_TIME}{where} ORDER BY r.at, t.id",
        parameters,
    )
    failures = []
    for row in rows:
        pk, name, status, kind, key, tickets, run_url, run_at, *evidence = row
        uuid, path, identity, label, source, attachment, location, first_line, text, message = evidence
        failures.append(
            StoredFailure(
                test_pk=pk,
                name=name,
                status=status,
                cause_kind=kind,
                cause_key=key,
                tickets=tuple(
                    (str(item["key"]), str(item["url"])) for item in json_items(tickets, ("key", "url"))
                ),
                run_url=run_url,
                run_at=run_at,
                test_uuid=uuid or "",
                input_path=path or "",
                input_identity=identity or "",
                input_label=label or "",
                source=source or "",
                attachment=attachment or "",
                location=location or "",
                first_line=first_line or 1,
                text=text or "",
                message=message or "",
            )
        )
    return failures


@dataclass(frozen=True, slots=True)
class Move:
    """One failing test whose verdict is different under today's rules."""

    test: str
    run_url: str
    run_at: datetime
    change: str  # "explained" | "changed" | "lost"
    before_kind: str
    before_key: str
    after_kind: str
    after_key: str
    after_title: str
    source: str  # "artifact" or "evidence"
    applied: bool


@dataclass(frozen=True, slots=True)
class Reanalysis:
    """What `ci-forensics reanalyze` found."""

    rules_loaded: int
    examined: int
    from_artifacts: int
    from_evidence: int
    moves: tuple[Move, ...]

    @property
    def applied(self) -> int:
        """Moves written into the store."""
        return sum(1 for move in self.moves if move.applied)
