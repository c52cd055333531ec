"""Parse Allure 2 results (`*-result.json`, `*-container.json`) into `TestCase`s with their logs.

JSON never leaves this module. Follows the Allure 2 results model as the adapters write it: identity
from the `uuid` field, attachments in results, nested steps and fixture containers joined through
`children` (also container-of-container, as TestNG writes), retries folded by `historyId`, every field
optional.
"""

from __future__ import annotations

import fnmatch
import json
import posixpath
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from forensics.inputs.archive import Archive, parent_dir
from forensics.inputs.tickets import merge_tickets, tickets_from_links, tickets_in_text
from forensics.lazy_regex import LazyRegex
from forensics.model import Link, LogRef, Problem, Status, TestCase, Ticket
from forensics.values import MAX_TEXT_CHARS, BadValueError, epoch_milliseconds, text_of

DEFAULT_LOG_ATTACHMENTS: tuple[str, ...] = ("bash.log.txt", "*.log.txt", "*.log", "stdout", "stderr", "log")
MAX_JSON_BYTES = 16 * 1024 * 1024  # one result or container file; real ones are kilobytes
MAX_JSON_VALUES = 1_000_000  # objects, arrays and list items in one file: 22M `{}` would take gigabytes
MAX_TOTAL_JSON_VALUES = 4_000_000  # in all files of one input (a 10,000-test nightly holds about 1M)
MAX_ITEMS = 10_000  # labels, links, parameters, attachments or steps kept from one list
MAX_STEP_DEPTH = 64
# allure2 >= 2.38 accepts only plain file names as attachment sources; so do we.
_SAFE_SOURCE = LazyRegex(r"[A-Za-z0-9._-]{1,255}")
_RESULT_SUFFIX = "-result.json"
_CONTAINER_SUFFIX = "-container.json"
MESSAGE_RANK = 1_000_000
_HIDDEN_PARAMETER_MODES = frozenset({"masked", "hidden"})


@dataclass
class ReadResults:
    """The tests found in one archive and what went wrong reading it."""

    tests: list[TestCase] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class _Attachment:
    """A log attachment found for a test: where it is and how specific to the test it is."""

    name: str
    path: str  # resolved entry path inside the archive
    location: str
    specificity: int  # 0 step, 1 result, 2 container (+ wider containers rank later by shared_by)
    shared_by: int


def has_results(names: Iterable[str]) -> bool:
    """Whether a listing holds any Allure result file."""
    return any(name.endswith(_RESULT_SUFFIX) for name in names)


def read_allure(
    archive: Archive,
    *,
    log_attachments: Sequence[str] = DEFAULT_LOG_ATTACHMENTS,
    max_json_bytes: int = MAX_JSON_BYTES,
    max_json_values: int = MAX_JSON_VALUES,
    max_total_json_values: int = MAX_TOTAL_JSON_VALUES,
) -> ReadResults:
    """Every test in the archive (one per result set folder), latest execution of each retried test.

    Each file is its own fault boundary: whatever goes wrong reading one result becomes a problem naming it.
    """
    out = ReadResults()
    names = archive.names()
    present = set(names)
    folders: dict[str, list[str]] = defaultdict(list)
    for name in names:
        if name.endswith((_RESULT_SUFFIX, _CONTAINER_SUFFIX)):
            folders[parent_dir(name)].append(name)
    budget = _JsonBudget(max_json_bytes, max_json_values, max_total_json_values)
    for folder in sorted(folders):
        reader = _FolderReader(archive, folder, present, log_attachments, budget, out.problems)
        out.tests.extend(reader.read(folders[folder]))
    if budget.skipped:
        out.problems.append(
            Problem(
                object=archive.label,
                message=f"its result files hold more than {max_total_json_values:,} JSON values in all; "
                f"the last {budget.skipped} file(s) were not read",
                hint="split the results into several artifacts, or read them with a larger budget",
                severity="error",
            )
        )
    return out


@dataclass
class _JsonBudget:
    """How much JSON one input may parse: per file and in all (what the documents take until tests are built)."""

    max_bytes: int
    max_values: int
    total_left: int
    skipped: int = 0


class _FolderReader:
    """One flat allure-results folder: sources resolve relative to it."""

    def __init__(
        self,
        archive: Archive,
        folder: str,
        present: set[str],
        log_attachments: Sequence[str],
        budget: _JsonBudget,
        problems: list[Problem],
    ) -> None:
        self.archive = archive
        self.folder = folder
        self.present = present
        self.log_attachments = tuple(log_attachments)
        self.budget = budget
        self.max_json_bytes, self.max_json_values = budget.max_bytes, budget.max_values
        self.problems = problems

    def read(self, files: list[str]) -> list[TestCase]:
        results: list[tuple[str, dict[str, Any]]] = []
        containers: list[dict[str, Any]] = []
        for name in files:
            document = self.load_json(name)
            if document is None:
                continue
            if not text_of(document.get("uuid")):
                document["uuid"] = text_of(posixpath.basename(name).rsplit("-", 1)[0])
            if name.endswith(_RESULT_SUFFIX):
                results.append((name, document))
            else:
                containers.append(document)
        parents = _parent_map(containers)
        descendants = _result_counts(containers, {_text(r.get("uuid")) for _, r in results})
        tests = []
        for name, result in results:
            try:
                tests.append(self.test_case(result, parents, descendants, name))
            except Exception as err:  # one odd result is a problem, never the end of the run
                self.problems.append(
                    Problem(
                        object=f"{self.archive.label}: {text_of(name)}",
                        message=f"cannot read this result ({type(err).__name__}: {text_of(str(err), limit=200)}); skipped",
                        hint="the file does not follow the Allure format; check what wrote it",
                    )
                )
        return _fold_retries(tests)

    def load_json(self, name: str) -> dict[str, Any] | None:
        where = f"{self.archive.label}: {text_of(name)}"
        if self.budget.total_left <= 0:
            self.budget.skipped += 1
            return None
        try:
            with self.archive.open(name) as stream:
                raw = stream.read(self.max_json_bytes + 1)
        except Exception as err:  # zip CRC errors, truncated or encrypted entries, permission errors
            self.problems.append(
                Problem(
                    object=where,
                    message=f"cannot read: {text_of(str(err), limit=200)}",
                    hint="download the artifact again",
                )
            )
            return None
        if len(raw) > self.max_json_bytes:
            self.problems.append(
                Problem(
                    object=where,
                    message=f"larger than the {_mebibytes(self.max_json_bytes)} limit for one result file; skipped",
                    hint="raise --max-result-size if a real result is this large",
                )
            )
            return None
        values = raw.count(b"{") + raw.count(b"[") + raw.count(b",")  # an upper bound, counted before parsing
        if values > self.max_json_values:
            self.problems.append(
                Problem(
                    object=where,
                    message=f"holds up to {values:,} JSON values, more than the {self.max_json_values:,} "
                    "limit for one result file; skipped",
                    hint="the file does not look written by an Allure adapter; check what wrote it",
                )
            )
            return None
        self.budget.total_left -= values
        try:
            document = json.loads(raw.decode("utf-8", "replace"))
        except (json.JSONDecodeError, RecursionError, MemoryError) as err:
            self.problems.append(
                Problem(
                    object=where,
                    message=f"malformed JSON ({err}); this file was skipped",
                    hint="the test run may have been killed while writing it",
                )
            )
            return None
        if not isinstance(document, dict):
            self.problems.append(Problem(object=where, message="not a JSON object; skipped"))
            return None
        return document

    def test_case(
        self,
        result: dict[str, Any],
        parents: dict[str, list[dict[str, Any]]],
        descendants: dict[str, int],
        file_name: str,
    ) -> TestCase:
        uuid = _text(result.get("uuid"))
        name = _text(result.get("name")) or _text(result.get("fullName")) or uuid
        status = Status.parse(result.get("status"))
        raw_details = result.get("statusDetails")
        details: dict[str, Any] = raw_details if isinstance(raw_details, dict) else {}
        message = text_of(details.get("message"), limit=MAX_TEXT_CHARS)
        links = tuple(
            Link(
                type=_text(link.get("type")) or "link",
                name=_text(link.get("name")),
                url=_text(link.get("url")),
            )
            for link in _dicts(result.get("links"))
        )
        tickets: list[Ticket] = tickets_from_links(links)
        if status is Status.SKIPPED and message:
            tickets.extend(tickets_in_text(message, origin="skip-reason"))
        attachments = list(self.attachments_of(result, name))
        for container in _ancestors(uuid, parents):
            attachments.extend(self.container_attachments(container, descendants))
        logs = self.select_logs(attachments, name, uuid, status)
        return TestCase(
            uuid=uuid,
            name=name,
            full_name=_text(result.get("fullName")),
            status=status,
            input_label=self.archive.label,
            message=message,
            trace=text_of(details.get("trace"), limit=MAX_TEXT_CHARS),
            history_id=_text(result.get("historyId")) or _fallback_identity(result),
            links=links,
            tickets=merge_tickets(tickets),
            labels=tuple(
                (_text(label.get("name")), _text(label.get("value")))
                for label in _dicts(result.get("labels"))
            ),
            parameters=tuple(
                (
                    _text(parameter.get("name")),
                    "***"
                    if _text(parameter.get("mode")) in _HIDDEN_PARAMETER_MODES
                    else _text(parameter.get("value")),
                )
                for parameter in _dicts(result.get("parameters"))
            ),
            start=self.time(result, "start", file_name, uuid),
            stop=self.time(result, "stop", file_name, uuid),
            logs=logs,
        )

    def time(self, result: dict[str, Any], field_name: str, file_name: str, uuid: str) -> int | None:
        """A start or stop time; one that no date can hold is a problem and left out."""
        try:
            return epoch_milliseconds(result.get(field_name), field=f'"{field_name}"')
        except BadValueError as err:
            self.problems.append(
                Problem(
                    object=f"{self.archive.label}: {text_of(file_name)}",
                    message=f"{err}; ignored",
                    hint="the adapter wrote a broken time; the test is read without it",
                    test=uuid,
                )
            )
            return None

    def attachments_of(self, item: dict[str, Any], test_name: str) -> Iterable[_Attachment]:
        for attachment in _dicts(item.get("attachments")):
            resolved = self.resolve(attachment, test_name)
            if resolved is not None:
                yield _Attachment(resolved[0], resolved[1], "result", 1, 1)
        yield from self.step_attachments(item.get("steps"), (), test_name, specificity=0, shared_by=1)

    def step_attachments(
        self,
        steps: object,
        trail: tuple[str, ...],
        test_name: str,
        *,
        specificity: int,
        shared_by: int,
        prefix: str = "step",
    ) -> Iterable[_Attachment]:
        if len(trail) >= MAX_STEP_DEPTH:
            return
        for step in _dicts(steps):
            here = (*trail, _text(step.get("name")) or "?")
            location = f"{prefix} " + " › ".join(f"'{part}'" for part in here)
            for attachment in _dicts(step.get("attachments")):
                resolved = self.resolve(attachment, test_name)
                if resolved is not None:
                    yield _Attachment(resolved[0], resolved[1], location, specificity, shared_by)
            yield from self.step_attachments(
                step.get("steps"),
                here,
                test_name,
                specificity=specificity,
                shared_by=shared_by,
                prefix=prefix,
            )

    def container_attachments(
        self, container: dict[str, Any], descendants: dict[str, int]
    ) -> Iterable[_Attachment]:
        shared_by = max(1, descendants.get(_text(container.get("uuid")), 1))
        for phase, key in (("setup", "befores"), ("teardown", "afters")):
            for fixture in _dicts(container.get(key)):
                fixture_name = _text(fixture.get("name")) or "?"
                location = f"fixture '{fixture_name}' ({phase})"
                for attachment in _dicts(fixture.get("attachments")):
                    resolved = self.resolve(attachment, fixture_name)
                    if resolved is not None:
                        yield _Attachment(resolved[0], resolved[1], location, 2, shared_by)
                yield from self.step_attachments(
                    fixture.get("steps"),
                    (),
                    fixture_name,
                    specificity=2,
                    shared_by=shared_by,
                    prefix=f"fixture '{fixture_name}' ({phase}) step",
                )

    def resolve(self, attachment: dict[str, Any], owner: str) -> tuple[str, str] | None:
        name = _text(attachment.get("name")) or _text(attachment.get("source"))
        source = _text(attachment.get("source"))
        if not _SAFE_SOURCE.fullmatch(source) or source in (".", ".."):
            self.problems.append(
                Problem(
                    object=f"{self.archive.label}: attachment '{name}' of '{owner}'",
                    message=f"source {source!r} is not a plain file name; ignored",
                    hint="Allure only reads attachments that sit beside the result files",
                )
            )
            return None
        return name, posixpath.join(self.folder, source) if self.folder else source

    def select_logs(
        self, attachments: list[_Attachment], test_name: str, uuid: str, status: Status
    ) -> tuple[LogRef, ...]:
        chosen: list[tuple[tuple[int, int, int, int], _Attachment]] = []
        seen: set[str] = set()
        for order, attachment in enumerate(attachments):
            priority = _log_priority(attachment.name, self.log_attachments)
            if priority is None or attachment.path in seen:
                continue
            seen.add(attachment.path)
            if attachment.path not in self.present:
                if status.is_failing:
                    self.problems.append(
                        Problem(
                            object=f"{self.archive.label}: attachment '{attachment.name}' of '{test_name}'",
                            message=f"file '{attachment.path}' is missing from the results",
                            hint="the upload may have been cut short (if-no-files-found, job killed); re-run the job",
                            test=uuid,
                        )
                    )
                continue
            chosen.append(((priority, attachment.specificity, attachment.shared_by, order), attachment))
        chosen.sort(key=lambda item: item[0])
        return tuple(
            LogRef(
                input_label=self.archive.label,
                source=attachment.path,
                attachment=attachment.name,
                location=attachment.location,
                rank=rank,
                shared_by=attachment.shared_by,
            )
            for rank, (_key, attachment) in enumerate(chosen)
        )


def _log_priority(name: str, patterns: Sequence[str]) -> int | None:
    for index, pattern in enumerate(patterns):
        if fnmatch.fnmatchcase(name, pattern):
            return index
    return None


def _parent_map(containers: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    parents: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for container in containers:
        for child in _children(container):
            parents[child].append(container)
    return parents


def _children(container: dict[str, Any]) -> list[str]:
    """The uuids a container names (`"children": 5` or a list of objects names none)."""
    children = container.get("children")
    if not isinstance(children, list):
        return []
    return [_text(child) for child in children[:MAX_ITEMS] if isinstance(child, str)]


def _ancestors(uuid: str, parents: dict[str, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """Containers of the result, then their containers (TestNG nests them), each once."""
    found: list[dict[str, Any]] = []
    seen: set[int] = set()
    frontier = [uuid]
    while frontier:
        next_frontier = []
        for child in frontier:
            for container in parents.get(child, ()):
                if id(container) not in seen:
                    seen.add(id(container))
                    found.append(container)
                    next_frontier.append(_text(container.get("uuid")))
        frontier = next_frontier
    return found


def _result_counts(containers: list[dict[str, Any]], result_uuids: set[str]) -> dict[str, int]:
    """How many results sit below each container: how widely its logs are shared."""
    children = {_text(c.get("uuid")): _children(c) for c in containers}
    counts: dict[str, int] = {}

    def count(uuid: str, depth: int) -> int:
        if uuid in counts:
            return counts[uuid]
        if depth > 50:
            return 0
        total = sum(
            1 if child in result_uuids else count(child, depth + 1) for child in children.get(uuid, ())
        )
        counts[uuid] = total
        return total

    for uuid in children:
        count(uuid, 0)
    return counts


def _fold_retries(tests: list[TestCase]) -> list[TestCase]:
    """Keep the latest execution of each test; remember how often and how it ran before."""
    groups: dict[str, list[TestCase]] = defaultdict(list)
    for test in tests:
        groups[test.history_id or test.uuid].append(test)
    folded = []
    for executions in groups.values():
        executions.sort(key=lambda t: (t.stop or t.start or 0, t.start or 0))
        latest = executions[-1]
        if len(executions) > 1:
            latest = replace(
                latest,
                retries=len(executions) - 1,
                previous_statuses=tuple(t.status for t in executions[:-1]),
            )
        folded.append(latest)
    folded.sort(key=lambda t: (t.start or 0, t.full_name, t.name))
    return folded


def _fallback_identity(result: dict[str, Any]) -> str:
    parameters = sorted(
        f"{_text(p.get('name'))}={_text(p.get('value'))}"
        for p in _dicts(result.get("parameters"))
        if not p.get("excluded")
    )
    base = _text(result.get("testCaseId")) or _text(result.get("fullName"))
    if not base:
        return ""
    return base + ("[" + ",".join(parameters) + "]" if parameters else "") + "|" + _text(result.get("name"))


def _dicts(value: object) -> list[dict[str, Any]]:
    """The objects of a JSON list (at most MAX_ITEMS of them)."""
    if not isinstance(value, list):
        return []
    return [item for item in value[:MAX_ITEMS] if isinstance(item, dict)]


def _text(value: object) -> str:
    """A name-like field as clean, bounded text (see values.py)."""
    return text_of(value)


def _mebibytes(size: int) -> str:
    return f"{size / (1024 * 1024):g} MiB"
