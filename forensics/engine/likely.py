"""The likely cause of a failure no rule explains: the single line a person would look at first.

Read in log order, the first fatal event wins: the deepest exception of the earliest fatal Python traceback
(the first traceback of a chain is the deepest), a Rust panic, `Fatal Python error`, a fatal signal. Without
one, the first ERROR/FATAL/CRITICAL line. Wrappers (lines a symptom rule names, `RayTaskError(…)`, "see
root cause above") only count when nothing else is there. Tracebacks are followed per process tag, since
multi-process logs interleave them. It never explains a failure: it is a pointer, kept apart from root
causes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from enum import StrEnum

import regex

from forensics.engine.normalize import Level, NormalizedLine, normalize_line, strip_ansi
from forensics.model import ExcerptLine

EXCERPT_BEFORE = 3
EXCERPT_AFTER = 2
TEXT_LIMIT = 2000
TRACEBACK_SPAN = 400  # lines a traceback may take before it is given up as cut


class LikelyReason(StrEnum):
    """Why the picker chose a line."""

    EXCEPTION = "deepest exception of the first fatal traceback"
    PANIC = "panic"
    FATAL_PYTHON = "fatal Python error"
    SIGNAL = "fatal signal"
    ERROR_LINE = "first error line"
    WRAPPER = "wrapper error (nothing deeper in the log)"


FATAL_REASONS = frozenset(
    {LikelyReason.EXCEPTION, LikelyReason.PANIC, LikelyReason.FATAL_PYTHON, LikelyReason.SIGNAL}
)


@dataclass(frozen=True, slots=True)
class LikelyLine:
    """The chosen line, why, and the lines around it."""

    line: int
    text: str
    reason: LikelyReason
    excerpt: tuple[ExcerptLine, ...]


_PROCESS_TAG = regex.compile(
    r"\((?P<name>[A-Za-z_][\w-]*(?:\s+(?:rank|pid)=\d+)*)\s+pid=(?P<pid>\d+)\)|\[rank(?P<rank>\d+)\]"
    r"|\[(?:\d{4}-)?\d\d-\d\d[T ][\d:.,]+(?P<sglang>(?:\s+[A-Z]{1,4}\d+)+)\]"
)
_EXCEPTION = regex.compile(r"^(?P<name>(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:\([\w.]+\))?)(?:\[\w+\])?(?::\s|:$|$)")
_CHAIN = (
    "The above exception was the direct cause of the following exception:",
    "During handling of the above exception, another exception occurred:",
)
_FRAME_NOISE = regex.compile(r"^(?:File \"|\^+$|~+|\.\.\.|\[Previous line repeated|[-~^ ]+$)")
_PANIC = regex.compile(r"thread '[^']*' (?:\(\d+\) )?panicked at|^panic: ")
_FATAL_PYTHON = regex.compile(r"Fatal Python error: ")
_SIGNAL = regex.compile(
    r"""
      \bKilled\b(?!\s+(?:off|by\ the\ user))
    | Segmentation\ fault | \(core\ dumped\) | ^Aborted$
    | \bterminated\ by\ signal\b | \bkilled\ by\ signal\b | \bdied\ with\ <Signals\.SIG\w+
    | \bSignal\ \d+\ \(SIG\w+\)\ received | \bexit(?:ed)?\ (?:with\ )?(?:code|status)\s*[=:]?\s*(?:-\d+|13[47]|139)\b
    | \bexitcode\s*[=:]\s*-\d+ | \bOOMKilled\b | \breceived\ signal\ SIG\w+ | \bSIG(?:KILL|SEGV|ABRT|BUS)\b
    """,
    regex.VERBOSE,
)
_WRAPPER = regex.compile(
    r"See (?:the )?root cause above|See stack trace \(above\)|for the root cause|^(?:\w+\.)*RayTaskError\(",
    regex.IGNORECASE,
)
_NOT_EXCEPTION_NAMES = frozenset(
    {"Traceback", "Warning", "INFO", "DEBUG", "Note", "Hint", "Usage", "During", "The"}
)


def _is_exception_line(message: str) -> bool:
    match = _EXCEPTION.match(message)
    if match is None:
        return False
    name = match["name"].rsplit(".", 1)[-1]
    if name in _NOT_EXCEPTION_NAMES or name.endswith("Warning"):
        return False
    return ":" in message[match.end("name") :][:3] or name.endswith(
        ("Error", "Exception", "Interrupt", "Exit")
    )


@dataclass
class _Traceback:
    start: int
    fatal: bool


@dataclass
class _Candidate:
    line: int
    text: str
    reason: LikelyReason
    wrapper: bool
    before: list[ExcerptLine]
    after: list[ExcerptLine] = field(default_factory=list)


class LikelyCausePicker:
    """Feed lines in order; `result()` is the likely cause. Stops wanting lines once a fatal event is known."""

    def __init__(self, *, is_wrapper: Callable[[str], bool] = lambda _text: False) -> None:
        self._is_wrapper = is_wrapper
        self._tracebacks: dict[str, _Traceback] = {}
        self._recent: list[ExcerptLine] = []
        self._fatal: _Candidate | None = None  # the first non-wrapper fatal event
        self._fallback: list[_Candidate] = []  # the first error line, the first wrapper
        self._open: list[_Candidate] = []  # candidates still collecting their following lines

    @property
    def done(self) -> bool:
        """A fatal event is chosen and its excerpt is complete: later lines cannot change the answer."""
        return self._fatal is not None and not self._open

    def feed(self, number: int, raw: str) -> None:
        """One log line (its 1-based number and raw text)."""
        shown = strip_ansi(raw).rstrip("\r\n")[:TEXT_LIMIT]
        for candidate in self._open:
            candidate.after.append(ExcerptLine(number, shown[:500]))
        self._open = [c for c in self._open if len(c.after) < EXCERPT_AFTER]
        if self._fatal is None:
            self._consider(number, raw, shown)
        self._recent.append(ExcerptLine(number, shown[:500]))
        del self._recent[:-EXCERPT_BEFORE]

    def _consider(self, number: int, raw: str, shown: str) -> None:
        normalized = _normalize(raw)
        message = normalized.text
        if not message:
            return
        tag = _process_tag(raw)
        traceback = self._tracebacks.get(tag)
        fatal = normalized.level not in (Level.WARNING, Level.INFO)
        if "Traceback (most recent call last)" in message:
            self._tracebacks[tag] = _Traceback(number, fatal=fatal)
            return
        if message in _CHAIN:
            return
        if traceback is None and message.startswith('File "'):  # an excerpt that starts inside a traceback
            traceback = self._tracebacks[tag] = _Traceback(number, fatal=fatal)
        if traceback is not None:
            if number - traceback.start > TRACEBACK_SPAN:
                del self._tracebacks[tag]
            elif _is_exception_line(message):
                del self._tracebacks[tag]
                if traceback.fatal:
                    self._event(number, shown, message, LikelyReason.EXCEPTION)
                return
            else:
                return  # a frame, a source line, a caret line: part of the traceback
        if _PANIC.search(message):
            self._event(number, shown, message, LikelyReason.PANIC)
        elif _FATAL_PYTHON.search(message):
            self._event(number, shown, message, LikelyReason.FATAL_PYTHON)
        elif _SIGNAL.search(message) and normalized.level not in (Level.WARNING, Level.INFO):
            self._event(number, shown, message, LikelyReason.SIGNAL)
        elif normalized.level is Level.ERROR and not _FRAME_NOISE.match(message):
            self._fallback_candidate(number, shown, message, LikelyReason.ERROR_LINE)

    def _event(self, number: int, shown: str, message: str, reason: LikelyReason) -> None:
        if self._wrapper(message):
            self._fallback_candidate(number, shown, message, LikelyReason.WRAPPER)
            return
        self._fatal = self._candidate(number, shown, reason, wrapper=False)

    def _fallback_candidate(self, number: int, shown: str, message: str, reason: LikelyReason) -> None:
        wrapper = reason is LikelyReason.WRAPPER or self._wrapper(message)
        kind = LikelyReason.WRAPPER if wrapper else reason
        if any(existing.reason is kind for existing in self._fallback):
            return
        self._fallback.append(self._candidate(number, shown, kind, wrapper=wrapper))

    def _candidate(self, number: int, shown: str, reason: LikelyReason, *, wrapper: bool) -> _Candidate:
        candidate = _Candidate(number, shown, reason, wrapper, list(self._recent))
        self._open.append(candidate)
        return candidate

    def _wrapper(self, message: str) -> bool:
        return bool(_WRAPPER.search(message)) or self._is_wrapper(message)

    def result(self) -> LikelyLine | None:
        """The chosen line: the first fatal event, else the first error line, else the first wrapper."""
        chosen = self._fatal or next((c for c in self._fallback if not c.wrapper), None)
        chosen = chosen or next(iter(self._fallback), None)
        if chosen is None:
            return None
        excerpt = (*chosen.before, ExcerptLine(chosen.line, chosen.text[:500]), *chosen.after)
        return LikelyLine(chosen.line, chosen.text, chosen.reason, excerpt)


# Headers the shared normaliser leaves on: vLLM <0.7 (`ERROR 12-05 20:24:46 engine.py:366] `) and FastChat
# (`2023-10-26 18:11:35 | ERROR | stderr | `).
_MORE_PREFIXES = regex.compile(
    r"(?P<level>INFO|WARNING|ERROR|DEBUG|CRITICAL)\s+\d\d-\d\d\s+\d\d:\d\d:\d\d(?:\.\d+)?\s+[\w.]+:\d+\]\s"
    r"|\d{4}-\d\d-\d\d\s\d\d:\d\d:\d\d\s\|\s(?P<fastchat>[A-Z]+)\s\|\s\w+\s\|\s"
)
_LEVELS = {
    "ERROR": Level.ERROR,
    "CRITICAL": Level.ERROR,
    "WARNING": Level.WARNING,
    "INFO": Level.INFO,
    "DEBUG": Level.INFO,
}


def _normalize(raw: str) -> NormalizedLine:
    """The shared normaliser, then the older headers it does not know (their level is kept)."""
    normalized = normalize_line(raw)
    for _ in range(3):
        match = _MORE_PREFIXES.match(normalized.text)
        if match is None:
            return normalized
        inner = normalize_line(normalized.text[match.end() :])
        word = match["level"] or match["fastchat"] or ""
        level = min(inner.level, _LEVELS.get(word, Level.PLAIN), normalized.level)
        normalized = NormalizedLine(inner.text, Level(level))
    return normalized


def _process_tag(raw: str) -> str:
    match = _PROCESS_TAG.search(raw[:300])
    if match is None:
        return ""
    if match["pid"]:
        return f"pid={match['pid']}"
    if match["rank"]:
        return f"rank={match['rank']}"
    return (match["sglang"] or "").strip()


def pick_likely_cause(
    lines: Iterable[str], *, is_wrapper: Callable[[str], bool] = lambda _text: False
) -> LikelyLine | None:
    """The likely cause among lines (numbered from 1), reading no further than needed."""
    picker = LikelyCausePicker(is_wrapper=is_wrapper)
    for number, raw in enumerate(lines, 1):
        picker.feed(number, raw)
        if picker.done:
            break
    return picker.result()


def decoded_lines(blocks: Iterable[bytes], *, max_line: int = 1024 * 1024) -> Iterator[str]:
    """Lines of a byte stream read in blocks, decoded leniently; a giant line is cut at `max_line`."""
    pending = b""
    skipping = False  # the rest of a giant line already yielded: one line, as the scanner counts it
    for block in blocks:
        data = pending + block if pending else block
        if skipping:
            cut = data.find(b"\n")
            if cut < 0:
                pending = b""
                continue
            data, skipping = data[cut + 1 :], False
        parts = data.split(b"\n")
        pending = parts.pop()
        for part in parts:
            yield part[:max_line].decode("utf-8", "replace")
        if len(pending) > max_line:
            yield pending[:max_line].decode("utf-8", "replace")
            pending, skipping = b"", True
    if pending:
        yield pending.decode("utf-8", "replace")
