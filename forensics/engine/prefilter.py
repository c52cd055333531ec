"""Find the literal text every match of a pattern must contain, and search a block for all of them at once.

Matching every rule's regex against every line is what makes a naive engine slow. Instead one combined
search over raw bytes finds the few lines that contain some rule's required literal; only those lines
are decoded, normalised and given to the real patterns. A pattern without a usable literal (3+ chars)
makes every line a candidate: correct, just slower (`rules lint` points such patterns out).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from forensics.rules.literals import Literals

if TYPE_CHECKING:
    from forensics.rules.automata import AutomatonStore

_RE2: list[Any] = []  # the `re2` module (or None where it cannot be imported), once it is first needed


def re2_module() -> Any:
    """google-re2 (a DFA for the one big alternation of literals), or None where it cannot be imported; imported
    when first needed (an automaton compiled, the picker's gates' Set, the likely-cause reader's keywords): a
    one-line log never needs it (~8 M instructions)."""
    if not _RE2:
        try:
            import re2  # type: ignore[import-untyped]
        except ImportError:  # pragma: no cover - the dependency is declared; this keeps a broken wheel usable
            re2 = None
        _RE2.append(re2)
    return _RE2[0]


_HYPERSCAN: list[
    Any
] = []  # the `hyperscan` module (or None where it is not installed), once it is first needed


def _hyperscan() -> Any:
    """Hyperscan (SIMD multi-literal search, ~30 ms to import), imported when a big input first needs the
    automaton: never for a one-line log. None where no wheel exists for the platform (pyproject's marker): RE2
    then does the same search."""
    if not _HYPERSCAN:
        module: Any = None
        try:
            import hyperscan

            module = hyperscan
        except ImportError:  # pragma: no cover - installed wherever a wheel exists (pyproject's marker)
            pass
        _HYPERSCAN.append(module)
    return _HYPERSCAN[0]


class _Searcher(Protocol):
    """What the scanner needs of a compiled pre-filter: the next literal at or after a position."""

    def search(self, data: bytes, pos: int = ..., endpos: int = ...) -> _Match | None: ...


class _Match(Protocol):
    def start(self) -> int: ...


# Below these, the literals are looked for one by one in Python instead of compiling RE2's automata: compiling
# them costs ~40 ms for the shipped pack (~80 ms for 1,000 rules) on every run, checking one line for every
# literal ~0.1-0.3 ms. A one-line log never compiles them; a big one does after its first few KiB.
PLAIN_BYTES = 16 * 1024  # searched by `LiteralSearch` before the alternation is compiled
PLAIN_LINES = 128  # lines given to `ProbeSelector.select` before the RE2 Set is compiled
# Once the search is Hyperscan's, this many candidate lines are given to its database before the RE2 Set is compiled
# instead: a Hyperscan scan of a short line costs a few microseconds more than one `Set` call, the Set's compile
# ~20-60 ms (shipped pack to 500 rules), so a medium input never compiles the Set and a big one (which compiles it
# before forking workers) keeps the faster call.
HYPERSCAN_LINES = 4096
# Past the plain way, RE2's alternation searches this much before Hyperscan's database is compiled: Hyperscan
# searches ~2x faster (~1.1 ms a MiB less) but compiles the shipped pack's literals in ~15 ms more, so a medium
# input keeps RE2 and never imports hyperscan. Before forking workers (a big input), Hyperscan is compiled at once.
HYPERSCAN_BYTES = 8 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class Prefilter:
    """What finds any rule literal in a block of bytes (`LiteralSearch`); `None` means every line is a
    candidate."""

    pattern: LiteralSearch | None

    @classmethod
    def build(
        cls,
        literal_sets: Sequence[Literals | None],
        *,
        plain_bytes: int = PLAIN_BYTES,
        hyperscan: bool = True,
        hyperscan_bytes: int = HYPERSCAN_BYTES,
        store: AutomatonStore | None = None,
    ) -> Prefilter:
        """Combine the literals of every probe; one probe without literals turns the filter off. The automaton
        is compiled on first need: the first `plain_bytes` searched are checked literal by literal instead;
        past them RE2's automaton searches `hyperscan_bytes`, then Hyperscan's (`LiteralSearch.find`);
        `hyperscan=False` keeps RE2's where Hyperscan is installed (the fallback, kept to check it). With a
        `store`, Hyperscan's database is read from it (compiled and saved there once) and searches from the
        first byte past `plain_bytes`: no RE2 stage."""
        if not literal_sets or any(literals is None for literals in literal_sets):
            return cls(pattern=None)
        sensitive: set[bytes] = set()
        insensitive: set[bytes] = set()
        for literals in literal_sets:
            assert literals is not None
            target = insensitive if literals.ignore_case else sensitive
            target.update(lit.encode("utf-8") for lit in literals.alternatives)
        search = LiteralSearch(
            sensitive,
            insensitive,
            plain_bytes=plain_bytes,
            hyperscan=hyperscan,
            hyperscan_bytes=hyperscan_bytes,
            store=store,
        )
        return cls(pattern=search)


class _Start:
    """Where the plain search found a candidate line: `start()` is the line's first byte (the scanner takes the
    line around the match, so any position within it names the same line)."""

    __slots__ = ("_start",)

    def __init__(self, start: int) -> None:
        self._start = start

    def start(self) -> int:
        return self._start


class LiteralSearch:
    """The next line at or after a position holding one of the literals: the pre-filter's `pattern`.

    RE2 (google-re2) runs the alternation as a DFA, ~3x faster than Python's `re` on an alternation of a few
    hundred literals, which backtracks per position; `re` is the fallback where RE2 cannot be imported. Either
    is compiled on the first search past `plain_bytes` (counted over every block this object sees); until
    then each line is checked for each literal with `in`, which finds exactly the lines the automaton finds:
    a literal holds no line break, so a match starts in a line iff the line holds the literal; case-insensitive
    literals are compared lower-cased on ASCII lines (RE2's UTF-8 case folding also pairs `k` with the Kelvin
    sign and `s` with `ſ`, so a non-ASCII line without a case-sensitive literal goes to the automaton).

    Once RE2 has searched `hyperscan_bytes` more, Hyperscan (where installed) takes over: the same lines, about
    twice as fast per core (`_HyperscanFind`); `finder()` compiles it at once, before forking workers. With a
    `store` (rules/automata.py) Hyperscan's database is read from disk instead of compiled, so it takes over
    from the plain search directly: neither RE2's compile nor Hyperscan's grows a run's cost with the pack.
    """

    def __init__(
        self,
        sensitive: set[bytes],
        insensitive: set[bytes],
        *,
        plain_bytes: int,
        hyperscan: bool = True,
        hyperscan_bytes: int = HYPERSCAN_BYTES,
        store: AutomatonStore | None = None,
    ) -> None:
        self._sensitive = sensitive
        self._hyperscan = hyperscan
        self._store = store
        self._re2_left = hyperscan_bytes  # -1: no change of engine to come
        self._re2_block: bytes | None = None  # the block now being searched by RE2 (counted once)
        self._insensitive = insensitive
        self._plain_sensitive = tuple(sorted(sensitive))
        self._plain_insensitive = tuple(sorted({literal.lower() for literal in insensitive}))
        # one search of them all joined: `b"\n" in literal` each costs ~2,000 instructions (bytes' `in` first tries
        # its operand as an int and formats the TypeError it catches), ~4 M a run with ~2,000 literals
        exact = b"\n" not in b"\0".join((*sensitive, *insensitive)) and all(
            literal.isascii() for literal in insensitive
        )
        self._plain_left = plain_bytes if exact else 0
        self._plain_block: bytes | None = None  # the block now being searched the plain way
        self._compiled: _Searcher | None = None
        self._find: Callable[[bytes, int, int], int] | None = None  # the compiled automaton's fast search

    @property
    def compiled(self) -> bool:
        """Whether an automaton has been compiled (and every later search uses one)."""
        return self._compiled is not None or self._find is not None

    @property
    def engine(self) -> str:
        """What searches now: "plain" (literal by literal), "hyperscan", "re2" (or "re" without RE2)."""
        if isinstance(self._find, _HyperscanFind):
            return "hyperscan"
        if not self.compiled:
            return "plain"
        return "re2" if re2_module() is not None else "re"

    def hyperscan_search(self) -> _HyperscanFind | None:
        """The Hyperscan search in use, if the search has come to it (what `ProbeSelector` can reuse)."""
        return self._find if isinstance(self._find, _HyperscanFind) else None

    def literals(self) -> tuple[bytes, ...]:
        """Every literal searched for: the case-sensitive ones, then the case-insensitive ones."""
        return (*sorted(self._sensitive), *sorted(self._insensitive))

    def finder(self) -> Callable[[bytes, int, int], int]:
        """The fastest `find`, compiled now: Hyperscan's where it is installed, RE2's otherwise (before forking
        workers for a big input, or once RE2 has searched `hyperscan_bytes`)."""
        if not isinstance(self._find, _HyperscanFind):
            self._find = self.hyperscan_finder() or self._find or first_match_finder(self.compile())
            self._re2_left = -1
            self._plain_block = self._re2_block = None
        return self._find

    def _finder_for(self, data: bytes, size: int) -> Callable[[bytes, int, int], int]:
        """RE2's `find` until it has searched `hyperscan_bytes` (a block counted once), then `finder()`'s."""
        if self._store is not None and self._re2_left >= 0:
            return self.finder()  # Hyperscan's stored database: cheaper to read than RE2's to compile
        if self._re2_left >= 0 and data is not self._re2_block:
            self._re2_left -= size
            self._re2_block = data  # held so that its id cannot be reused by another block
            if self._re2_left < 0:
                return self.finder()
        if self._find is None:
            self._find = first_match_finder(self.compile())
        return self._find

    def hyperscan_finder(self) -> Callable[[bytes, int, int], int] | None:
        """A `find` through Hyperscan, or None where it is not installed (or refuses the literals)."""
        if not self._hyperscan or not all(literal.isascii() for literal in self._insensitive):
            return None  # Hyperscan folds ASCII letters only
        hyperscan = _hyperscan()
        if hyperscan is None:
            return None
        try:
            return _HyperscanFind(
                hyperscan, self._sensitive, self._insensitive, self._automaton_find, self._store
            )
        except hyperscan.error:  # pragma: no cover - every literal is a plain byte string it accepts
            return None

    def _automaton_find(self, data: bytes, pos: int, endpos: int) -> int:
        """RE2's answer for `data[pos:endpos]`: where Hyperscan's ASCII case folding is not RE2's."""
        found = self.compile().search(data, pos, endpos)
        return -1 if found is None else found.start()

    def compile(self) -> _Searcher:
        """The automaton: compiled once, on the first search it pays for (or before forking workers)."""
        if self._compiled is None:
            re2 = re2_module()
            if re2 is not None:
                pattern = _alternation(self._sensitive, self._insensitive, _re2_escape)
                self._compiled = re2.compile(pattern, _re2_options())
            else:
                self._compiled = re.compile(_alternation(self._sensitive, self._insensitive, re.escape))
            self._plain_block = None
        return self._compiled

    def search(self, data: bytes, pos: int = 0) -> _Match | None:
        """The first literal at or after `pos` (plain: the start of the first line from `pos` holding one;
        `pos` is a line's start, as the scanner passes it)."""
        if self._automaton_for(data, len(data)):
            return self.compile().search(data, pos)
        return self._search_plain(data, pos)

    def find(self, data: bytes, pos: int, endpos: int) -> int:
        """Where the first literal in `data[pos:endpos]` starts, or -1 (plain: the start of the first line from
        `pos` holding one): the scanner's call, through RE2's fast path, then Hyperscan's (`_finder_for`)."""
        if self._automaton_for(data, endpos):
            return self._finder_for(data, endpos)(data, pos, endpos)
        found = self._search_plain(data, pos, endpos)
        return -1 if found is None else found.start()

    def _automaton_for(self, data: bytes, size: int) -> bool:
        """Whether this block (its first `size` bytes) is searched by the automaton: compiled once the blocks
        searched the plain way would pass `plain_bytes`; a block already counted is not counted again."""
        if not self.compiled and data is not self._plain_block:
            if size > self._plain_left:
                self._plain_left = -1
            else:
                self._plain_left -= size
                self._plain_block = data  # held so that its id cannot be reused by another block
        return self._plain_left < 0 or self.compiled

    def _search_plain(self, data: bytes, pos: int, endpos: int | None = None) -> _Match | None:
        sensitive = self._plain_sensitive
        insensitive = self._plain_insensitive
        size = len(data) if endpos is None else endpos
        while pos < size:
            end = data.find(b"\n", pos)
            end = size if end < 0 else end
            line = data[pos:end]
            if any(map(line.__contains__, sensitive)):
                return _Start(pos)
            if insensitive:
                if not line.isascii():
                    return self.compile().search(data, pos, size)
                if any(map(line.lower().__contains__, insensitive)):
                    return _Start(pos)
            pos = end + 1
        return None


# ASCII letters that RE2's case folding also pairs with a non-ASCII character (checked over every code point):
# the Kelvin sign and the long s. Hyperscan folds ASCII only, so a line holding one of these, where a
# case-insensitive literal holds the letter, is left to RE2.
_WIDE_FOLDS = {"k": "\u212a".encode(), "s": "\u017f".encode()}


# Matches one scan of a block records before it stops: a block dense with matches is scanned again from the line
# asked for once the recorded ones are passed, so the matches held stay few whatever the block holds.
SCAN_MATCHES = 1024


def _every_end(ident: int, _start: int, end: int, _flags: int, found: list[tuple[int, int]]) -> bool:
    found.append((end, ident))
    return len(found) >= SCAN_MATCHES  # True stops the scan (`ScanTerminated`)


def _match_end(match: tuple[int, int]) -> int:
    return match[0]


_Record = tuple[bytes | None, int, int, list[tuple[int, int]], bool]  # `_HyperscanFind`'s scan of a block


def _every_match(ident: int, _start: int, _end: int, _flags: int, found: set[int]) -> None:
    found.add(ident)


class _HyperscanFind:
    """`find(data, pos, endpos)` through Hyperscan (SIMD literal search, several times RE2's DFA on the
    benchmark's logs: benchmarks/bench_prefilter.py): where a literal of the first line in `data[pos:endpos]`
    holding one starts, or -1. The earliest-ending match is reported, not the leftmost-starting one: both are in
    the same line (a literal holds no line break), which is all the scanner takes from it. Case-insensitive
    literals are folded as ASCII; a line holding a character RE2 would also fold onto one of their letters is
    answered by RE2 (`verify`), so the lines found are exactly RE2's.

    The scanner asks for each candidate line of a block in turn; one scan of the block from the first position
    asked records every match's end (up to `SCAN_MATCHES`), and each later call with the same block looks up the
    first recorded match after its position. One scan a block instead of one a candidate line (stopped at its
    first match by raising `ScanTerminated`) saves ~8 µs a candidate line (benchmarks/bench_multiliteral.py)."""

    __slots__ = (
        "_lengths",
        "_record",
        "_scan",
        "_stopped",
        "_verify",
        "_verify_from",
        "expressions",
        "sensitive_count",
    )

    def __init__(
        self,
        hyperscan: Any,
        sensitive: set[bytes],
        insensitive: set[bytes],
        verify: Callable[[bytes, int, int], int],
        store: AutomatonStore | None = None,
    ) -> None:
        expressions = [*sorted(sensitive), *sorted(insensitive)]
        flags = [0] * len(sensitive) + [hyperscan.HS_FLAG_CASELESS] * len(insensitive)
        folded = b"".join(insensitive).lower().decode("utf-8", "replace")
        self._verify_from = len(expressions)
        wide = [character for letter, character in _WIDE_FOLDS.items() if letter in folded]
        expressions += wide
        flags += [0] * len(wide)
        key = _database_key(hyperscan, expressions, flags) if store is not None else ""
        database = _stored_database(hyperscan, store, key)
        if database is None:
            database = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
            database.compile(
                expressions=expressions, ids=list(range(len(expressions))), flags=flags, literal=True
            )
            if store is not None:
                store.save(key, hyperscan.dumpb(database))
        self.expressions = tuple(expressions[: self._verify_from])  # by id: the literals (not the wide folds)
        self.sensitive_count = len(sensitive)  # ids below: case-sensitive literals
        self._lengths = tuple(map(len, expressions))
        self._scan = database.scan
        self._stopped = hyperscan.ScanTerminated
        self._verify = verify
        # the block last scanned (held so that its id cannot be reused), the span scanned (from, to), its matches
        # (end relative to from, id) in order of end, and whether the scan went to the span's end: one tuple, read
        # once a call, so that scans from two threads can only replace it, never mix two blocks' records
        self._record: _Record = (None, 0, 0, [], True)

    def literals_in(self, line: bytes) -> set[int]:
        """The ids (positions in `expressions`) of every literal `line` holds, Kelvin sign and long s aside: the
        caller asks only of an ASCII line where a literal is case-insensitive."""
        found: set[int] = set()
        self._scan(line, match_event_handler=_every_match, context=found)
        found.difference_update(range(self._verify_from, len(self._lengths)))
        return found

    def __call__(self, data: bytes, pos: int, endpos: int) -> int:
        record = self._record
        while pos < endpos:
            block, base, scanned_to, found, complete = record
            if data is not block or endpos != scanned_to or pos < base:
                record = self._scan_block(data, pos, endpos)
                continue
            at = bisect.bisect_right(found, pos - base, key=_match_end)  # the first match ending after `pos`
            lengths = self._lengths
            while at < len(found) and base + found[at][0] - lengths[found[at][1]] < pos:
                at += 1  # one that starts before `pos` (asked from within a line) is not in `data[pos:]`
            if at == len(found):
                if complete:
                    return -1
                record = self._scan_block(data, pos, endpos)  # the recorded matches are passed: on from `pos`
                continue
            end, ident = found[at]
            start = base + end - lengths[ident]
            if ident < self._verify_from:
                return start
            line_start = data.rfind(b"\n", pos, start) + 1 or pos
            line_end = data.find(b"\n", start, endpos)
            line_end = endpos if line_end < 0 else line_end
            answer = self._verify(data, line_start, line_end)
            if answer >= 0:
                return answer
            pos = line_end + 1
        return -1

    def _scan_block(self, data: bytes, pos: int, endpos: int) -> _Record:
        """Record the matches in `data[pos:endpos]`, up to `SCAN_MATCHES` of them."""
        found: list[tuple[int, int]] = []
        try:
            self._scan(memoryview(data)[pos:endpos], match_event_handler=_every_end, context=found)
            complete = True
        except self._stopped:
            complete = False
        found.sort()  # by end (Hyperscan reports in that order; sorting a sorted list is one pass)
        record: _Record = (data, pos, endpos, found, complete)
        self._record = record
        return record


def _database_key(hyperscan: Any, expressions: Sequence[bytes], flags: Sequence[int]) -> str:
    from forensics.rules.automata import database_key

    return database_key(str(getattr(hyperscan, "__version__", "")), expressions, flags)


def _stored_database(hyperscan: Any, store: AutomatonStore | None, key: str) -> Any:
    """The database stored under `key` (`_database_key`), or None (no store, not stored, or refused by this
    Hyperscan: another version or CPU; the caller compiles it and stores it again)."""
    if store is None:
        return None
    blob = store.load(key)
    if blob is None:
        return None
    try:
        database = hyperscan.loadb(blob, hyperscan.HS_MODE_BLOCK)
        database.scratch = hyperscan.Scratch(database)  # compiling allocates one; reading one back does not
    except hyperscan.error:
        return None
    return database


def first_match_finder(pattern: _Searcher | LiteralSearch) -> Callable[[bytes, int, int], int]:
    """`find(data, pos, endpos)`: where the pattern's next match in `data[pos:endpos]` starts, or -1.

    With RE2 it calls the compiled regexp itself: google-re2's `search` is a Python generator that builds a
    match object, a few microseconds per call, and the scanner calls it once per candidate line (~50 a MiB).
    A `LiteralSearch` answers itself (plain until its automaton pays, then this fast path)."""
    if isinstance(pattern, LiteralSearch):
        return pattern.find
    compiled = getattr(pattern, "_regexp", None)
    anchor = getattr(getattr(re2_module(), "_Anchor", None), "UNANCHORED", None)
    if compiled is not None and anchor is not None and hasattr(compiled, "Match"):
        match = compiled.Match

        def find_re2(data: bytes, pos: int, endpos: int) -> int:
            start: int = match(anchor, data, pos, endpos)[0][0]
            return start

        return find_re2

    def find(data: bytes, pos: int, endpos: int) -> int:
        found = pattern.search(data, pos, endpos)
        return -1 if found is None else found.start()

    return find


RE2_MEMORY = 256 * 1024 * 1024


def _re2_options() -> Any:
    """RE2's default 8 MiB budget is too small for the DFA of a few hundred rules' literals: past it RE2
    falls back to its NFA (~100x slower) and logs "DFA out of memory". The DFA cache fills only as needed."""
    options = re2_module().Options()
    options.max_mem = RE2_MEMORY
    return options


def _alternation(sensitive: set[bytes], insensitive: set[bytes], escape: Callable[[bytes], bytes]) -> bytes:
    parts = [escape(lit) for lit in sorted(sensitive, key=lambda b: (-len(b), b))]
    if insensitive:
        joined = b"|".join(escape(lit) for lit in sorted(insensitive, key=lambda b: (-len(b), b)))
        parts.append(b"(?i:" + joined + b")")
    return b"|".join(parts)


_RE2_ESCAPES = {byte: b"\\x%02x" % byte for byte in range(0x80) if not chr(byte).isalnum()}
_RE2_UNSAFE = re.compile(b"[" + b"".join(b"\\x%02x" % byte for byte in _RE2_ESCAPES) + b"]")


def _re2_escape(literal: bytes) -> bytes:
    """Every ASCII byte that is not a letter or digit as `\\xHH` (RE2 refuses some backslash escapes)."""
    return _RE2_UNSAFE.sub(lambda match: _RE2_ESCAPES[match.group()[0]], literal)


class ProbeSelector:
    """Which probes' literals occur in one candidate line, so only their patterns run.

    With RE2, one `RE2::Set` call answers for every probe at once; it is compiled after `plain_lines` lines
    (or at the first line it must answer for that the plain way cannot: see `_plain_select`), and until then,
    or without RE2, each probe's literals are looked up with `in`. Probes without literals are always selected.
    Once the pre-filter (`search`) searches with Hyperscan, its database answers instead for `hyperscan_lines`
    lines, one scan of the line for every literal at once (no Set to compile, a cost per line that does not grow
    with the pack), on every line the plain way could answer (ASCII, or no case-insensitive literal); the Set
    answers the others, and every line once it is compiled.
    """

    def __init__(
        self,
        literal_sets: Sequence[Literals | None],
        *,
        plain_lines: int = PLAIN_LINES,
        search: LiteralSearch | None = None,
        hyperscan_lines: int = HYPERSCAN_LINES,
    ) -> None:
        self._search = search
        self._hyperscan_left = hyperscan_lines
        self._by_id: tuple[tuple[int, ...], ...] | None = None  # Hyperscan literal id -> its probes
        self.always = tuple(number for number, literals in enumerate(literal_sets) if literals is None)
        self._literal_sets = tuple(literal_sets)
        self._set_members: list[int] = []
        self._set: Any = None
        # every literal → the probes needing it, case-sensitive ones and lower-cased case-insensitive ones
        self._by_literal: tuple[dict[str, list[int]], dict[str, list[int]]] = ({}, {})
        for number, literals in enumerate(literal_sets):
            if literals is not None:
                by_literal = self._by_literal[literals.ignore_case]
                for literal in literals.alternatives:
                    key = literal.lower() if literals.ignore_case else literal
                    by_literal.setdefault(key, []).append(number)
        self._ascii_folding = all(literal.isascii() for literal in self._by_literal[True])
        self._plain_left = plain_lines  # -1: the Set is compiled, or cannot be (no RE2)

    @property
    def compiled(self) -> bool:
        """Whether the RE2 Set has been compiled (and every later line goes through it)."""
        return self._set is not None

    def compile(self) -> None:
        """The RE2 Set of every probe's literals: compiled once, when it pays (or before forking workers)."""
        re2 = re2_module()
        if self._set is not None or re2 is None:
            self._plain_left = -1
            return
        self._plain_left = -1
        matcher = re2.Set.SearchSet(_re2_options())
        members: list[int] = []
        for number, literals in enumerate(self._literal_sets):
            if literals is None:
                continue
            encoded = {literal.encode("utf-8") for literal in literals.alternatives}
            pattern = b"|".join(_re2_escape(literal) for literal in sorted(encoded))
            matcher.Add(b"(?i:" + pattern + b")" if literals.ignore_case else pattern)
            members.append(number)
        if members:
            matcher.Compile()
            self._set_members = members
            self._set = matcher

    def select(self, text: str) -> list[int]:
        """Probe numbers, ascending, whose literals occur in the (normalised) line."""
        if self._set is None and self._hyperscan_left > 0 and self._search is not None:
            hyperscan = self._search.hyperscan_search()
            if hyperscan is not None and (
                not self._by_literal[True] or (text.isascii() and self._ascii_folding)
            ):
                self._hyperscan_left -= 1
                if self._hyperscan_left == 0:
                    self.compile()  # the later lines: through the Set
                by_id = self._by_id if self._by_id is not None else self._ids_to_probes(hyperscan)
                held = hyperscan.literals_in(text.encode("utf-8"))
                return sorted({number for ident in held for number in by_id[ident]}.union(self.always))
        if self._set is None and self._plain_left >= 0:
            self._plain_left -= 1
            if self._plain_left < 0:
                self.compile()
        if self._set is not None:
            found = self._set.Match(text.encode("utf-8")) or ()
            selected = [self._set_members[index] for index in found]
        else:
            plain = self._plain_select(text)
            if plain is None:
                self.compile()
                return self.select(text)
            selected = plain
        if self.always:
            selected.extend(self.always)
        selected.sort()
        return selected

    def _ids_to_probes(self, hyperscan: _HyperscanFind) -> tuple[tuple[int, ...], ...]:
        """Per literal id of the Hyperscan database, the probes needing that literal."""
        by_id = []
        for ident, expression in enumerate(hyperscan.expressions):
            by_literal = self._by_literal[ident >= hyperscan.sensitive_count]
            literal = expression.decode("utf-8")
            by_id.append(
                tuple(by_literal.get(literal.lower() if ident >= hyperscan.sensitive_count else literal, ()))
            )
        self._by_id = tuple(by_id)
        return self._by_id

    def _plain_select(self, text: str) -> list[int] | None:
        """The probes whose literals `text` holds, looked up with `in`; None where only the Set answers exactly
        (a case-insensitive literal and a non-ASCII line: RE2 folds `k` with the Kelvin sign, `s` with `ſ`,
        where `str.lower` does not)."""
        sensitive, insensitive = self._by_literal
        found = {number for literal in filter(text.__contains__, sensitive) for number in sensitive[literal]}
        if insensitive:
            if not (text.isascii() and self._ascii_folding) and re2_module() is not None:
                return None
            folded = text.lower()
            found.update(
                number
                for literal in filter(folded.__contains__, insensitive)
                for number in insensitive[literal]
            )
        return list(found)
