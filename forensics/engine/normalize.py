"""Strip what is not the message from a log line (colours, timestamps, process tags, level headers).

Rules then match the message itself, whatever harness, CI or logger wrapped it. The level found on the
way (an ERROR header, an exception line) is kept: an error line beats a warning when choosing a cause.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import IntEnum
from typing import TYPE_CHECKING

from forensics.lazy_regex import LazyRegex
from forensics.regex_code import VERBOSE, compile_pattern

if TYPE_CHECKING:
    import regex

# Terminal escape sequences: CSI (colours, cursor moves, `ESC[2J`), OSC (titles, `ESC]8;;url ESC\\` hyperlinks;
# ended by BEL or ST, or unterminated to the end of the line), charset selections and two-character escapes.
ANSI = LazyRegex(  # compiled for the first line holding an escape
    r"\x1b\[[0-9;?<=>!]*[ -/]*[@-~]|\x1b\][^\x07\x1b\n]{0,4096}(?:\x07|\x1b\\|(?=\n)|$)|\x1b[()#%][A-Za-z0-9]"
    r"|\x1b[P^_X][^\x1b\n]{0,4096}(?:\x1b\\|(?=\n)|$)|\x1b[\x20-\x7e]?"
)
# Control characters a terminal acts on, other than tab and line feed (C0, DEL, C1: `\x9b` is a CSI too), and
# the bidirectional overrides that make text read other than it is (CVE-2021-42574, "Trojan Source")
_CONTROL = compile_pattern(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")

# Each alternative is one prefix; they are stripped repeatedly because harnesses nest them
# (`2026-…Z [BASH] (EngineCore_DP0 pid=7) [rank0]: ERROR 11-28 08:14:19 [core.py:708] …`). Each comes with the
# ASCII characters it can start with (`_DIGITS`: an ASCII digit), so that a small run compiles only the few a line
# can need (the whole alternation takes ~10 ms to compile with `regex`; see `_prefix_match`). Verbose syntax.
_DIGITS = "0123456789"
_PREFIXES: tuple[tuple[str, str], ...] = (
    # GitHub Actions / ISO stamp
    (
        _DIGITS,
        r"""\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?\s+
        (?:(?P<iso_level>INFO|WARN|WARNING|ERROR|DEBUG|TRACE|CRITICAL|FATAL)\s+(?:[\w.:-]+:\s+)?)?""",
    ),
    # [stamp] (SGLang: `[12-16 14:27:08 TP0]`)
    (
        "[",
        r"\[(?:\d{4}-)?\d\d-\d\d[T\ ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?(?:\s+[A-Z]{1,4}\d+)*\]\s*",
    ),
    (
        "CEWID",
        r"(?P<capture_level>CRITICAL|ERROR|WARNING|INFO|DEBUG)\s+[\w.]+:[\w.-]+:\d+\s",
    ),  # pytest's log capture
    ("[", r"\[(?P<tag>[A-Za-z][\w-]{0,24}|w\d+)\]:?\s"),  # [BASH] [PYTHON] [w3] [ERROR]
    ("[", r"\[rank\d+\]:?\s*"),  # torch rank tag
    # vLLM's process tag; Ray's adds the node's address for a worker on another node (`(RayWorkerWrapper pid=7, ip=10.0.0.2)`)
    ("(", r"\((?:[A-Za-z_][\w-]*(?:\s+(?:rank|pid)=\d+)*)\s+pid=\d+(?:,\s*ip=[\d.]+)?\)\s*"),
    (  # vLLM header
        "IWEDC",
        r"(?P<vllm_level>INFO|WARNING|WARN|ERROR|DEBUG|CRITICAL)\s+\d\d-\d\d\s+\d\d:\d\d:\d\d(?:\.\d+)?\s+\[[^\]\s]+\]\s",
    ),
    ("#", r"\#\#\[(?P<actions_level>error|warning|notice|debug|group|endgroup)\]"),  # GitHub Actions marker
    ("E", r"E\s{2,}(?=\S)"),  # pytest's error lines
    # glog / c10 / absl (`W1201 09:50:33.669 123 file.cc:83] `, `[W914 04:53:45.6 ProcessGroupNCCL.cpp:1476] `)
    ("[WIF", r"\[?(?P<glog>[WIF])\d{3,4}\s+\d\d:\d\d:\d\d(?:\.\d+)?(?:\s+\d+)?\s+[^\s\]]{1,300}:\d+\]:?\s*"),
    ("[", r"\[(?P<glog_short>[WIF])\s+[\w.-]{1,200}:\d+\]\s*"),  # c10d's `[W socket.cpp:464] `
    # Ray's C++ log (src/ray/util/logging.cc): `[2024-02-27 16:09:19,106 E 19394 19394] logging.cc:361: `; its
    # level letter stays unread, as glog's `E` does (the exception that follows is the line to show)
    ("[", r"\[\d{4}-\d\d-\d\d\ \d\d:\d\d:\d\d,\d{3}\ [DIWEF]\ \d+\ \d+\]\s+[\w.-]{1,100}:\d+:\s*"),
    (  # Google Cloud Logging export
        "IWEDNC",
        r"""(?P<gcl_level>INFO|WARNING|ERROR|DEBUG|DEFAULT|NOTICE|CRITICAL)\s+\d{4}-\d\d-\d\dT[\d:.]+Z?\s+
        (?:\[resource\.[^\]]{0,500}\]\s*)?""",
    ),
    ("[", r"\[\d\d/\d\d/\d{4}-\d\d:\d\d:\d\d\]\s*"),  # TensorRT's `[03/27/2024-11:09:02] `
    ("[", r"\[TRT\]\s*(?:\[(?P<trt_level>[EWIVF])\]\s*)?"),  # TensorRT's `[TRT] [E] `
    (
        "EFCWID",
        r"(?P<word_level>ERROR|FATAL|CRITICAL|WARNING|WARN|INFO|DEBUG):\s+",
    ),  # pip's, Go's, many CLIs' `ERROR: `
    (
        "ECWID",
        r"(?P<pylog_level>ERROR|CRITICAL|WARNING|INFO|DEBUG):[\w.-]{1,200}:(?=\S)",
    ),  # logging.BASIC_FORMAT
    ("|", r"[|\u2502\u2503]\s+(?=\S)"),  # a Buildkite page copy's `| `, box-drawing frames
)
# The whole alternation: what a line starting with a non-ASCII character is matched against, and every line once
# `_PREFIX_BY_FIRST` has served `_SMALL_RUN` lines (one match per line is then faster than trying a few).
_PREFIX = LazyRegex("(?:" + "|".join(f"(?:{alternative})" for _, alternative in _PREFIXES) + ")", VERBOSE)
_PREFIX_BY_FIRST: dict[str, tuple[LazyRegex, ...]] = {}
for _first, _alternative in _PREFIXES:
    _compiled_alternative = LazyRegex(_alternative, VERBOSE)
    for _character in _first:
        _PREFIX_BY_FIRST[_character] = (*_PREFIX_BY_FIRST.get(_character, ()), _compiled_alternative)
_SMALL_RUN = 256
_prefix_lines = [0]  # lines matched the small-run way so far
# An exception line (`x.y.SomeError: …`, a bare `Exception: …`), a Rust panic (`thread 'x' (123) panicked at`
# since Rust 1.92), a fatal Python error, a FATAL/CRITICAL/PANIC word, a failure signal handler's announcement
# (Abseil's `*** SIGSEGV received at time=…`, glog's `*** SIGSEGV (@0x0) received by PID …`).
_EXCEPTION_LINE = compile_pattern(
    r"(?:[A-Za-z_][\w]*\.)*(?:[A-Z]\w*(?:Error|Exception|Exit|Interrupt|Failure)|Exception)(?:\[\w+\])?:\s|"
    r"(?:[A-Za-z_][\w]*\.)*[A-Z]\w*(?:Error|Exception)$|thread '[^']*'(?: \(\d+\))? panicked at|"
    # faulthandler writes on the line pytest -v started with the test's node id (`tests/x.py::test_y Fatal Python …`)
    r"(?:[\w./\\-]{1,300}\.py::[^\s]{1,500} )?Fatal Python error:|"
    r"(?:FATAL|CRITICAL|PANIC)\b|\*\*\* SIG[A-Z]{2,6} (?:\(@0x[0-9a-f]{1,16}\) )?received\b"
)
_LEVEL_WORDS = {
    "ERROR": 0,
    "CRITICAL": 0,
    "FATAL": 0,
    "WARNING": 2,
    "WARN": 2,
    "INFO": 3,
    "DEBUG": 3,
    "TRACE": 3,
    "NOTICE": 3,
}
_ONE_LETTER = {"E": "ERROR", "F": "FATAL", "W": "WARNING", "I": "INFO", "V": "DEBUG"}
# glog/c10 `E` lines are logged just before the exception that carries the same message (the exception is the line
# to show), so their prefix stays on and they keep the plain level (engine/likely.py reads it); `F` aborts the
# process, `W`/`I` are not errors.
_GLOG_LEVELS = {"F": "FATAL", "W": "WARNING", "I": "INFO"}
_MAX_PREFIXES = 12


class Level(IntEnum):
    """How strongly a line says "error": lower sorts first when choosing a root cause."""

    ERROR = 0
    PLAIN = 1
    WARNING = 2
    INFO = 3


@dataclass(frozen=True, slots=True)
class NormalizedLine:
    """The message part of a line and its level."""

    text: str
    level: Level


def strip_ansi(text: str) -> str:
    """Remove colour and cursor escape codes."""
    return ANSI.sub("", text) if "\x1b" in text else text


def last_state(line: str) -> str:
    """What a terminal shows of a line that carriage returns overwrote (`progress 1%\\r…\\rRuntimeError: x`)."""
    if "\r" not in line:
        return line
    line = line.rstrip("\r\n")
    return next((part for part in reversed(line.split("\r")) if part.strip()), "")


def visible_line(raw: str) -> str:
    """A log line as a terminal shows it: no escape sequences, the last state of a CR-overwritten line."""
    return last_state(strip_ansi(raw).rstrip("\n"))


def strip_controls(text: str) -> str:
    """Text with no terminal escapes or control characters left (tab and line feed stay), each line in its
    last state; what reports and stores hold, so no output can move a cursor, clear a screen or hide a link."""
    if "\r" in text:
        text = "\n".join(last_state(line) for line in text.split("\n"))
    return _CONTROL.sub("", strip_ansi(text))


def normalize_line(raw: str) -> NormalizedLine:
    """The message with every known prefix removed, and the strongest level a prefix or the text shows."""
    text = visible_line(raw).lstrip()  # a quoted or indented log keeps its prefixes after the indent
    level: Level | None = None
    for _ in range(_MAX_PREFIXES):
        match = _prefix_match(text)
        if match is None or match.end() == 0:
            break
        groups = match.groupdict()
        word = (
            groups.get("iso_level")
            or groups.get("vllm_level")
            or groups.get("capture_level")
            or groups.get("actions_level")
            or groups.get("tag")
            or groups.get("gcl_level")
            or groups.get("word_level")
            or groups.get("pylog_level")
            or _GLOG_LEVELS.get(groups.get("glog") or groups.get("glog_short") or "")
            or _ONE_LETTER.get(groups.get("trt_level") or "")
        )
        if word:
            found = _LEVEL_WORDS.get(_ONE_LETTER.get(word, word).upper())  # `[E]` as TensorRT writes it
            if found is not None:
                level = Level(found) if level is None else Level(min(level, found))
        if match.group(0).startswith("E "):
            level = Level.ERROR
        text = text[match.end() :]
    message = text.strip()
    exception_line = _EXCEPTION_LINE.match(message) is not None and not message.startswith("Traceback")
    if exception_line and (level is None or level > Level.ERROR):
        level = Level.ERROR
    return NormalizedLine(text=message, level=level if level is not None else Level.PLAIN)


def _prefix_match(text: str) -> regex.Match[str] | None:
    """`_PREFIX.match(text)`. The first `_SMALL_RUN` lines starting with an ASCII character try, in order, only the
    alternatives that can start with it, each compiled on first use: the same match, since the alternation's
    first alternative to match at the start is its match (tests/test_normalize.py compares the two ways on
    every line of the training corpus)."""
    if not text:
        return None
    if _prefix_lines[0] < _SMALL_RUN and text[0].isascii():
        _prefix_lines[0] += 1
        return prefix_match_by_first_character(text)
    return _PREFIX.match(text)


def compile_for_many_lines() -> None:
    """Compile the whole prefix alternation now and match every later line with it (what a process does
    anyway after `_SMALL_RUN` lines): called before forking workers for a big input, so that each inherits the
    compiled alternation instead of compiling it, and a few of the per-character alternatives, on its own
    (~10 ms of `regex`'s compiler in every worker). The same matches either way."""
    _ = _PREFIX.compiled
    _prefix_lines[0] = max(_prefix_lines[0], _SMALL_RUN)


def prefix_match_by_first_character(text: str) -> regex.Match[str] | None:
    """`_PREFIX.match(text)` for a text starting with an ASCII character, trying only the alternatives that can
    start with it."""
    for alternative in _PREFIX_BY_FIRST.get(text[:1], ()):
        match = alternative.match(text)
        if match is not None:
            return match
    return None


# Every line `is_error_line` accepts contains one of these; lines without them need no normalising.
MAYBE_ERROR = re.compile(
    rb"Error|Exception|Exit|Interrupt|Failure|ERROR|CRITICAL|FATAL|Fatal|PANIC|panicked|error\]|E  "
    rb"|[EF]\d{4} \d\d:|\[[EF][\] ]|\*\*\* SIG"
)


def is_error_line(line: NormalizedLine) -> bool:
    """An error-level line that says something (not a traceback header or a source frame)."""
    if line.level is not Level.ERROR or not line.text:
        return False
    text = line.text
    return not (text.startswith(("Traceback", 'File "', "^", "~")) or text in ("Last error:",))
