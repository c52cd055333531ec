"""Candidate lines no pattern can match, remembered with their digits masked, so a line that recurs (a warning
every few seconds, its timestamp and pid changing) is turned away after one look instead of each time.

The pre-filter finds lines holding some rule's literal; most of them then fail `CompiledRules.possible` (vLLM's
healthy `FlashInfer is not available` warning holds `FlashInfer` but never `version`): ~10 µs of Python a line,
~0.5 CPU s per GiB of the benchmark's logs. Two lines equal once every digit is read as `0` hold the same
digit-free literals in the same places, also as a terminal shows them (escape sequences and carriage returns
treat every digit alike), so they give the same answer when neither holds a literal that has a digit in it: the
line looked up is checked for those, and a line is remembered only when the probes it selected need no such
literal either.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from forensics.engine.prefilter import Prefilter, first_match_finder
from forensics.rules.literals import Literals

_DIGITS = bytes.maketrans(b"0123456789", b"0" * 10)
MAX_REMEMBERED = 8192  # then start afresh: memory stays bounded whatever the logs hold
START_AFTER = 64  # lines turned away one by one first: a small input never builds the digit finder


class RejectedLines:
    """Keys of candidate lines (digits masked) that no probe could match, for one compiled rule set."""

    def __init__(
        self,
        literal_sets: Sequence[Literals | None],
        gate_of: Callable[[int], Sequence[tuple[Sequence[str], bool]]],
    ) -> None:
        self._literal_sets = literal_sets
        self._gate_of = gate_of  # a probe's literal sets as `CompiledRules.possible` checks them
        self._keys: set[bytes] = set()
        self._seen = 0
        self._digit_finder: Callable[[bytes, int, int], int] | None = None
        self._built = False

    def key(self, line: bytes) -> bytes | None:
        """The line's key, or None when it may hold a literal with a digit (or too few lines were turned away
        yet for remembering to pay)."""
        if self._seen < START_AFTER:
            return None
        if not self._built:
            self._build()
        if self._digit_finder is not None and self._digit_finder(line, 0, len(line)) >= 0:
            return None
        return line.translate(_DIGITS)

    def known(self, key: bytes | None) -> bool:
        """Whether a line with this key was turned away before."""
        return key is not None and key in self._keys

    def remember(self, key: bytes | None, selected: Sequence[int]) -> None:
        """One more line turned away; kept by its key when the probes it selected need no literal with a digit."""
        self._seen += 1
        if key is None or any(
            _has_digit(literal)
            for number in selected
            for alternatives, _insensitive in self._gate_of(number)
            for literal in alternatives
        ):
            return
        if len(self._keys) >= MAX_REMEMBERED:
            self._keys.clear()
        self._keys.add(key)

    def compile(self) -> None:
        """Build the digit finder now (otherwise built after `START_AFTER` turned-away lines): before forking
        workers, so that each inherits it; lines are still remembered only from then on."""
        if not self._built:
            self._build()

    def _build(self) -> None:
        """A finder for the literals that hold a digit (a line holding one is never looked up by its key)."""
        with_digits = [
            Literals(
                tuple(literal for literal in literals.alternatives if _has_digit(literal)),
                literals.ignore_case,
            )
            for literals in self._literal_sets
            if literals is not None
        ]
        with_digits = [literals for literals in with_digits if literals.alternatives]
        # RE2's search, not Hyperscan's: it is called on one short line at a time, where RE2's call costs less
        # (~1 µs against ~2 µs) and Hyperscan's speed over long blocks does not come into play
        pattern = Prefilter.build(with_digits, hyperscan=False).pattern if with_digits else None
        self._digit_finder = None if pattern is None else first_match_finder(pattern)
        self._built = True


def _has_digit(literal: str) -> bool:
    return any("0" <= character <= "9" for character in literal)
