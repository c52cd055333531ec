"""Scan one log stream once for every rule: pre-filter blocks of bytes, then run patterns on candidate lines.

Memory stays bounded whatever the log size: the stream is read in blocks, only candidate lines are
decoded, and each probe keeps at most one hit per level.
"""

from __future__ import annotations

import importlib
import io
import zlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any, BinaryIO, overload

from forensics.engine.decode import utf8_stream
from forensics.engine.normalize import (
    MAYBE_ERROR,
    Level,
    NormalizedLine,
    compile_for_many_lines,
    is_error_line,
    normalize_line,
    visible_line,
)
from forensics.engine.prefilter import PLAIN_BYTES, PLAIN_LINES, Prefilter, ProbeSelector, first_match_finder
from forensics.engine.rejected import RejectedLines
from forensics.errors import zip_read_errors
from forensics.model import ExcerptLine, Problem, RuleKind, RuleScope
from forensics.rules.automata import AutomatonStore
from forensics.rules.literals import Literals
from forensics.rules.model import PackRules, Rule, RulePattern, RuleSet
from forensics.sizes import format_size

if TYPE_CHECKING:
    import regex

EXCERPT_TEXT_LIMIT = 500  # what a report shows of an excerpt line ...
EVIDENCE_TEXT_LIMIT = 2000  # ... and of an evidence line: cut there only after redaction (report.redact)
# What the scanner keeps of a line, so a secret that crosses the shown limit is still whole when redacted
KEPT_TEXT_FACTOR = 4
_Gate = tuple[
    tuple[tuple[str, ...], bool], ...
]  # literal sets (with their case-insensitivity): one of each needed


# Every byte of a scanned log is counted for line breaks (hits and the last error line carry line numbers, the
# report each log's line count). CPython's `bytes.count` of one byte is a byte-by-byte loop (~2.3 GB/s a core on the
# benchmark's healthy mix, ~0.4 CPU s a GiB); StringZilla's (the `stringzilla` wheel) counts with the CPU's vector
# units, ~10 GB/s on the same lines, the same count. Blocks from this size on are counted by it where it is
# installed; a smaller input never imports it.
SIMD_COUNT_BYTES = 64 * 1024
_COUNTERS: list[Callable[[bytes, int, int], int]] = []


def bytes_count(data: bytes, start: int, end: int) -> int:
    """The line breaks in `data[start:end]`, by `bytes.count`."""
    return data.count(b"\n", start, end)


def line_counter(size: int) -> Callable[[bytes, int, int], int]:
    """`count(data, start, end)`: the line breaks in `data[start:end]`, for a block of `size` bytes: StringZilla's
    where it is installed and the block holds at least `SIMD_COUNT_BYTES`, `bytes_count` otherwise."""
    if size < SIMD_COUNT_BYTES:
        return bytes_count
    if not _COUNTERS:
        _COUNTERS.append(_simd_count())
    return _COUNTERS[0]


def _simd_count() -> Callable[[bytes, int, int], int]:
    try:
        stringzilla: Any = importlib.import_module("stringzilla")
    except ImportError:
        return bytes_count
    count = stringzilla.count

    def simd_count(data: bytes, start: int, end: int) -> int:
        found: int = count(data, b"\n", start, end)
        return found

    return simd_count


class ProbeRole(StrEnum):
    """What a probe's matches are used for."""

    PATTERN = "pattern"
    REQUIRES = "requires"
    EXCLUDES = "excludes"
    CONTEXT = "context"


@dataclass(frozen=True, slots=True)
class Probe:
    """One regex the scanner looks for, tied to the rule it belongs to."""

    rule_index: int
    role: ProbeRole
    pattern: RulePattern
    literals: Literals | None


@dataclass(frozen=True, slots=True)
class ScanLimits:
    """Bounds that keep one log from taking the run down."""

    max_bytes: int = 512 * 1024 * 1024
    regex_timeout: float = 0.5
    max_line: int = 1024 * 1024
    block_size: int = 1024 * 1024
    context_before: int = 3
    context_after: int = 2
    tail_bytes: int = 64 * 1024


class CompiledRules:
    """Every rule's patterns and co-conditions as probes, with one pre-filter over all of them."""

    def __init__(
        self,
        rules: RuleSet,
        *,
        use_literals: bool = True,
        plain_bytes: int = PLAIN_BYTES,
        plain_lines: int = PLAIN_LINES,
        hyperscan: bool = True,
        automata: AutomatonStore | None = None,
    ) -> None:
        """`use_literals=False` is the plain path (every line through every pattern), kept to check the fast one;
        `plain_bytes`/`plain_lines`: how much is searched literal by literal before the automata are compiled;
        `hyperscan=False`: RE2's pre-filter even where Hyperscan is installed (engine/prefilter.py); `automata`:
        where Hyperscan's compiled database is kept between runs (rules/automata.py; None compiles it)."""
        table = rules.rules if isinstance(rules, RuleSet) else ()
        if not isinstance(table, PackRules):
            table = PackRules(tuple(rules))
        self.rules: Sequence[Rule] = table  # a cached pack's rules are built when first read
        self._table = table
        # per probe: its rule, its field in PATTERN_FIELDS (= its ProbeRole, in order) and position, its literals
        rows: list[tuple[int, int, int]] = []
        literal_sets: list[Literals | None] = []
        self.probes_by_rule: dict[int, tuple[int, ...]] = {}
        fatal_line: list[int] = []
        for index in range(len(table)):
            first = len(rows)
            if table.scope(index) is RuleScope.LIKELY_CAUSE:
                # a fatal-line rule is never scanned (no probe, no pre-filter literal): engine/fatal_line.py tries
                # it on one line, the likely cause of a failure no other rule explains
                fatal_line.append(index)
                self.probes_by_rule[index] = ()
                continue
            for role, position, literals in table.probes(index):
                rows.append((index, role, position))
                literal_sets.append(literals)
            self.probes_by_rule[index] = tuple(range(first, len(rows)))
        self._rows = rows
        self.fatal_line_rules: tuple[int, ...] = tuple(fatal_line)  # in load order
        self.probes: Sequence[Probe] = _Probes(table, rows, literal_sets)  # each made when first read
        self.use_literals = use_literals
        # per probe, the ways through its pattern, each with every literal set it needs one of (read on the
        # probe's first candidate line), and all those sets together
        self._ways: dict[int, tuple[_Gate, ...]] = {}
        self._gates: dict[int, _Gate] = {}
        if not use_literals:
            literal_sets = [None] * len(literal_sets)
        self.prefilter = Prefilter.build(
            literal_sets, plain_bytes=plain_bytes, hyperscan=hyperscan, store=automata
        )
        self.selector = ProbeSelector(literal_sets, plain_lines=plain_lines, search=self.prefilter.pattern)
        self.rejected = RejectedLines(literal_sets, self.gate)

    def kind_of(self, rule_index: int) -> RuleKind:
        """The kind of rule `rule_index`, without building the rule (a cached pack's rules are built when read)."""
        return self._table.kind(rule_index)

    def role_of(self, number: int) -> ProbeRole:
        """Probe `number`'s role, without making the probe."""
        return _ROLES[self._rows[number][1]]

    def rule_of(self, number: int) -> int:
        """The index of probe `number`'s rule, without making the probe."""
        return self._rows[number][0]

    def compile_automata(self) -> None:
        """Compile the pre-filter's automata now (they are otherwise compiled on first need), the rejected lines'
        digit finder and the normaliser's whole prefix alternation: before forking workers, so that each
        inherits them instead of compiling its own."""
        if self.prefilter.pattern is not None:
            self.prefilter.pattern.finder()
        self.selector.compile()
        if self.use_literals:
            self.rejected.compile()
        compile_for_many_lines()

    def ways(self, number: int) -> tuple[_Gate, ...]:
        """Probe `number`'s ways through its alternations (`required_literal_ways`), each its literal sets as
        `possible` checks them (with their case-insensitivity); a set of non-ASCII case-insensitive literals
        is left out (folded beyond ASCII: the pattern decides)."""
        ways = self._ways.get(number)
        if ways is None:
            rule_index, field, position = self._rows[number]
            ways = self._ways[number] = tuple(
                tuple(
                    (literals.alternatives, literals.ignore_case)
                    for literals in way
                    if not literals.ignore_case or all(literal.isascii() for literal in literals.alternatives)
                )
                for way in self._table.literal_ways(rule_index, field, position)
            ) or ((),)  # a pattern that cannot be read: every line may match it
        return ways

    def gate(self, number: int) -> _Gate:
        """Every literal set of every way of probe `number` (`RejectedLines` checks them for digits)."""
        gate = self._gates.get(number)
        if gate is None:
            gate = self._gates[number] = tuple(literals for way in self.ways(number) for literals in way)
        return gate

    def possible(self, number: int, text: str) -> bool:
        """Whether `text` holds, for some way through probe `number`'s alternations, a literal of every part that
        needs one; when it does not, the pattern cannot match it, nor any part of it (`(?:failed|timed out)
        after` needs both literals, where the pre-filter looks for one; `Error: .*CUDA.*not available|No CUDA
        GPUs` needs all three of its first branch's or the second's)."""
        folded: str | None = None
        for way in self.ways(number):
            for alternatives, insensitive in way:
                haystack = text
                if insensitive:
                    if not text.isascii():  # case folding beyond ASCII: leave it to the pattern
                        continue
                    folded = haystack = folded if folded is not None else text.lower()
                if not any(literal in haystack for literal in alternatives):
                    break
            else:
                return True
        return False


_ROLES = tuple(ProbeRole)  # in PATTERN_FIELDS order


class _Probes(Sequence[Probe]):
    """The probes of a compiled rule set, each made on first read: a thousand rules' probes (and their patterns)
    cost more to make than a one-line log costs to scan."""

    __slots__ = ("_literal_sets", "_made", "_rows", "_table")

    def __init__(
        self, table: PackRules, rows: list[tuple[int, int, int]], literal_sets: list[Literals | None]
    ) -> None:
        self._table = table
        self._rows = rows
        self._literal_sets = literal_sets
        self._made: list[Probe | None] = [None] * len(rows)

    def __len__(self) -> int:
        return len(self._rows)

    @overload
    def __getitem__(self, number: int) -> Probe: ...

    @overload
    def __getitem__(self, number: slice) -> tuple[Probe, ...]: ...

    def __getitem__(self, number: int | slice) -> Probe | tuple[Probe, ...]:
        if isinstance(number, slice):
            return tuple(self[n] for n in range(*number.indices(len(self._rows))))
        probe = self._made[number]
        if probe is None:
            rule_index, role, position = self._rows[number]
            pattern = self._table.pattern(rule_index, role, position)
            probe = self._made[number] = Probe(rule_index, _ROLES[role], pattern, self._literal_sets[number])
        return probe

    def __iter__(self) -> Iterator[Probe]:
        return (self[number] for number in range(len(self._rows)))


@dataclass(frozen=True, slots=True)
class Hit:
    """A probe matching one line: where, how loud the line was, and what it captured."""

    probe: int
    line: int
    text: str
    level: Level
    captures: tuple[tuple[str, str], ...]
    excerpt: tuple[ExcerptLine, ...]


@dataclass
class LogScan:
    """What one pass over one log found."""

    hits: dict[int, list[Hit]] = field(default_factory=dict)  # probe -> first hit at each level
    counts: dict[int, int] = field(default_factory=dict)
    last_error: ExcerptLine | None = None
    lines: int = 0
    bytes_read: int = 0
    truncated: bool = False
    problems: list[Problem] = field(default_factory=list)

    def record(self, hit: Hit) -> None:
        """Keep the first hit per level for each probe; count them all."""
        self.counts[hit.probe] = self.counts.get(hit.probe, 0) + 1
        kept = self.hits.setdefault(hit.probe, [])
        if all(existing.level is not hit.level for existing in kept):
            kept.append(hit)

    def present(self, probe: int) -> bool:
        """Whether a probe matched anywhere in this log."""
        return self.counts.get(probe, 0) > 0


def scan_text(text: str, compiled: CompiledRules, *, name: str, limits: ScanLimits | None = None) -> LogScan:
    """Scan text already in memory (a status message, a trace, a rule example)."""
    return scan_stream(io.BytesIO(text.encode("utf-8", "replace")), compiled, name=name, limits=limits)


def scan_stream(
    stream: BinaryIO, compiled: CompiledRules, *, name: str, limits: ScanLimits | None = None
) -> LogScan:
    """Read a log once; a read error or the size limit ends the scan early as a problem, keeping what was found."""
    scanner = _Scanner(compiled, name, limits or ScanLimits())
    try:
        for block, size in _blocks(utf8_stream(stream), scanner):
            scanner.process(block, size)
    except zip_read_errors(OSError, EOFError, zlib.error) as err:
        scanner.scan.problems.append(
            Problem(
                object=name,
                message=f"reading stopped after {scanner.scan.bytes_read} bytes: {err}",
                hint="the archive may be truncated or corrupt; download it again",
            )
        )
    scanner.finish()
    return scanner.scan


def _blocks(stream: BinaryIO, scanner: _Scanner) -> Iterator[tuple[bytes, int]]:
    """Blocks that end at a line break (or at `max_line` for a giant line), within the size limit: each as the
    bytes read and the length that is the block (the rest, a line's start, comes again in the next block; not
    cut off here, which copied every block once more)."""
    limits = scanner.limits
    pending = b""
    remaining = limits.max_bytes
    while True:
        chunk = stream.read(min(limits.block_size, remaining)) if remaining > 0 else b""
        remaining -= len(chunk)
        scanner.scan.bytes_read += len(chunk)
        if not chunk:
            if remaining <= 0 and stream.read(1):
                scanner.scan.truncated = True
            if pending:
                yield pending, len(pending)
            return
        data = pending + chunk if pending else chunk
        cut = data.rfind(b"\n")
        if cut >= 0:
            yield data, cut + 1
            pending = data[cut + 1 :]
        elif len(data) >= limits.max_line:
            yield data, len(data)  # one giant line: match its pieces, keep counting it as one line
            pending = b""
        else:
            pending = data


class _Scanner:
    """The state of one pass: line numbering across blocks, disabled probes, the tail for the last error."""

    def __init__(self, compiled: CompiledRules, name: str, limits: ScanLimits) -> None:
        self.compiled = compiled
        self.name = name
        self.limits = limits
        self.scan = LogScan()
        self.newlines = 0  # line breaks seen before the current block
        self.timed_out: set[int] = set()
        self.tail = b""
        self.tail_from_start = True  # the tail still holds the first line whole
        pattern = compiled.prefilter.pattern
        self.pattern = pattern
        self.find = None if pattern is None else first_match_finder(pattern)

    def process(self, block: bytes, size: int) -> None:
        """The block's first `size` bytes (whole lines; what follows is not part of it)."""
        find = self.find
        # once the search has come to Hyperscan (in a worker: from its first block), `LiteralSearch.find` only
        # hands each call on to it; called directly, ~50 candidate lines a MiB skip two Python calls each
        hyperscan = None if self.pattern is None else self.pattern.hyperscan_search()
        if hyperscan is not None:
            find = hyperscan
        position = 0
        counted_to = 0
        line_number = self.newlines + 1
        count = line_counter(size)
        while position < size:
            if find is None:
                start = position
            else:
                found = find(block, position, size)
                if found < 0:
                    break
                start = block.rfind(b"\n", 0, found) + 1
            end = block.find(b"\n", start, size)
            end = size if end < 0 else end
            line_number += count(block, counted_to, start)
            counted_to = start
            self.match_line(block, start, end, line_number, size)
            position = end + 1
        # the breaks before the last candidate line were counted on the way: count only the rest
        self.newlines = line_number - 1 + count(block, counted_to, size)
        keep = self.limits.tail_bytes
        # a block longer than the tail: only its end to copy
        joined = self.tail + block[:size] if size < keep else block[size - keep : size]
        self.tail_from_start = self.tail_from_start and len(self.tail) + size <= keep
        self.tail = joined[-keep:]

    def match_line(self, block: bytes, start: int, end: int, line_number: int, size: int) -> None:
        piece = block[start : min(end, start + self.limits.max_line)]
        compiled = self.compiled
        possible: set[int] | None = None
        if compiled.use_literals:
            rejected = compiled.rejected
            key = rejected.key(piece)
            if rejected.known(key):  # the same line but for its digits was turned away before
                return
            raw = piece.decode("utf-8", "replace")
            # The message is a part of the line as a terminal shows it: a probe that cannot match the shown
            # line cannot match its message, and most candidate lines end here, before being normalised.
            shown = visible_line(raw)
            selected = compiled.selector.select(shown)
            possible = {number for number in selected if compiled.possible(number, shown)}
            if not possible:
                rejected.remember(key, selected)
                return
        else:
            raw = piece.decode("utf-8", "replace")
        line = normalize_line(raw)
        if not line.text:
            return
        probes = compiled.probes
        for number in compiled.selector.select(line.text):
            if number in self.timed_out or (possible is not None and number not in possible):
                continue
            probe = probes[number]
            found = self.search(number, probe, line, line_number)
            if found is not None:
                captures = tuple((k, v) for k, v in found.groupdict().items() if v is not None)
                self.scan.record(
                    Hit(
                        probe=number,
                        line=line_number,
                        text=kept_text(visible_line(raw), EVIDENCE_TEXT_LIMIT),
                        level=line.level,
                        captures=captures,
                        excerpt=_excerpt(block, size, start, end, line_number, self.limits),
                    )
                )

    def search(
        self, number: int, probe: Probe, line: NormalizedLine, line_number: int
    ) -> regex.Match[str] | None:
        try:
            return probe.pattern.search(line.text, timeout=self.limits.regex_timeout)
        except TimeoutError:
            self.timed_out.add(number)
            rule = self.compiled.rules[probe.rule_index]
            self.scan.problems.append(
                Problem(
                    object=f"rule '{rule.id}'",
                    message=(
                        f"pattern /{probe.pattern.pattern[:80]}/ gave up after {self.limits.regex_timeout}s on "
                        f"line {line_number} of {self.name}; the rule was skipped for the rest of this log"
                    ),
                    hint="the pattern backtracks; bound its repeats (`ci-forensics rules lint` finds such patterns)",
                )
            )
            return None

    def finish(self) -> None:
        self.scan.lines = self.newlines + (1 if self.tail and not self.tail.endswith(b"\n") else 0)
        if self.scan.truncated:
            self.scan.problems.append(
                Problem(
                    object=self.name,
                    message=f"larger than the {format_size(self.limits.max_bytes)} limit; "
                    "only the beginning was analysed",
                    hint="raise --max-log-size if the root cause may be further down",
                )
            )
        self.scan.last_error = _last_error_line(self.tail, self.newlines, whole=self.tail_from_start)


def _excerpt(
    block: bytes, size: int, start: int, end: int, line_number: int, limits: ScanLimits
) -> tuple[ExcerptLine, ...]:
    """The matched line with a few lines before and after it, as far as this block (its first `size` bytes)
    holds them."""
    before: list[ExcerptLine] = []
    cursor = start
    for offset in range(1, limits.context_before + 1):
        if cursor <= 0:
            break
        previous = block.rfind(b"\n", 0, cursor - 1) + 1
        before.append(ExcerptLine(line_number - offset, _excerpt_text(block[previous : cursor - 1])))
        cursor = previous
    lines = [*reversed(before), ExcerptLine(line_number, _excerpt_text(block[start:end]))]
    cursor = end
    for offset in range(1, limits.context_after + 1):
        if cursor >= size - 1:
            break
        following = block.find(b"\n", cursor + 1, size)
        following = size if following < 0 else following
        lines.append(ExcerptLine(line_number + offset, _excerpt_text(block[cursor + 1 : following])))
        cursor = following
    return tuple(lines)


def _excerpt_text(raw: bytes) -> str:
    overwritten = raw.rstrip(b"\r\n").rfind(b"\r")  # a progress bar: only its last state is worth reading
    if overwritten >= 0:
        raw = raw[overwritten + 1 :]
    limit = EXCERPT_TEXT_LIMIT * KEPT_TEXT_FACTOR
    return kept_text(visible_line(raw[: limit * 4].decode("utf-8", "replace")), EXCERPT_TEXT_LIMIT)


def kept_text(text: str, shown: int) -> str:
    """At most KEPT_TEXT_FACTOR × `shown` characters of a line, ending at a word's end: a token cut there could
    no longer be recognised as a secret, so the cut token goes too (the report cuts to `shown` after redacting)."""
    limit = shown * KEPT_TEXT_FACTOR
    if len(text) <= limit:
        return text
    cut = text[:limit]
    words = cut.split()
    if not text[limit].isspace() and len(words) > 1:  # one giant word: nothing to tell apart, keep it
        cut = cut[: len(cut) - len(words[-1])]
    return cut + "…"


def _last_error_line(tail: bytes, newlines_total: int, *, whole: bool) -> ExcerptLine | None:
    """The last error-level line among the final lines of the log (for fingerprints of unexplained failures)."""
    if not tail:
        return None
    lines = tail.split(b"\n")
    if tail.endswith(b"\n"):
        lines.pop()
    last_number = newlines_total if tail.endswith(b"\n") else newlines_total + 1
    for offset, raw in enumerate(reversed(lines if whole else lines[1:])):
        if MAYBE_ERROR.search(raw) is None:
            continue
        text = raw.decode("utf-8", "replace")
        if is_error_line(normalize_line(text)):
            return ExcerptLine(last_number - offset, kept_text(visible_line(text), EVIDENCE_TEXT_LIMIT))
    return None
