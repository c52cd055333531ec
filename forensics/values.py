"""Values read from outside (Allure JSON, saved reports, store rows), checked and clamped where they are read.

A time that no `datetime` can hold (`"start": -1e18`, NaN, a string) must never travel into the report or the
store, where it would break every later read; text must be encodable (no lone surrogates, no NUL) and of a
sane length. See docs/limits.md.
"""

from __future__ import annotations

import math

from forensics.lazy_regex import LazyRegex

MIN_EPOCH_MS = 0  # 1970-01-01: Allure writes milliseconds since the epoch; earlier is a bug, not a test
MAX_EPOCH_MS = 253_402_300_799_999  # 9999-12-31T23:59:59.999Z: the last moment a datetime can hold
MIN_EPOCH_SECONDS = MIN_EPOCH_MS // 1000
MAX_EPOCH_SECONDS = MAX_EPOCH_MS // 1000
MAX_NAME_CHARS = 4096  # names, identifiers, label and parameter values, link targets
MAX_TEXT_CHARS = 4 * 1024 * 1024  # a status message or trace (matched like a log, so it is bounded too)
MAX_COUNT = 2**62  # an integer field (retries, a line number, a run id) that fits every store column
_UNENCODABLE = LazyRegex(r"[\ud800-\udfff\x00]")
_CUT_MARK = "…"


class BadValueError(ValueError):
    """A value that is present but cannot be used; its message says what was wrong, for a Problem."""


def clean_text(value: str, *, limit: int = MAX_NAME_CHARS) -> str:
    """The text with lone surrogates and NUL replaced by U+FFFD, cut at `limit` characters (marked with …)."""
    if len(value) > limit:
        value = value[: max(0, limit - 1)] + _CUT_MARK
    if value.isascii() and "\x00" not in value:
        return value
    return _UNENCODABLE.sub("\ufffd", value)


def text_of(value: object, *, limit: int = MAX_NAME_CHARS) -> str:
    """A JSON scalar as clean text: strings cleaned, numbers written out, anything else (lists, objects) ''."""
    if isinstance(value, str):
        return clean_text(value, limit=limit)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value) if abs(value) < 10**30 else ""
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else ""
    return ""


def epoch_milliseconds(value: object, *, field: str) -> int | None:
    """A JSON time in milliseconds since the epoch; None when absent; BadValueError when out of range."""
    if value is None:
        return None
    number = _finite_number(value, field=field)
    if not MIN_EPOCH_MS <= number <= MAX_EPOCH_MS:
        raise BadValueError(f"{field} {_shown(value)} is not a time between 1970 and 9999")
    return int(number)


def epoch_seconds_in_range(value: int) -> bool:
    """Whether a stored time (seconds since the epoch) is one a datetime can hold."""
    return MIN_EPOCH_SECONDS <= value <= MAX_EPOCH_SECONDS


def count_of(value: object, *, field: str, default: int = 0) -> int:
    """A non-negative whole number (retries, a line number); the default when absent; BadValueError otherwise."""
    if value is None:
        return default
    number = _finite_number(value, field=field)
    if not 0 <= number <= MAX_COUNT or number != int(number):
        raise BadValueError(f"{field} {_shown(value)} is not a whole number from 0 to 2^62")
    return int(number)


def _finite_number(value: object, *, field: str) -> int | float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise BadValueError(f"{field} {_shown(value)} is not a number")
    if isinstance(value, float) and not math.isfinite(value):
        raise BadValueError(f"{field} {_shown(value)} is not a finite number")
    return value


def _shown(value: object) -> str:
    """The value as a message shows it: short, and never a lone surrogate."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**30:
        return f"a {value.bit_length()}-bit number"
    return clean_text(repr(value), limit=60)
