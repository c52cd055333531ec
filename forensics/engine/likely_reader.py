"""Reading a log for its likely cause: a byte stream in blocks, only the lines that can matter fed to the picker.

RE2 (where installed) finds the lines holding a keyword the picker can act on; Python decodes and feeds only
those, with the lines a chosen one needs around it for its excerpt. The answer is `pick_likely_cause`'s on
every line (engine/likely.py, the picker), at a fraction of the cost.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from forensics.engine.likely import (
    EXCERPT_BEFORE,
    LikelyCausePicker,
    LikelyLine,
    compile_patterns,
    says_something,
)
from forensics.engine.normalize import visible_line
from forensics.engine.prefilter import re2_module
from forensics.engine.scanner import EVIDENCE_TEXT_LIMIT, EXCERPT_TEXT_LIMIT, kept_text, line_counter
from forensics.model import ExcerptLine

# Every line the picker can act on holds one of these (a superset: matched without case); a line without
# any is only context, so a log is read at RE2's speed and Python sees a few lines per MiB.
_CANDIDATE_KEYWORDS = (
    rb"traceback|error|exception|panic|fatal|critical|kill|segmentation|core dumped|abort|terminat|signal"
    rb"|\bsig[a-z]{3,4}\b|exit(?:ed)?(?: with)?[ _]?(?:code|status)|\bassert |assertion [`']|oom|segfault|out of memory|interrupt|what\(\)|raise |file \""
    rb"|the above exception|during handling|fail|cannot|can't|could not|couldn't|unable|not found|no such"
    rb"|refused|denied|invalid|dead|died|crash|timed out|timeout|exceeded|not enough|already in use|no space"
    # a failure named without the failure words, systemd's exit status, a count short of what was expected, llama.cpp's
    # older assertion, hamcrest's mismatch (eleventh round)
    rb"|pure virtual method called|\bfault\b|\berr[a-z]|backoff|empty reply|code=exited|found \(expected|ggml_assert|^\s*but was:"
    rb"|not running|no route to host|unreachable|connection reset|broken pipe|not match"
    rb"|did not (?:run|complete|finish) successfully|there (?:was|has been) an? problem|lost (?:communication|connection) with|nccl warn"
    rb"|\*\*\* [a-z ]+ detected \*\*\*|\*\*\* error in `|corrupt|malloc\(\): |evicted|pressure|low on resource"
    rb"|found 0 |detected 0 |devices? (?:were )?(?:found|detected|available|discovered)|gpus? (?:were )?(?:found|detected|available|discovered)"
    rb"|platforms? (?:were )?(?:found|detected|available)"
    rb"|^=== (?:run|cont) |_test\.go:\d+: |^\s*x [a-z]"
    rb"|outofresources|node down|captured (?:stdout|stderr|log) |^e {2,}|^[ef]\d{4} |\[[ef]\d{3,4} |\[[ef]\]|\[[ef] | [efc] \d+ \d+\]|\"level\""
    # Jest's `● suite › test`, pip's and uv's `× message`: written as UTF-8, since RE2 reads a pattern's `\\xe2`
    # as a code point, not a byte (the escaped bytes never matched Jest's marker there)
    + "|^\\s*● |× ".encode()
)
_candidates: Any = None
LAST_LINE_SEARCH = 256  # lines a block's tail is searched back for the last line that says something


def _candidate_pattern() -> Any:
    """The keyword pattern over bytes: RE2 where installed (the pre-filter's engine), else `re`."""
    global _candidates  # noqa: PLW0603  # compiled once, on first use: importing compiles nothing
    if _candidates is None:
        pattern = b"(?im)" + _CANDIDATE_KEYWORDS
        re2 = re2_module()
        if re2 is not None:
            _candidates = re2.compile(pattern)
        else:
            import re

            _candidates = re.compile(pattern)
    return _candidates


def compile_for_workers() -> None:
    """Compile what a re-read needs (the keyword pattern, the picker's patterns) before forking workers: each
    inherits them instead of compiling its own."""
    _candidate_pattern()
    compile_patterns()


def pick_likely_cause_in_blocks(
    blocks: Iterable[bytes],
    *,
    is_wrapper: Callable[[str], bool] = lambda _text: False,
    max_line: int = 1024 * 1024,
) -> LikelyLine | None:
    """`pick_likely_cause` over a byte stream read in blocks, feeding the picker only the lines that can
    matter (and the lines a chosen one needs after it); the same answer, at a fraction of the cost."""
    picker = LikelyCausePicker(is_wrapper=is_wrapper)
    pattern = _candidate_pattern()
    number = 1  # the number of the first line of the data not fed yet
    pending = b""
    above = b""  # the last lines of the data already fed: the excerpt of a line that starts a block
    last: tuple[int, str, list[ExcerptLine]] | None = None  # the last line with something on it so far
    for block in blocks:
        data = pending + block if pending else block
        cut = data.rfind(b"\n")
        if cut < 0:
            pending = data if len(data) <= max_line else data[:max_line]  # one giant line: keep its head
            continue
        number = _feed_block(picker, data[: cut + 1], number, pattern, max_line, above)
        last = _last_shown_line(data[: cut + 1], number, above, max_line) or last
        above = _last_lines(above + data[: cut + 1])
        pending = data[cut + 1 :]
        if picker.done:
            return picker.result()
    if pending:
        number = _feed_block(picker, pending + b"\n", number, pattern, max_line, above)
        last = _last_shown_line(pending + b"\n", number, above, max_line) or last
    if last is not None and not picker.done:
        picker.last_line(last[0], last[1], before=last[2])
    return picker.result()


def _last_shown_line(
    block: bytes, after: int, above: bytes, max_line: int
) -> tuple[int, str, list[ExcerptLine]] | None:
    """The last line of a block of whole lines (the last numbered `after - 1`) that says something, with the lines
    above it: only the block's tail is searched and counted, and no further back than LAST_LINE_SEARCH lines (a block
    that ends in more lines of only punctuation than that leaves the answer to the blocks before it)."""
    end = len(block)
    for _ in range(LAST_LINE_SEARCH):
        while end > 0 and block[end - 1] in b" \t\r\n\x0b\x0c":
            end -= 1
        if end == 0:
            return None
        start = block.rfind(b"\n", 0, end) + 1
        raw = block[start : min(end, start + max_line)].decode("utf-8", "replace")
        if says_something(kept_text(visible_line(raw), EVIDENCE_TEXT_LIMIT)):
            number = after - block.count(b"\n", start)
            return number, raw, _lines_before(_head_before(above, block, start), number)
        end = start
    return None


def _last_lines(data: bytes) -> bytes:
    """The last EXCERPT_BEFORE whole lines of data that ends with a line break."""
    cursor = len(data) - 1
    for _ in range(EXCERPT_BEFORE):
        cursor = data.rfind(b"\n", 0, cursor)
        if cursor < 0:
            return data[-EXCERPT_TEXT_LIMIT * 8 * EXCERPT_BEFORE :]
    return data[cursor + 1 :]


def _feed_block(
    picker: LikelyCausePicker, block: bytes, number: int, pattern: Any, max_line: int, above: bytes = b""
) -> int:
    """Feed the candidate lines of a block of whole lines; the number of the line after the block."""
    position = 0
    counted_to = 0
    size = len(block)
    count = line_counter(size)
    while position < size and not picker.done:
        if picker.collecting:
            start = position
            number += block.count(
                b"\n", counted_to, start
            )  # one line's break: `bytes.count` is the cheaper call
            before = None
        else:
            match = pattern.search(block, position)
            if match is None:
                break
            start = block.rfind(b"\n", 0, match.start()) + 1
            number += count(block, counted_to, start)
            before = _lines_before(_head_before(above, block, start), number)
        end = block.find(b"\n", start)
        counted_to = start
        picker.feed(
            number, block[start : min(end, start + max_line)].decode("utf-8", "replace"), before=before
        )
        position = end + 1
    return number + count(block, counted_to, size)


def _head_before(above: bytes, block: bytes, start: int) -> bytes:
    """What `_lines_before` needs of the data before `start`: the last EXCERPT_BEFORE lines of the block, or
    the block's start with `above` when fewer lines precede (copying all of a block's start for every line fed
    cost a copy of up to a block per line)."""
    cursor = start
    for _ in range(EXCERPT_BEFORE):
        if cursor <= 0:
            return above + block[:start]
        cursor = block.rfind(b"\n", 0, cursor - 1) + 1
    return block[cursor:start] if cursor > 0 else above + block[:start]


def _lines_before(data: bytes, number: int) -> list[ExcerptLine]:
    """Up to EXCERPT_BEFORE lines at the end of `data` (which ends where line `number` starts)."""
    lines: list[ExcerptLine] = []
    cursor = len(data)
    block = data
    while cursor > 0 and len(lines) < EXCERPT_BEFORE:
        previous = block.rfind(b"\n", 0, cursor - 1) + 1
        raw = block[previous : cursor - 1][: EXCERPT_TEXT_LIMIT * 8].decode("utf-8", "replace")
        lines.append(ExcerptLine(number - len(lines) - 1, kept_text(visible_line(raw), EXCERPT_TEXT_LIMIT)))
        cursor = previous
    return lines[::-1]


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
