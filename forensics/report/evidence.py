"""What later stages need from an input's logs, cut while the input is open: each failing test's evidence
window, and the GPU its job ran on.

The report holds a few lines around each hit; `reanalyze` needs more to run newer rules over after the
artifact has expired, so each failing test keeps up to 200 lines (at most 64 KiB) around its evidence line —
its root cause's, else its likely cause's, else its fingerprint's; most of them before it, where causes
sit — or the tail of its best log when nothing pointed at a line. No log is read past `--max-log-size`, the
scan's own limit. The text is redacted with the rest of the report (`redact.py`) and cut to 64 KiB again
after redacting. The same pass reads GPU model and memory from the windows and the captured values, and,
when the failing tests did not reveal them, from the first megabytes of the input's other logs.
"""

from __future__ import annotations

import re
import zlib
from collections import deque
from collections.abc import Iterator, Sequence
from contextlib import suppress
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, BinaryIO

from forensics.engine.decode import utf8_stream
from forensics.errors import zip_read_errors
from forensics.model import EnvironmentFacts, Evidence, EvidenceWindow, Verdict
from forensics.report.environment import GpuFinder

if TYPE_CHECKING:
    from forensics.report.session import InputSession

LINES_BEFORE = 150
LINES_AFTER = 49
MAX_WINDOW_BYTES = 64 * 1024
MAX_LINE_BYTES = 2000
PROBE_BYTES_PER_LOG = 1024 * 1024
PROBE_BYTES_PER_INPUT = 16 * 1024 * 1024
_BLOCK_BYTES = 1024 * 1024
_WINDOW_LINES = LINES_BEFORE + LINES_AFTER + 1
_HINTS = re.compile(rb"NVIDIA|Tesla|Instinct|MiB|GiB")  # a GPU fact is only on a line holding one of these
# a log that went missing or a corrupt zip entry only costs that log's window (the excerpt is kept instead)
_READ_ERRORS = (OSError, KeyError, ValueError, EOFError, RuntimeError, zlib.error)  # and zip_read_errors()


@dataclass(frozen=True, slots=True)
class Observed:
    """The input's verdicts, each failing one with its evidence window, and what the job ran on."""

    verdicts: list[Verdict]
    environment: EnvironmentFacts


def observe(session: InputSession, verdicts: list[Verdict]) -> Observed:
    """Cut every failing test's window and read the GPU facts, from the input `session` holds open.

    Without `read_evidence` no log is read: no window, and GPU facts only from the values rules captured.
    """
    reading = session.options.read_evidence
    finder = GpuFinder()
    windowed: list[Verdict] = []
    for verdict in verdicts:
        if not verdict.test.status.is_failing:
            windowed.append(verdict)
            continue
        for finding in (verdict.root_cause, *verdict.symptoms):
            if finding is not None:
                finder.add_values(finding.fields)
        if not reading:
            windowed.append(verdict)
            continue
        window = _window_of(verdict, session)
        finder.add_lines(window.text.splitlines())
        windowed.append(replace(verdict, window=window))
    if reading and not finder.complete and session.can_reread:
        _probe_gpu(session, verdicts, finder)
    return Observed(verdicts=windowed, environment=finder.environment())


def window_evidence(verdict: Verdict) -> Evidence | None:
    """The line a failing test's window is cut around: its root cause, likely cause, or fingerprint."""
    if verdict.root_cause is not None:
        return verdict.root_cause.evidence
    if verdict.likely_cause is not None:
        return verdict.likely_cause.evidence
    if verdict.fingerprint is not None:
        return verdict.fingerprint.evidence
    return None


def trim_window(window: EvidenceWindow, lines: Sequence[str]) -> EvidenceWindow:
    """The window with these (redacted) lines, its first lines dropped while it is over MAX_WINDOW_BYTES."""
    kept = _trim([(window.first_line + offset, text) for offset, text in enumerate(lines)], None)
    return replace(window, first_line=kept[0][0] if kept else 0, text="\n".join(text for _, text in kept))


def _window_of(verdict: Verdict, session: InputSession) -> EvidenceWindow:
    test = verdict.test
    evidence = window_evidence(verdict)
    numbered: list[tuple[int, str]] = []
    source, attachment, location = "", "", ""
    if evidence is not None:
        source, attachment, location = evidence.source, evidence.attachment, evidence.location
    elif test.logs:
        best = min(test.logs, key=lambda ref: ref.rank)
        source, attachment, location = best.source, best.attachment, best.location
    if source and session.can_reread:
        target = evidence.line if evidence is not None else None
        with suppress(*zip_read_errors(*_READ_ERRORS)), utf8_stream(session.open_log(source)) as stream:
            numbered = _window(stream, target, session.options.limits.max_bytes)
    if not numbered and evidence is not None:  # stdin, or a log gone unreadable: keep the excerpt
        numbered = [(line.number, line.text) for line in evidence.excerpt] or [(evidence.line, evidence.text)]
    return EvidenceWindow(
        source=source,
        attachment=attachment,
        location=location,
        first_line=numbered[0][0] if numbered else 0,
        text="\n".join(text for _, text in numbered),
    )


def _window(stream: BinaryIO, target: int | None, max_bytes: int) -> list[tuple[int, str]]:
    """Lines around `target` (or the log's last lines), trimmed to MAX_WINDOW_BYTES from the far ends."""
    kept: deque[tuple[int, str]] = deque(maxlen=_WINDOW_LINES)
    first = 1 if target is None else target - LINES_BEFORE
    last = None if target is None else target + LINES_AFTER
    for number, lines in _line_blocks(stream, max_bytes):
        # only the lines a window can hold are decoded: a block's lines are counted in C, not looped over
        start = max(first - number, 0) if last is not None else max(len(lines) - _WINDOW_LINES, 0)
        for offset in range(start, len(lines)):
            if last is not None and number + offset > last:
                return _trim(list(kept), target)
            kept.append((number + offset, _line_text(lines[offset])))
    return _trim(list(kept), target)


def _trim(lines: list[tuple[int, str]], target: int | None) -> list[tuple[int, str]]:
    lines = list(lines)
    if target is None:
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


def _line_blocks(stream: BinaryIO, max_bytes: int) -> Iterator[tuple[int, list[bytes]]]:
    """The log's lines a block at a time, with the number of each block's first line; never past `max_bytes`.

    A line keeps its newline; one longer than MAX_LINE_BYTES is cut there without it (the rest is skipped,
    not a new line), as `readline(MAX_LINE_BYTES)` would.
    """
    number = 1
    read = 0
    head = b""  # the start of a line that goes on in the next block
    long_line = False  # the line in `head` is already longer than MAX_LINE_BYTES
    while read < max_bytes:
        block = stream.read(min(_BLOCK_BYTES, max_bytes - read))
        if not block:
            break
        read += len(block)
        if long_line:
            end = block.find(b"\n")
            if end < 0:
                continue
            yield number, [head]
            number += 1
            head, long_line = b"", False
            block = block[end + 1 :]
        lines = (head + block).split(b"\n")
        head = lines.pop()
        if len(head) >= MAX_LINE_BYTES:
            head, long_line = head[:MAX_LINE_BYTES], True
        shown = [line[:MAX_LINE_BYTES] if len(line) >= MAX_LINE_BYTES else line + b"\n" for line in lines]
        yield number, shown
        number += len(shown)
    if head:
        yield number, [head]


def _hint_lines(block: bytes) -> Iterator[str]:
    """The block's lines that hold a hint (found in C; only those lines are decoded)."""
    end = -1
    for match in _HINTS.finditer(block):
        if match.start() <= end:
            continue  # a second hint on a line already given
        start = block.rfind(b"\n", 0, match.start()) + 1
        end = block.find(b"\n", match.end())
        end = len(block) if end < 0 else end
        yield block[start : min(end, start + MAX_LINE_BYTES)].decode("utf-8", "replace")


def _probe_gpu(session: InputSession, verdicts: list[Verdict], finder: GpuFinder) -> None:
    """Look for nvidia-smi and memory-total lines in the first megabytes of the input's logs."""
    budget = min(PROBE_BYTES_PER_INPUT, session.options.limits.max_bytes)
    seen: set[str] = set()
    for verdict in verdicts:
        for ref in verdict.test.logs:
            if finder.complete or budget <= 0:
                return
            if ref.inline_text is not None or not ref.source or ref.source in seen:
                continue
            seen.add(ref.source)
            with (
                suppress(*zip_read_errors(*_READ_ERRORS)),
                utf8_stream(session.open_log(ref.source)) as stream,
            ):
                block = stream.read(min(PROBE_BYTES_PER_LOG, budget))
                budget -= len(block)
                finder.add_lines(_hint_lines(block))
