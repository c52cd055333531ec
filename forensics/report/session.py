"""One input's work: read its tests, scan every needed log once (in parallel), decide verdicts.

Shared by `analyze()` and `backtest()`. When there is enough to scan, the work is spread over forked worker
processes (threads were measured slower: the per-line Python work holds the GIL; report/worker_pool.py); each
worker opens the archive afresh and sends back a group of tests' final verdicts (or, for `backtest`, a log's
small `LogScan`).
"""

from __future__ import annotations

import os
import posixpath
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, BinaryIO, TypeVar

from forensics.engine.scanner import (
    SIMD_COUNT_BYTES,
    CompiledRules,
    LogScan,
    ProbeRole,
    ScanLimits,
    line_counter,
    scan_stream,
    scan_text,
)
from forensics.engine.verdict import decide
from forensics.engine.verdict_inputs import ScannedLog
from forensics.inputs.allure import DEFAULT_LOG_ATTACHMENTS, MAX_JSON_BYTES, MESSAGE_RANK, read_allure
from forensics.inputs.archive import Archive, ZipArchive
from forensics.inputs.discover import Input, LogInput, printable_path
from forensics.model import LikelyCause, LogRef, Problem, RuleKind, Status, TestCase, Verdict
from forensics.regex_code import keep_recorded, take_recorded
from forensics.report.redact import Redactor, redact_model

if TYPE_CHECKING:  # engine.likely is imported when some failure is unexplained, the pool when forking pays
    from forensics.engine.likely import LikelyLine
    from forensics.report.worker_pool import WorkerPool

PROCESS_THRESHOLD = 32 * 1024 * 1024  # below this much log data, forking costs more than it saves
MAX_DEFAULT_JOBS = 16
_Result = TypeVar("_Result")


def default_jobs() -> int:
    """Worker processes: one per core this process may use, at most 16 (the inflate floor uses every core: with
    8 workers a 16-core machine scanned at half its speed)."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return max(1, min(MAX_DEFAULT_JOBS, cores))


@dataclass(frozen=True, slots=True)
class AnalyzeOptions:
    """How to read the inputs: which attachments are logs, the bounds on each log, how many threads."""

    log_attachments: tuple[str, ...] = DEFAULT_LOG_ATTACHMENTS
    limits: ScanLimits = field(default_factory=ScanLimits)
    max_result_bytes: int = MAX_JSON_BYTES  # one Allure result or container file
    use_literals: bool = True  # False: every line through every pattern (the plain path, for checks)
    jobs: int = field(default_factory=default_jobs)
    process_threshold: int = PROCESS_THRESHOLD
    redactor: Redactor = field(default_factory=Redactor)  # the CLI adds the environment's secret values
    # cut each failing test's evidence window and look for GPU lines (report/evidence.py): a second, bounded
    # read of the evidence logs and at most 16 MiB per input; the CLI asks for it when it records (--record)
    read_evidence: bool = True


class InputSession:
    """One input: its tests, each needed log scanned once, the verdicts."""

    def __init__(
        self, item: Input, compiled: CompiledRules, options: AnalyzeOptions, problems: list[Problem]
    ) -> None:
        self.item = item
        self.compiled = compiled
        self.options = options
        self.problems = problems
        self.scans: dict[tuple[str, str, str], LogScan] = {}
        self.likely: dict[tuple[str, str, str], LikelyLine | None] = {}
        self._is_wrapper: Callable[[str], bool] | None = None
        self._sizes: dict[tuple[str, str, str], int] = {}

    def __enter__(self) -> InputSession:
        return self

    def __exit__(self, *exc_info: object) -> None:
        if isinstance(self.item, ZipArchive):
            self.item.close()

    def tests(self) -> list[TestCase]:
        """Every test of the input (a plain log is one failing item)."""
        if isinstance(self.item, LogInput):
            self.problems.extend(self.item.problems)
            return [_log_test(self.item)]
        archive = self.item
        results = read_allure(
            archive,
            log_attachments=self.options.log_attachments,
            max_json_bytes=self.options.max_result_bytes,
        )
        self.problems.extend(archive.problems)
        self.problems.extend(results.problems)
        if not results.tests:
            files = sum(1 for name in archive.names() if name.endswith("-result.json"))
            self.problems.append(
                Problem(
                    object=archive.label,
                    message=f"none of its {files} Allure result file(s) could be read (see the problems above)"
                    if files
                    else "holds no Allure results (*-result.json)",
                    hint="download the artifact again; if it is whole, the test run was killed while writing"
                    if files
                    else "check that the test step ran with --alluredir and uploaded that folder",
                    severity="error",
                )
            )
        return results.tests

    def verdicts(
        self, tests: list[TestCase], *, include_passing: bool = False, redact: bool = False
    ) -> list[Verdict]:
        """A verdict per test; passing and skipped tests are only scanned with `include_passing`.

        A failing test no rule explains gets its likely cause, read while the input is still open. With
        `redact`, each verdict is also redacted with the options' redactor (`redact_model`, which remembers it:
        `redact_report` with the same redactor does not walk it again); with worker processes, each worker does
        all of it for the tests it is given (`_verdicts_in_processes`), and the parent takes its answers as done.
        """
        scanned = [test for test in tests if include_passing or test.status.is_failing]
        unscanned = [test for test in tests if not (include_passing or test.status.is_failing)]
        finished = self._verdicts_in_processes(scanned, unscanned, redact=redact)
        if finished is not None:
            return [finished[id(test)] for test in tests]
        # too little to fork for, or the workers failed: the same steps, one by one
        self.scan_tests(scanned)
        decided = {id(test): decide(test, self.scanned_logs(test), self.compiled) for test in scanned}
        self._read_likely_in_processes(
            [v.test for v in decided.values() if v.root_cause is None and v.test.status.is_failing]
        )
        verdicts = [decided[id(test)] if id(test) in decided else Verdict(test=test) for test in tests]
        return [self._finished(verdict, self.scans, redact=redact) for verdict in verdicts]

    def _finished(
        self, verdict: Verdict, scans: Mapping[tuple[str, str, str], LogScan], *, redact: bool
    ) -> Verdict:
        """The verdict with its likely cause (when no rule explains it), redacted when asked."""
        verdict = self._with_likely_cause(verdict, scans)
        return redact_model(verdict, self.options.redactor) if redact else verdict

    def _verdicts_in_processes(
        self, tests: list[TestCase], unscanned: list[TestCase], *, redact: bool
    ) -> dict[int, Verdict] | None:
        """Every test's final verdict (by id() of the test), each found whole in a worker process; None (nothing
        done) when forking does not pay or the workers fail.

        A worker takes a group of tests that share no log with another group (most tests are a group of one),
        and does for it what one process does for all (`_worker_verdicts`): scans each log once, decides, re-reads
        for the likely cause when no rule explains a failure, finishes and redacts. The parent only hands out the
        groups (biggest first) and collects the answers: deciding, the likely-cause tiers and the redaction,
        ~0.6 CPU s at 1 GiB, were the parent's while the workers scanned, and on 16 cores the parent, not the
        workers, was then the wall. The tests no scan is needed for are finished here while the workers run."""
        groups = _groups(tests)
        archive_refs = list(
            {ref.key: ref for test in tests for ref in _all_logs(test) if ref.inline_text is None}.values()
        )
        workers = self._worker_count(archive_refs)
        if workers is None:
            return None
        from forensics.report.redact import mark_redacted
        from forensics.report.worker_pool import WorkerDiedError

        def size(group: tuple[TestCase, ...]) -> int:
            keys = {ref.key for test in group for ref in _all_logs(test) if ref.inline_text is None}
            return sum(self._sizes.get(key, 0) for key in keys)

        finished: dict[int, Verdict] = {}
        problems: dict[tuple[str, str, str], list[Problem]] = {}
        self._prepare_workers(
            rereads=any(test.status.is_failing for test in tests),
            is_wrapper=self._wrapper_test(),
            options=self.options,
            redact=redact,
        )
        try:
            with self._pool(workers) as pool:
                for number, group in sorted(enumerate(groups), key=lambda item: -size(item[1])):
                    known = {key: self.scans[key] for key in _keys(group) if key in self.scans}
                    pool.submit(_worker_verdicts, (group, known), number)
                pool.start()  # each worker starts on its first tests while the next ones are forked
                for test in unscanned:  # here, while the workers scan
                    finished[id(test)] = self._finished(Verdict(test=test), self.scans, redact=redact)
                for number, (verdicts, scanned, recorded) in pool.answers():
                    for test, verdict in zip(groups[number], verdicts, strict=True):
                        finished[id(test)] = (
                            mark_redacted(verdict, self.options.redactor) if redact else verdict
                        )
                    problems.update(scanned)
                    if recorded:
                        keep_recorded(recorded)
        except (WorkerDiedError, OSError):  # a worker died (OOM-killed, fork refused): one by one instead
            return None
        finally:
            _WORKER.clear()
        for key in _keys(tests):  # problems in log order, as the one-by-one path gives them
            self.problems.extend(problems.get(key, ()))
        return finished

    def _read_likely_in_processes(self, unexplained: list[TestCase]) -> None:
        """Re-read the unexplained failures' logs in worker processes when there is enough to read: one by one
        in this process, 120 unexplained tests of a 1 GiB artifact took longer than scanning all of it."""
        refs = {
            ref.key: ref
            for test in unexplained
            for ref in _all_logs(test)
            if ref.inline_text is None and ref.key not in self.likely
        }
        if refs:
            _WORKER_EXTRA.update(is_wrapper=self._wrapper_test())
            try:
                self.likely.update(self._in_processes(list(refs.values()), _worker_likely))
            finally:
                _WORKER_EXTRA.clear()

    def _with_likely_cause(self, verdict: Verdict, scans: Mapping[tuple[str, str, str], LogScan]) -> Verdict:
        if verdict.root_cause is not None or not verdict.test.status.is_failing:
            return verdict
        # the tiers' code only where a failure no rule explains needs it (tests/test_fixed_cost.py)
        from forensics.engine.fatal_line import likely_line_cause
        from forensics.engine.likely import choose_among_logs

        logs = sorted(_all_logs(verdict.test), key=lambda ref: ref.rank)
        chosen = choose_among_logs((ref, self._likely_line(ref)) for ref in logs)  # stops at a fatal event
        if chosen is None:
            return verdict
        ref, picked = chosen
        log = ScannedLog(ref, scans[ref.key])
        # the second tier: a fatal-line family rule tried on that line, else on the lines of its excerpt that report
        # a failure (engine/likely.py's `tier_candidates`), else the third, the family model learned from the corpus
        cause = likely_line_cause(
            picked,
            log.evidence,
            self.compiled,
            is_wrapper=self._wrapper_test(),
            timeout=self.options.limits.regex_timeout,
        )
        if cause is not None:
            return replace(verdict, root_cause=cause, fingerprint=None)
        evidence = log.evidence(picked.line, picked.text, picked.excerpt)
        return replace(verdict, likely_cause=LikelyCause(reason=picked.reason, evidence=evidence))

    def _likely_line(self, ref: LogRef) -> LikelyLine | None:
        """Read a log again, only as far as its first fatal event (within the size limit); cached per log."""
        if ref.key in self.likely:
            return self.likely[ref.key]
        from forensics.engine.likely import pick_likely_cause

        is_wrapper = self._wrapper_test()
        picked: LikelyLine | None = None
        if ref.inline_text is not None:
            picked = pick_likely_cause(ref.inline_text.splitlines(), is_wrapper=is_wrapper)
        elif self.can_reread:
            picked = _read_likely(lambda: self._open(ref), self.options.limits, is_wrapper)
        self.likely[ref.key] = picked
        return picked

    def _wrapper_test(self) -> Callable[[str], bool]:
        """Whether a line is one a symptom rule names: a wrapper never is the likely cause if anything else is."""
        if self._is_wrapper is None:
            probes = self.compiled.probes
            compiled = self.compiled
            wrappers = {
                number
                for number in range(len(probes))
                if compiled.role_of(number) is ProbeRole.PATTERN
                and compiled.kind_of(compiled.rule_of(number)) is RuleKind.SYMPTOM
            }
            select = (
                self.compiled.selector.select
            )  # only patterns whose literal occurs: the rest cannot match
            timeout = self.options.limits.regex_timeout

            def is_wrapper(text: str) -> bool:
                for number in select(text):
                    if number not in wrappers:
                        continue
                    try:
                        if probes[number].pattern.search(text, timeout=timeout):
                            return True
                    except TimeoutError:
                        continue
                return False

            self._is_wrapper = is_wrapper
        return self._is_wrapper

    def scanned_logs(self, test: TestCase) -> list[ScannedLog]:
        """The test's logs with their scans (scan them first with `scan_all`)."""
        return [ScannedLog(ref, self.scans[ref.key]) for ref in _all_logs(test)]

    def scan_tests(self, tests: Iterable[TestCase]) -> None:
        """Scan every log of these tests."""
        self.scan_all(ref for test in tests for ref in _all_logs(test))

    def scan_all(self, refs: Iterable[LogRef]) -> None:
        """Scan every log not scanned yet (in worker processes when it pays); problems are kept in log order."""
        pending: dict[tuple[str, str, str], LogRef] = {}
        for ref in refs:
            if ref.key not in self.scans and ref.key not in pending:
                pending[ref.key] = ref
        work = list(pending.values())
        in_processes = self._scan_in_processes([ref for ref in work if ref.inline_text is None])
        for ref in work:
            scan = in_processes.get(ref.key)
            if scan is None:
                scan = self._scan_one(ref)
            self.scans[ref.key] = scan
            self.problems.extend(scan.problems)

    def _scan_in_processes(self, refs: list[LogRef]) -> dict[tuple[str, str, str], LogScan]:
        return self._in_processes(refs, _worker_scan)

    def _in_processes(
        self, refs: list[LogRef], work: Callable[[tuple[str, str]], _Result]
    ) -> dict[tuple[str, str, str], _Result]:
        """`work` on each log in forked workers (biggest first); empty when forking does not pay or fails."""
        workers = self._worker_count(refs)
        if workers is None:
            return {}
        from forensics.report.worker_pool import WorkerDiedError

        ordered = sorted(refs, key=lambda ref: -self._sizes[ref.key])  # biggest first balances the workers
        self._prepare_workers(rereads=work is _worker_likely, **_WORKER_EXTRA)
        try:
            with self._pool(workers) as pool:
                for ref in ordered:
                    pool.submit(work, _task(ref), ref.key)
                pool.start()
                answers = dict(pool.answers())
        except (WorkerDiedError, OSError):  # a worker died (OOM-killed, fork refused): scan here instead
            return {}
        finally:
            _WORKER.clear()
        return {ref.key: answers[ref.key] for ref in ordered}

    def _worker_count(self, refs: list[LogRef]) -> int | None:
        """How many workers these archive logs are worth (their sizes kept for ordering); None: not worth forking."""
        archive = self.item
        if isinstance(archive, LogInput) or self.options.jobs < 2 or len(refs) < 2:
            return None
        self._sizes = {ref.key: _size(archive, ref.source) for ref in refs}
        if sum(self._sizes.values()) < self.options.process_threshold or not _can_fork(self.options.jobs):
            return None
        return min(self.options.jobs, len(refs))

    def _prepare_workers(self, *, rereads: bool, **extra: Any) -> None:
        """What the workers inherit when forked: the archive to reopen, the compiled rules, the limits, and
        every pattern each worker would otherwise compile for itself (~60 ms of `regex`'s compiler a worker:
        with 16 workers, ~1 CPU s of the same work done 16 times)."""
        self.compiled.compile_automata()  # once here, not once in every worker
        line_counter(SIMD_COUNT_BYTES)  # StringZilla's line count imported once here, where installed
        if "allocator" not in _WORKER_START:  # looked up once a process
            _WORKER_START["allocator"] = _allocator_tuning()
        if rereads:
            from forensics.engine.cause_gate import shipped_gate
            from forensics.engine.learned import shipped_model
            from forensics.engine.likely_reader import compile_for_workers
            from forensics.rules.loader import shipped_rules_path

            compile_for_workers()
            # the likely-cause tiers' learned model (~0.4 MB of JSON) and its cause gate: read once here, not once
            # in every worker
            shipped_model(shipped_rules_path())
            shipped_gate(shipped_rules_path())
        _WORKER.clear()
        _WORKER.update(template=self.item, compiled=self.compiled, limits=self.options.limits, **extra)

    @staticmethod
    def _pool(workers: int) -> WorkerPool:
        """Forked workers (imported only when forking pays: a small run never loads the process pool)."""
        from forensics.report.worker_pool import WorkerPool

        return WorkerPool(workers, initializer=_worker_start)

    def _scan_one(self, ref: LogRef) -> LogScan:
        where = _where(ref)
        limits: ScanLimits = self.options.limits
        if ref.inline_text is not None:
            return scan_text(ref.inline_text, self.compiled, name=where, limits=limits)
        try:
            stream = self._open(ref)
        except Exception as err:  # a missing or unreadable entry is a problem, never the end of the run
            return LogScan(problems=[Problem(object=where, message=f"cannot open: {err}")])
        with stream:
            return scan_stream(stream, self.compiled, name=where, limits=limits)

    @property
    def can_reread(self) -> bool:
        """Whether a log can be read again while the input is open (stdin cannot be read twice)."""
        return not (isinstance(self.item, LogInput) and self.item.kind == "stdin")

    def open_log(self, source: str) -> BinaryIO:
        """One of the input's logs (a plain log is its own only log); the caller closes it."""
        if isinstance(self.item, LogInput):
            return self.item.open()
        return self.item.open(source)

    def _open(self, ref: LogRef) -> BinaryIO:
        return self.open_log(ref.source)


# Set in the parent just before forking, so the workers inherit the compiled rules without pickling them.
_WORKER: dict[str, Any] = {}
_WORKER_EXTRA: dict[
    str, Any
] = {}  # what one kind of work adds (the wrapper test of the likely-cause re-read)


# What every forked worker does first (`_worker_start`), prepared once in the parent
_WORKER_START: dict[str, Callable[[], bool] | None] = {}
# glibc's mallopt parameters: blocks this size or larger are mmap'ed; free memory at the heap's top beyond this
# much is given back to the system
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
WORKER_MMAP_THRESHOLD = (
    32 * 1024 * 1024
)  # glibc's largest (64-bit): every block and line of the scan is below it
WORKER_TRIM_THRESHOLD = 64 * 1024 * 1024


def _worker_start() -> None:
    """In each worker, before its first task: keep freed blocks for the next ones (`_allocator_tuning`)."""
    tune = _WORKER_START.get("allocator")
    if tune is not None:
        tune()


def _allocator_tuning() -> Callable[[], bool] | None:
    """With glibc: a call that makes this process keep the memory it frees for its next blocks (`mallopt`); None
    elsewhere (musl, macOS, Windows: their allocators are left as they are).

    A worker reads 1 MiB blocks, joins each with the previous one's last line and keeps tails and excerpts:
    allocations of a MiB or two, freed in an order that kept glibc's heap from reusing them (its dynamic mmap
    threshold followed the sizes, and the top of the heap was given back and taken again), so every block's
    pages were mapped and zeroed afresh: ~255 page faults a MiB, 0.6-2.4 CPU s of the kernel's time for `analyze
    --jobs 2` at 1 GiB depending on the machine's load (0.2-0.5 s with these settings). Blocks below 32 MiB now
    come from the heap and up to 64 MiB of free heap stays mapped; peak memory is unchanged (what is mapped was in
    use once)."""
    try:
        libc_version = os.confstr("CS_GNU_LIBC_VERSION")
    except (AttributeError, ValueError, OSError):
        return None
    if not libc_version or not libc_version.startswith("glibc"):
        return None
    import ctypes

    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return None
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int

    def tune() -> bool:
        mapped = mallopt(_M_MMAP_THRESHOLD, WORKER_MMAP_THRESHOLD)
        trimmed = mallopt(_M_TRIM_THRESHOLD, WORKER_TRIM_THRESHOLD)
        return bool(mapped and trimmed)

    return tune


def _worker_scan(task: tuple[str, str]) -> LogScan:
    """In a worker process: open the archive once (never the parent's file handle) and scan one entry."""
    source, where = task
    try:
        stream = _worker_archive().open(source)
    except Exception as err:  # the same contract as the in-process path
        return LogScan(problems=[Problem(object=where, message=f"cannot open: {err}")])
    with stream:
        return scan_stream(stream, _WORKER["compiled"], name=where, limits=_WORKER["limits"])


def _worker_verdicts(
    task: tuple[tuple[TestCase, ...], dict[tuple[str, str, str], LogScan]],
) -> tuple[list[Verdict], dict[tuple[str, str, str], list[Problem]], dict[tuple[str, int], bytes]]:
    """In a worker process: a group of tests' final verdicts, found as one process finds them (its logs scanned
    once, decided, re-read for the likely cause, finished, redacted when asked), each log's scan problems, and
    the `regex` code compiled on the way (forensics/regex_code.py)."""
    tests, known = task
    options = replace(_WORKER["options"], jobs=1)  # the worker's own session never forks
    session = InputSession(_worker_archive(), _WORKER["compiled"], options, [])
    session.scans.update(known)
    session._is_wrapper = _WORKER["is_wrapper"]
    verdicts = session.verdicts(list(tests), include_passing=True, redact=_WORKER["redact"])
    problems = {key: scan.problems for key, scan in session.scans.items() if key not in known}
    return verdicts, problems, take_recorded()  # the patterns compiled here: the parent's table keeps them


def _worker_likely(task: tuple[str, str]) -> LikelyLine | None:
    """In a worker process: the likely cause of one log (the same reading as `InputSession._likely_line`)."""
    source, _where = task
    archive = _worker_archive()
    return _read_likely(lambda: archive.open(source), _WORKER["limits"], _WORKER["is_wrapper"])


def _worker_archive() -> Archive:
    """The worker's own handle on the archive, opened on first use (never the parent's file handle)."""
    archive: Archive | None = _WORKER.get("archive")
    if archive is None:
        archive = _WORKER["template"].reopen()
        _WORKER["archive"] = archive
    return archive


def _read_likely(
    open_log: Callable[[], BinaryIO], limits: ScanLimits, is_wrapper: Callable[[str], bool]
) -> LikelyLine | None:
    """A log's likely cause, read within the size limit: in this process or a worker, the same reading."""
    from forensics.engine.likely_reader import pick_likely_cause_in_blocks

    try:
        with open_log() as stream:
            return pick_likely_cause_in_blocks(
                _bounded_blocks(stream, limits), is_wrapper=is_wrapper, max_line=limits.max_line
            )
    except Exception:  # the scan already reported what makes this log unreadable
        return None


FIRST_LIKELY_BLOCK = 64 * 1024


def _bounded_blocks(stream: BinaryIO, limits: ScanLimits) -> Iterator[bytes]:
    """The stream in blocks, no further than the log size limit. The first blocks are small and each is twice
    the one before, up to the scan's block size: the picker is often done in the first few hundred lines,
    and a 1 MiB first block inflated three times what it reads."""
    remaining = limits.max_bytes
    size = min(FIRST_LIKELY_BLOCK, limits.block_size)
    while remaining > 0:
        block = stream.read(min(size, remaining))
        if not block:
            return
        remaining -= len(block)
        size = min(size * 2, limits.block_size)
        yield block


def _can_fork(jobs: int) -> bool:
    """Fork only with more than one job, where fork exists, and with no other thread alive to copy."""
    import multiprocessing

    return jobs > 1 and "fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1


def _size(archive: Archive, source: str) -> int:
    try:
        return archive.size(source)
    except (OSError, KeyError):
        return 0


def _groups(tests: list[TestCase]) -> list[tuple[TestCase, ...]]:
    """The tests in groups that share no archive log with another group (a log shared by tests is scanned once,
    in one worker), each group in the tests' order."""
    owner: dict[tuple[str, str, str], int] = {}  # by log: the group that reads it
    parent: list[int] = list(range(len(tests)))

    def root(index: int) -> int:
        while parent[index] != index:
            parent[index] = parent[parent[index]]
            index = parent[index]
        return index

    for index, test in enumerate(tests):
        for ref in test.logs:
            if ref.inline_text is None:
                other = owner.setdefault(ref.key, index)
                parent[root(index)] = root(other)
    grouped: dict[int, list[TestCase]] = {}
    for index, test in enumerate(tests):
        grouped.setdefault(root(index), []).append(test)
    return [tuple(group) for group in grouped.values()]


def _keys(tests: Iterable[TestCase]) -> list[tuple[str, str, str]]:
    """Every log of these tests once, in the order the one-by-one path scans them."""
    return list(dict.fromkeys(ref.key for test in tests for ref in _all_logs(test)))


def _task(ref: LogRef) -> tuple[str, str]:
    """What a worker is sent for one log: its entry in the archive, and its name for problems."""
    return ref.source, _where(ref)


def _where(ref: LogRef) -> str:
    return f"{ref.input_label}: {ref.source}" if ref.source else f"{ref.input_label}: {ref.attachment}"


def _log_test(item: LogInput) -> TestCase:
    name = item.name or (posixpath.basename(printable_path(item.path)) if item.path != "-" else "stdin")
    return TestCase(
        uuid=f"log:{item.label}",
        name=name,
        full_name=item.label,
        status=Status.FAILED,
        input_label=item.label,
        logs=(
            LogRef(
                input_label=item.label,
                source=printable_path(item.path),
                attachment=name,
                location="file",
                rank=0,
            ),
        ),
        origin="log",
    )


def _all_logs(test: TestCase) -> list[LogRef]:
    """The test's attachments, then its own status message and trace."""
    inline = [
        LogRef(
            input_label=test.input_label,
            source="",
            attachment=attachment,
            location="result",
            rank=MESSAGE_RANK + offset,
            inline_text=text,
        )
        for offset, (attachment, text) in enumerate(
            (("status message", test.message), ("status trace", test.trace))
        )
        if text.strip()
    ]
    return [*test.logs, *inline]
