"""The data model shared by readers, the engine and renderers: frozen, slotted, tuples not lists."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Literal

Value = int | float | str
"""A captured or derived value: numbers stay numbers so renderers and dashboards can compute."""

# The closed sets of the model, each defined once: mypy catches a typo in any of them.
TicketSystem = Literal["linear", "jira", "github"]
TICKET_SYSTEMS: tuple[TicketSystem, ...] = ("linear", "jira", "github")
TicketOrigin = Literal["link", "skip-reason", "rule", "option"]
TestOrigin = Literal["allure", "log"]  # a plain log is analysed as one failing item
Severity = Literal["warning", "error"]
GroupKind = Literal["cause", "unexplained"]  # also the kind of a stored finding
RETURNING_AFTER_RUNS = 3
"""A cause back after this many runs of its series without it is `returning` (else it just recurs); the
step summary, ticket comments and dashboard default (`--returning-after`)."""
InputKind = Literal["directory", "zip", "log", "stdin"]


class Status(StrEnum):
    """A test outcome as Allure records it; anything unrecognised becomes `unknown`."""

    PASSED = "passed"
    FAILED = "failed"
    BROKEN = "broken"
    SKIPPED = "skipped"
    UNKNOWN = "unknown"

    @classmethod
    def parse(cls, raw: object) -> Status:
        """Normalise Allure's status field (any case, null, invalid) to a Status."""
        if isinstance(raw, str):
            try:
                return cls(raw.strip().lower())
            except ValueError:
                return cls.UNKNOWN
        return cls.UNKNOWN

    @property
    def is_failing(self) -> bool:
        """Failed and broken both count: allure-pytest reports any non-assert exception as broken."""
        return self in (Status.FAILED, Status.BROKEN)


class Category(StrEnum):
    """Who should act on a root cause."""

    INFRASTRUCTURE = "infrastructure"
    DEPENDENCY = "dependency"
    PRODUCT = "product"
    TEST = "test"
    EXTERNAL_SERVICE = "external-service"


class RuleKind(StrEnum):
    """A cause can be a root cause; a symptom (a wrapper error) never wins over a cause."""

    CAUSE = "cause"
    SYMPTOM = "symptom"


class RuleScope(StrEnum):
    """Which lines a rule is tried on: every line of every log (the scan), or only the line the likely-cause picker
    chose for a failing test no other rule explains (a fatal-line family rule, engine/fatal_line.py)."""

    EVERY_LINE = "every-line"
    LIKELY_CAUSE = "likely-cause"


class FoundBy(StrEnum):
    """How a finding was found; shown as it is worded here (only a fatal-line or learned finding says it)."""

    SCAN = "rule matched while scanning the logs"
    FATAL_LINE = "fatal-line family rule on the likely-cause line"
    LEARNED = "learned word model on the likely-cause line; no rule matched"


@dataclass(frozen=True, slots=True)
class Link:
    """An Allure link as written by the adapter (`url` and `name` may be swapped by users)."""

    type: str
    name: str
    url: str


@dataclass(frozen=True, slots=True)
class Ticket:
    """A ticket a test points to: a Linear/Jira key, a GitHub issue or pull request."""

    system: TicketSystem
    key: str  # "OPS-4445", "ai-dynamo/dynamo#8443" or "#8443" (repository unknown)
    url: str = ""
    origin: TicketOrigin = "link"


@dataclass(frozen=True, slots=True)
class LogRef:
    """One log a test can be explained by: where it is and how it ranks among the test's logs."""

    input_label: str
    source: str  # entry path inside the input; "" for text kept inline (status message, trace)
    attachment: str  # the attachment name shown to users, e.g. "bash.log.txt"
    location: str  # "result", "step 'wait for server ready'", "fixture 'oom_server::1' (teardown)"
    rank: int  # lower is searched first and preferred on ties
    inline_text: str | None = None
    shared_by: int = 1  # how many tests share this log (container logs)

    @property
    def key(self) -> tuple[str, str, str]:
        """Identity for scanning each log once, however many tests share it."""
        if self.inline_text is not None:
            return (self.input_label, self.location, self.inline_text)
        return (self.input_label, self.source, "")


@dataclass(frozen=True, slots=True)
class TestCase:
    """One test execution as read from the results (the latest one, when retried)."""

    __test__ = False  # not a pytest class

    uuid: str
    name: str
    full_name: str
    status: Status
    input_label: str
    message: str = ""
    trace: str = ""
    history_id: str = ""
    links: tuple[Link, ...] = ()
    tickets: tuple[Ticket, ...] = ()
    labels: tuple[tuple[str, str], ...] = ()
    parameters: tuple[tuple[str, str], ...] = ()
    start: int | None = None
    stop: int | None = None
    retries: int = 0
    previous_statuses: tuple[Status, ...] = ()
    logs: tuple[LogRef, ...] = ()
    origin: TestOrigin = "allure"


@dataclass(frozen=True, slots=True)
class ExcerptLine:
    """A line of a log excerpt with its original 1-based number."""

    number: int
    text: str


@dataclass(frozen=True, slots=True)
class Evidence:
    """The line that proves a finding, kept as it was in the log, with a few lines around it."""

    attachment: str
    line: int
    text: str
    location: str = ""
    source: str = ""
    excerpt: tuple[ExcerptLine, ...] = ()


@dataclass(frozen=True, slots=True)
class Finding:
    """A rule that matched a test's logs, with its filled summary and the values it captured."""

    rule_id: str
    title: str
    category: Category
    kind: RuleKind
    summary: str
    advice: str
    fields: tuple[tuple[str, Value], ...]
    evidence: Evidence
    tickets: tuple[str, ...] = ()
    # a fatal-line rule's cause stands on the likely-cause line it was tried on (engine/fatal_line.py)
    found_by: FoundBy = FoundBy.SCAN


@dataclass(frozen=True, slots=True)
class Fingerprint:
    """A stable key for an unexplained failure: its last error line with volatile parts masked."""

    key: str
    masked: str
    line: str
    evidence: Evidence | None = None


LEARNED_WORDS = "learned_words"  # a learned finding's value: the words that decided it (engine/learned.py)
LIKELY_CAUSE_LABEL = "Likely cause (no rule)"  # how every format names it: a pointer, never a root cause
REDACTED = "[REDACTED]"  # what a secret becomes in every output, the store and ticket comments


class LikelyReason(StrEnum):
    """Why the likely-cause picker (engine/likely.py) chose a line; shown as it is worded here."""

    EXCEPTION = "deepest exception of the first fatal traceback"
    EXCEPTION_LINE = "first exception line"
    CPP_EXCEPTION = "uncaught C++ exception"
    PANIC = "panic"
    FATAL_PYTHON = "fatal Python error"
    ASSERTION = "failed native assertion"
    SIGNAL = "fatal signal"
    ERROR_LINE = "first error line"
    FAILURE_LINE = "first line that reports a failure"
    WRAPPER = "wrapper error (nothing deeper in the log)"
    QUIET_FAILURE = "failure logged below error level"
    LAST_LINE = "last line printed (nothing reports a failure)"


@dataclass(frozen=True, slots=True)
class LikelyCause:
    """For a failure no rule explains: the line most likely to hold its cause. A pointer, never a root cause."""

    reason: LikelyReason
    evidence: Evidence


def shows_same_line(likely: LikelyCause | None, fingerprint: Fingerprint) -> bool:
    """Whether the likely cause already shows the fingerprint's last error line (then it is shown once)."""
    if likely is None or fingerprint.evidence is None:
        return False
    shown = (likely.evidence.attachment, likely.evidence.line)
    return shown == (fingerprint.evidence.attachment, fingerprint.evidence.line)


@dataclass(frozen=True, slots=True)
class Problem:
    """Per-item trouble that did not stop the run: shown in every format."""

    object: str
    message: str
    hint: str = ""
    severity: Severity = "warning"
    test: str = ""  # uuid of the test it concerns, if any


@dataclass(frozen=True, slots=True)
class EvidenceWindow:
    """The log text around a failing test's evidence, cut while its input was open (`report/evidence.py`).

    Up to 200 lines, most of them before the evidence line (where causes sit), at most 64 KiB; the tail of
    the test's best log when nothing pointed at a line. It is what the store keeps for `reanalyze`.
    """

    source: str  # the log within its input (an archive entry, a file)
    attachment: str
    location: str
    first_line: int  # the number of the text's first line in the log (0 when there is no text)
    text: str


@dataclass(frozen=True, slots=True)
class Verdict:
    """What the engine concluded for one test."""

    test: TestCase
    root_cause: Finding | None = None
    symptoms: tuple[Finding, ...] = ()
    fingerprint: Fingerprint | None = None
    problems: tuple[Problem, ...] = ()
    likely_cause: LikelyCause | None = None  # only for failing tests no rule explains
    window: EvidenceWindow | None = None  # only for failing tests, cut by `analyze`

    @property
    def explained(self) -> bool:
        """A failing test is explained when a cause rule matched."""
        return self.root_cause is not None


@dataclass(frozen=True, slots=True)
class Group:
    """Failing tests that share a root cause rule, or (unexplained) a fingerprint."""

    kind: GroupKind
    key: str  # rule id or fingerprint key
    title: str
    category: Category | None  # the rule's; None for an unexplained group
    test_uuids: tuple[str, ...]


class Dimension(StrEnum):
    """What a job ran on, as the store keeps it per job: `(dimension, value)` facts."""

    RUNNER_LABEL = "runner_label"
    GPU_MODEL = "gpu_model"
    GPU_MEMORY = "gpu_memory"
    RUNNER = "runner"


@dataclass(frozen=True, slots=True)
class EnvironmentFacts:
    """What an input's job ran on, as its logs tell (`report/environment.py`); "" where they do not say."""

    gpu_model: str = ""  # the name the driver prints: "NVIDIA A10G", "Tesla T4"
    gpu_memory: str = ""  # the card's total in whole GiB, rounded down: "22 GiB"

    def facts(self) -> tuple[tuple[Dimension, str], ...]:
        """The known ones as `(dimension, value)`, model first."""
        known = ((Dimension.GPU_MODEL, self.gpu_model), (Dimension.GPU_MEMORY, self.gpu_memory))
        return tuple((dimension, value) for dimension, value in known if value)


@dataclass(frozen=True, slots=True)
class InputInfo:
    """One input the run read: a results folder, an artifact zip, or a plain log."""

    path: str
    kind: InputKind
    label: str
    tests: int = 0
    job_id: int | None = None  # the CI job the input came from (fetch), None for local paths
    stage: str = ""  # test stage the artifact belongs to, e.g. "pre_merge_gpu_parallel"
    artifact: str = ""  # artifact name, e.g. "allure-results-vllm-Test-amd64-24685348314-72193276317"
    identity: str = ""  # what the input held when read (`report/identity.py`); "" for stdin or unreadable
    environment: EnvironmentFacts = EnvironmentFacts()


@dataclass(frozen=True, slots=True)
class JobContext:
    """One CI job a report covers: who ran it, where, and how it ended."""

    job_id: int
    name: str
    url: str = ""
    conclusion: str = ""  # "failure", "cancelled", "timed_out", ...
    runner_name: str = ""
    runner_labels: tuple[str, ...] = ()
    failed_steps: tuple[str, ...] = ()
    started_at: str = ""  # ISO 8601 as the CI service gave it
    completed_at: str = ""


@dataclass(frozen=True, slots=True)
class RunContext:
    """The CI run a report came from (fetch); local analyses have none."""

    provider: str  # "github"
    repository: str  # "owner/name"
    run_id: int
    workflow: str = ""  # workflow name, e.g. "Nightly CI Pipeline"
    workflow_path: str = ""  # e.g. ".github/workflows/nightly-ci.yml"
    run_attempt: int = 1
    run_url: str = ""
    head_sha: str = ""
    branch: str = ""
    event: str = ""
    created_at: str = ""  # ISO 8601 as the CI service gave it
    jobs: tuple[JobContext, ...] = ()


@dataclass(frozen=True, slots=True)
class Report:
    """Everything one analysis found; renderers are pure functions of it."""

    inputs: tuple[InputInfo, ...]
    verdicts: tuple[Verdict, ...]
    groups: tuple[Group, ...]
    problems: tuple[Problem, ...]
    rules_loaded: int = 0
    context: RunContext | None = None
    # Set by `report.redact.redact_report` alone: every string has passed a redactor. The store records only
    # such a report (it never redacts itself), so a caller that forgot fails loudly instead of storing a secret.
    # Not an argument (`init=False`): a copy made with `dataclasses.replace`, which may carry new text, comes
    # out unmarked and is redacted again by the next output.
    redacted: bool = field(default=False, init=False, compare=False)
    # With it, which secrets: the key of the redactor (a digest of its values, never the values themselves)
    redacted_with: str = field(default="", init=False, compare=False, repr=False)

    @property
    def failing(self) -> tuple[Verdict, ...]:
        """Verdicts of failed and broken tests, in report order."""
        return tuple(v for v in self.verdicts if v.test.status.is_failing)

    @property
    def explained_count(self) -> int:
        """How many failing tests got a root cause."""
        return sum(1 for v in self.failing if v.explained)

    @property
    def unexplained_count(self) -> int:
        """How many failing tests no cause rule explained."""
        return len(self.failing) - self.explained_count

    def status_counts(self) -> dict[str, int]:
        """Tests per status, every status present (zeros included)."""
        counts = {status.value: 0 for status in Status}
        for verdict in self.verdicts:
            counts[verdict.test.status.value] += 1
        return counts

    def verdict_by_uuid(self) -> dict[str, Verdict]:
        """Index verdicts for renderers that walk groups."""
        return {v.test.uuid: v for v in self.verdicts}

    def job_of(self, verdict: Verdict) -> JobContext | None:
        """The CI job whose artifact (or log) held this test; None for local analyses."""
        if self.context is None:
            return None
        job_ids = {item.label: item.job_id for item in self.inputs}
        job_id = job_ids.get(verdict.test.input_label)
        return next((job for job in self.context.jobs if job.job_id == job_id), None)

    def input_of(self, verdict: Verdict) -> InputInfo | None:
        """The input (artifact, folder or log) that held this test."""
        return next((item for item in self.inputs if item.label == verdict.test.input_label), None)
