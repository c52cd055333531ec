"""What a recording keeps from the logs themselves: the text around each failing test's evidence, and the GPU.

The report holds a few lines around each hit; `reanalyze` needs more to run newer rules over after the
artifact has expired, so each failing test keeps up to 200 lines (at most 64 KiB) around its evidence line —
most of them before it, where causes sit — or the tail of its best log when nothing pointed at a line.
The text is redacted like every report field. The same pass reads GPU model and memory from the lines,
and, when the failing tests did not reveal them, from the first megabytes of the input's other logs; and it
notes what each input held (its content identity), so `reanalyze` never takes a later file at the same
path for the one recorded.
"""

from __future__ import annotations

import os
import zipfile
import zlib
from collections import deque
from collections.abc import Iterator
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from forensics.engine.decode import utf8_stream
from forensics.errors import ResultsError
from forensics.inputs.archive import DirectoryArchive, ZipArchive, open_regular, safe_entry_name
from forensics.inputs.discover import Input, LogInput
from forensics.model import Evidence, InputInfo, Report, Verdict
from forensics.report.redact import Redactor
from forensics.store.environment import Fact, GpuFinder
from forensics.store.identity import input_identity

LINES_BEFORE = 150
LINES_AFTER = 49
MAX_WINDOW_BYTES = 64 * 1024
MAX_LINE_BYTES = 2000
MAX_MESSAGE_CHARS = 8000
DEFAULT_MAX_LOG_BYTES = 512 * 1024 * 1024  # the analysis's default `--max-log-size`
PROBE_BYTES_PER_LOG = 1024 * 1024
PROBE_BYTES_PER_INPUT = 16 * 1024 * 1024
_PROBE_HINTS = (b"NVIDIA", b"Tesla", b"Instinct", b"MiB", b"GiB")
# a log that went missing or a corrupt zip entry only costs that log's window (the excerpt is kept instead)
_READ_ERRORS = (OSError, KeyError, ValueError, EOFError, RuntimeError, zipfile.BadZipFile, zlib.error)


@dataclass(frozen=True, slots=True)
class EvidenceLog:
    """The redacted log text around a failing test's evidence, and where the whole log was."""

    test_uuid: str  # the execution's Allure uuid: tells whether the artifact at input_path is still this run
    input_path: str
    input_identity: str  # what input_path held (store/identity.py): `reanalyze` rereads it only while equal
    input_label: str
    source: str
    attachment: str
    location: str
    first_line: int  # number of the text's first line in the original log (0 when there is no text)
    text: str
    message: str  # the test's status message and trace


@dataclass(frozen=True, slots=True)
class Gathered:
    """Evidence logs by test uuid, and GPU facts by input label."""

    logs: dict[str, EvidenceLog]
    gpu_facts: dict[str, tuple[Fact, ...]]


def gather_evidence(
    report: Report, *, redactor: Redactor, max_log_bytes: int = DEFAULT_MAX_LOG_BYTES
) -> Gathered:
    """Read each input once more (when it is still there) for the evidence windows and the GPU facts.

    No log is read past `max_log_bytes`, the analysis's own limit: the evidence lies within what it read.
    """
    logs: dict[str, EvidenceLog] = {}
    gpu_facts: dict[str, tuple[Fact, ...]] = {}
    for info in report.inputs:
        verdicts = [v for v in report.verdicts if v.test.input_label == info.label]
        failing = any(verdict.test.status.is_failing for verdict in verdicts)
        identity = input_identity(info.path, info.kind) if failing else ""
        opened = _reopen(info)
        try:
            finder = GpuFinder()
            for verdict in verdicts:
                if not verdict.test.status.is_failing:
                    continue
                for finding in (verdict.root_cause, *verdict.symptoms):
                    if finding is not None:
                        finder.add_values(finding.fields)
                log = _evidence_log(verdict, info, opened, redactor, identity, max_log_bytes)
                finder.add_lines(log.text.splitlines())
                logs[verdict.test.uuid] = log
            if opened is not None and not finder.complete:
                _probe_gpu(opened, verdicts, finder)
            gpu_facts[info.label] = finder.facts()
        finally:
            if isinstance(opened, ZipArchive):
                opened.close()
    return Gathered(logs=logs, gpu_facts=gpu_facts)


def _reopen(info: InputInfo) -> Input | None:
    """The input as the report read it, or None when it is gone (or was stdin)."""
    location = Path(info.path)
    try:
        if info.kind == "zip":
            return ZipArchive(location, label=info.label)
        if info.kind == "directory" and location.is_dir():
            return DirectoryArchive(location, label=info.label)  # no listing: only named entries are opened
        if info.kind == "log" and location.is_file():
            return LogInput(path=info.path, label=info.label, open=lambda: open_regular(location))
    except ResultsError:
        return None
    return None


def _evidence_log(
    verdict: Verdict,
    info: InputInfo,
    opened: Input | None,
    redactor: Redactor,
    identity: str,
    max_log_bytes: int,
) -> EvidenceLog:
    test = verdict.test
    evidence = _evidence(verdict)
    message = "\n".join(part for part in (test.message, test.trace) if part)[:MAX_MESSAGE_CHARS]
    numbered: list[tuple[int, str]] = []
    source, attachment, location = "", "", ""
    if evidence is not None:
        source, attachment, location = evidence.source, evidence.attachment, evidence.location
    elif test.logs:
        best = min(test.logs, key=lambda ref: ref.rank)
        source, attachment, location = best.source, best.attachment, best.location
    if opened is not None and source:
        with suppress(*_READ_ERRORS), _open(opened, source) as stream:
            numbered = _window(stream, evidence.line if evidence is not None else None, max_log_bytes)
    if not numbered and evidence is not None:  # the input is gone: keep the excerpt the report has
        numbered = [(line.number, line.text) for line in evidence.excerpt] or [(evidence.line, evidence.text)]
    text = "\n".join(redactor.lines([text for _, text in numbered]))
    return EvidenceLog(
        test_uuid=test.uuid,
        input_path=info.path if info.kind == "stdin" else os.path.abspath(info.path),  # any later cwd
        input_identity=identity,
        input_label=info.label,
        source=source,
        attachment=attachment,
        location=location,
        first_line=numbered[0][0] if numbered else 0,
        text=text,
        message=message,
    )


def _evidence(verdict: Verdict) -> Evidence | None:
    if verdict.root_cause is not None:
        return verdict.root_cause.evidence
    if verdict.fingerprint is not None:
        return verdict.fingerprint.evidence
    return None


def _open(opened: Input, source: str) -> BinaryIO:
    """A log of the input; entry names that would leave a folder or archive are refused (a saved report's
    `source` is just text)."""
    if isinstance(opened, LogInput):
        return utf8_stream(opened.open())
    name = safe_entry_name(source)
    if name is None:
        raise KeyError(source)
    if isinstance(opened, DirectoryArchive) and not (opened.root / name).resolve().is_relative_to(
        opened.root
    ):
        raise KeyError(source)  # a symbolic link out of the results folder
    return utf8_stream(opened.open(name))


def _window(stream: BinaryIO, target: int | None, max_bytes: int) -> list[tuple[int, str]]:
    """Lines around `target` (or the log's last lines), trimmed to MAX_WINDOW_BYTES from the far ends."""
    kept: deque[tuple[int, str]] = deque(maxlen=LINES_BEFORE + LINES_AFTER + 1)
    for number, raw in _lines(stream, max_bytes):
        if target is not None and number > target + LINES_AFTER:
            break
        kept.append((number, _line_text(raw)))
    lines = list(kept)
    if target is not None:
        lines = [(number, text) for number, text in lines if number >= target - LINES_BEFORE]
    else:
        target = lines[-1][0] if lines else 0
    size = sum(len(text.encode()) + 1 for _, text in lines)
    while size > MAX_WINDOW_BYTES and len(lines) > 1:
        dropped = lines.pop(0) if target - lines[0][0] > lines[-1][0] - target else lines.pop()
        size -= len(dropped[1].encode()) + 1
    return lines


def _line_text(raw: bytes) -> str:
    """A line as text; one cut at MAX_LINE_BYTES loses its last, cut word, which could be half a secret."""
    text = raw.decode("utf-8", "replace").rstrip("\r\n")
    if len(raw) < MAX_LINE_BYTES or raw.endswith(b"\n"):
        return text
    words = text.split()
    return text[: len(text) - len(words[-1])] + "…" if len(words) > 1 else text


def _lines(stream: BinaryIO, max_bytes: int) -> Iterator[tuple[int, bytes]]:
    """Numbered lines, each cut at MAX_LINE_BYTES (the rest of a longer line is skipped, not a new line)."""
    number = 0
    read = 0
    while read < max_bytes:
        raw = stream.readline(MAX_LINE_BYTES)
        if not raw:
            return
        read += len(raw)
        rest = raw
        while not rest.endswith(b"\n") and read < max_bytes:  # a 2 GiB line without a newline stops here too
            rest = stream.readline(MAX_LINE_BYTES)
            if not rest:
                break
            read += len(rest)
        number += 1
        yield number, raw


def _probe_gpu(opened: Input, verdicts: list[Verdict], finder: GpuFinder) -> None:
    """Look for nvidia-smi and memory-total lines in the first megabytes of the input's logs."""
    budget = PROBE_BYTES_PER_INPUT
    seen: set[str] = set()
    for verdict in verdicts:
        for ref in verdict.test.logs:
            if finder.complete or budget <= 0:
                return
            if ref.inline_text is not None or not ref.source or ref.source in seen:
                continue
            seen.add(ref.source)
            with suppress(*_READ_ERRORS), _open(opened, ref.source) as stream:
                for _, raw in _lines(stream, min(PROBE_BYTES_PER_LOG, budget)):
                    budget -= len(raw)
                    if any(hint in raw for hint in _PROBE_HINTS):
                        finder.add_lines([raw.decode("utf-8", "replace")])
