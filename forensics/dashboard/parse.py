"""Read the dashboard document (a mapping, as `dashboard_data` returns it or `data.json` holds it) into the model."""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from forensics.dashboard.model import (
    CAUSE,
    UNEXPLAINED,
    Cause,
    Counts,
    Dashboard,
    Day,
    EnvironmentShare,
    Evidence,
    Example,
    ExcerptLine,
    Matrix,
    MatrixRow,
    Sighting,
    Ticket,
    Totals,
)
from forensics.errors import ResultsError
from forensics.inputs.archive import open_regular

MAX_DATA_BYTES = 512 * 1024 * 1024  # a data.json of years of nightlies is a few MiB

SUPPORTED_MAJOR = "1"
_HINT = (
    "build the document with forensics.store.dashboard.dashboard_data(), "
    "or use a data.json written by `ci-forensics dashboard`"
)


class _Node:
    """A value of the document with its path, so every complaint names the field."""

    __slots__ = ("path", "source", "value")

    def __init__(self, value: Any, path: str, source: str) -> None:
        self.value = value
        self.path = path
        self.source = source

    def fail(self, problem: str) -> ResultsError:
        where = f" {self.path}" if self.path else ""
        return ResultsError(f"{self.source}:{where} {problem}", hint=_HINT)

    def field(self, key: str) -> _Node:
        mapping = self.mapping()
        if key not in mapping:
            raise self.fail(f"has no {key!r}")
        return _Node(mapping[key], f"{self.path}.{key}" if self.path else key, self.source)

    def optional(self, key: str) -> _Node:
        mapping = self.mapping()
        return _Node(mapping.get(key), f"{self.path}.{key}" if self.path else key, self.source)

    def mapping(self) -> Mapping[str, Any]:
        if not isinstance(self.value, Mapping):
            raise self.fail(f"should be an object, not {type(self.value).__name__}")
        return self.value

    def items(self) -> list[_Node]:
        if self.value is None:
            return []
        if not isinstance(self.value, list | tuple):
            raise self.fail(f"should be a list, not {type(self.value).__name__}")
        return [_Node(item, f"{self.path}[{index}]", self.source) for index, item in enumerate(self.value)]

    def text(self) -> str:
        if not isinstance(self.value, str):
            raise self.fail(f"should be a string, not {type(self.value).__name__}")
        return self.value

    def text_or_empty(self) -> str:
        return "" if self.value is None else self.text()

    def integer(self) -> int:
        if isinstance(self.value, bool) or not isinstance(self.value, int):
            raise self.fail(f"should be an integer, not {self.value!r}")
        return self.value

    def integer_or_none(self) -> int | None:
        return None if self.value is None else self.integer()

    def share(self) -> float:
        if isinstance(self.value, bool) or not isinstance(self.value, int | float):
            raise self.fail(f"should be a number, not {self.value!r}")
        return float(self.value)

    def share_or_none(self) -> float | None:
        return None if self.value is None else self.share()

    def timestamp(self) -> datetime:
        try:
            moment = datetime.fromisoformat(self.text())
        except ValueError:
            raise self.fail(f"{self.value!r} is not an ISO 8601 time") from None
        # A time without an offset comes from a store that writes UTC.
        return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)

    def day(self) -> date:
        try:
            return date.fromisoformat(self.text())
        except ValueError:
            raise self.fail(f"{self.value!r} is not a date (YYYY-MM-DD)") from None

    def counts_by_name(self) -> tuple[tuple[str, int], ...]:
        return tuple(
            (str(name), _Node(count, f"{self.path}[{name!r}]", self.source).integer())
            for name, count in self.mapping().items()
        )


def read_data_file(path: Path) -> dict[str, Any]:
    """A saved dashboard document (`data.json`) as a mapping; a `ResultsError` when it cannot be read as one."""
    try:
        with open_regular(path) as stream:  # a FIFO given as --data would block a plain read forever
            raw = stream.read(MAX_DATA_BYTES + 1)
        if len(raw) > MAX_DATA_BYTES:
            raise ResultsError(
                f"dashboard data {path} is larger than {MAX_DATA_BYTES >> 20} MiB", hint="check the file"
            )
        text = raw.decode("utf-8")
    except FileNotFoundError:
        raise ResultsError(
            f"dashboard data {path} does not exist",
            hint="pass the data.json an earlier `ci-forensics dashboard` wrote, or build from the store with --store",
        ) from None
    except (OSError, UnicodeDecodeError) as err:
        raise ResultsError(f"cannot read dashboard data {path}: {err}", hint="check the file") from err
    try:
        document = json.loads(text)
    except json.JSONDecodeError as err:
        raise ResultsError(
            f"dashboard data {path} is not JSON: {err.msg} at line {err.lineno}, column {err.colno}",
            hint=_HINT,
        ) from err
    if not isinstance(document, dict):
        raise ResultsError(f"dashboard data {path} is not a JSON object", hint=_HINT)
    return document


def parse_dashboard(data: Mapping[str, Any], *, source: str = "dashboard data") -> Dashboard:
    """The document as a `Dashboard`; a `ResultsError` naming the field when it does not fit schema 1.x."""
    root = _Node(data, "", source)
    version = root.field("schema_version").text()
    if version.split(".")[0] != SUPPORTED_MAJOR:
        raise ResultsError(
            f"{source}: schema_version {version} is not supported (this ci-forensics reads {SUPPORTED_MAJOR}.x)",
            hint="upgrade ci-forensics, or build the data with the ci-forensics that will render it",
        )
    totals = root.field("totals")
    matrix = root.field("matrix")
    return Dashboard(
        schema_version=version,
        generated_at=root.field("generated_at").timestamp(),
        window_days=root.field("window_days").integer(),
        totals=Totals(
            runs=totals.field("runs").integer(),
            jobs=totals.field("jobs").integer(),
            failing_tests=totals.field("failing_tests").integer(),
            explained=totals.field("explained").integer(),
            explained_share=totals.optional("explained_share").share_or_none(),
        ),
        days=tuple(_day(node) for node in root.field("days").items()),
        causes=_causes(root.field("causes")),
        matrix=Matrix(
            dimension=matrix.field("dimension").text(),
            columns=tuple(node.text() for node in matrix.field("columns").items()),
            rows=tuple(
                MatrixRow(
                    key=row.field("key").text(),
                    title=row.field("title").text(),
                    cells=row.field("cells").counts_by_name(),
                )
                for row in matrix.field("rows").items()
            ),
        ),
    )


def _day(node: _Node) -> Day:
    return Day(
        date=node.field("date").day(),
        failures=node.field("failures").integer(),
        explained=node.field("explained").integer(),
        by_cause=node.field("by_cause").counts_by_name(),
    )


def _causes(node: _Node) -> tuple[Cause, ...]:
    causes: dict[str, Cause] = {}
    for item in node.items():
        cause = _cause(item)
        if cause.key in causes:
            raise item.field("key").fail(f"{cause.key!r} appears twice in causes")
        causes[cause.key] = cause
    return tuple(causes.values())


def _cause(node: _Node) -> Cause:
    kind = node.field("kind").text()
    if kind not in (CAUSE, UNEXPLAINED):
        raise node.field("kind").fail(f"should be {CAUSE!r} or {UNEXPLAINED!r}, not {kind!r}")
    counts = node.field("counts")
    return Cause(
        key=node.field("key").text(),
        kind=kind,
        title=node.field("title").text(),
        category=node.optional("category").text_or_empty() or None,
        advice=node.optional("advice").text_or_empty(),
        first_seen=_sighting(node.field("first_seen")),
        last_seen=_sighting(node.field("last_seen")),
        counts=Counts(
            last_24h=counts.field("24h").integer(),
            last_7d=counts.field("7d").integer(),
            last_30d=counts.field("30d").integer(),
            total=counts.field("total").integer(),
        ),
        tests=tuple(test.text() for test in node.optional("tests").items()),
        tickets=tuple(
            Ticket(key=ticket.field("key").text(), url=ticket.optional("url").text_or_empty())
            for ticket in node.optional("tickets").items()
        ),
        environment=tuple(
            EnvironmentShare(
                dimension=share.field("dimension").text(),
                value=share.field("value").text(),
                hits=share.field("hits").integer(),
                hit_share=share.field("hit_share").share(),
                run_share=share.field("run_share").share(),
            )
            for share in node.optional("environment").items()
        ),
        examples=tuple(_example(example) for example in node.optional("examples").items()),
    )


def _sighting(node: _Node) -> Sighting:
    return Sighting(
        at=node.field("at").timestamp(),
        run_id=node.optional("run_id").integer_or_none(),
        run_url=node.optional("run_url").text_or_empty(),
        head_sha=node.optional("head_sha").text_or_empty(),
    )


def _example(node: _Node) -> Example:
    evidence = node.optional("evidence")
    return Example(
        test=node.field("test").text(),
        run_id=node.optional("run_id").integer_or_none(),
        run_url=node.optional("run_url").text_or_empty(),
        at=node.field("at").timestamp(),
        summary=node.optional("summary").text_or_empty(),
        evidence=None if evidence.value is None else _evidence(evidence),
    )


def _evidence(node: _Node) -> Evidence:
    return Evidence(
        attachment=node.optional("attachment").text_or_empty(),
        line=node.field("line").integer(),
        text=node.field("text").text(),
        excerpt=tuple(
            ExcerptLine(number=line.field("line").integer(), text=line.field("text").text())
            for line in node.optional("excerpt").items()
        ),
    )
