"""Logs arrive as bytes in whatever encoding wrote them; the scanner reads UTF-8. This turns the others into it.

Windows runners (PowerShell's `Out-File`, `Tee-Object`) write UTF-16 with a byte order mark; read as UTF-8,
every other byte is NUL and no rule can match. A UTF-8 byte order mark is dropped so the first line starts
with its text.
"""

from __future__ import annotations

import codecs
import io
from typing import BinaryIO

_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_CHUNK = 256 * 1024  # characters decoded per read
_SAMPLE = 512  # bytes looked at to tell the encoding
_UNMARKED_MINIMUM = 16  # UTF-16 without a byte order mark is only recognised on a start this long, all ASCII


class _Transcoded(io.RawIOBase):
    """A binary stream of UTF-8 bytes read from a stream in another encoding (undecodable bytes → U+FFFD)."""

    def __init__(self, stream: BinaryIO, encoding: str) -> None:
        self._stream = stream
        self._decoder = codecs.getincrementaldecoder(encoding)("replace")
        self._pending = b""
        self._done = False

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        size = len(buffer)
        while len(self._pending) < size and not self._done:
            raw = self._stream.read(_CHUNK)
            self._done = not raw
            self._pending += self._decoder.decode(raw, final=self._done).encode("utf-8")
        taken, self._pending = self._pending[:size], self._pending[size:]
        buffer[: len(taken)] = taken
        return len(taken)

    def close(self) -> None:
        self._stream.close()
        super().close()


class _Prefixed(io.RawIOBase):
    """A stream with the bytes already read from its start put back in front."""

    def __init__(self, head: bytes, stream: BinaryIO) -> None:
        self._head = head
        self._stream = stream

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        if self._head:
            taken, self._head = self._head[: len(buffer)], self._head[len(buffer) :]
        else:
            taken = self._stream.read(len(buffer))
        buffer[: len(taken)] = taken
        return len(taken)

    def close(self) -> None:
        self._stream.close()
        super().close()


def utf8_stream(stream: BinaryIO) -> BinaryIO:
    """The stream as UTF-8 bytes: UTF-16 (by its byte order mark, or ASCII text with every other byte NUL)
    transcoded, a UTF-8 mark dropped."""
    start = stream.tell() if stream.seekable() else 0
    head = stream.read(_SAMPLE)
    encoding = marked_encoding(head)
    if encoding is not None:
        bom = next((mark for mark, name in _BOMS if name == encoding and head.startswith(mark)), b"")
        rest = _Prefixed(head[len(bom) :], stream)
        if encoding == "utf-8":
            return io.BufferedReader(rest)
        return io.BufferedReader(_Transcoded(io.BufferedReader(rest), encoding))
    if stream.seekable():  # the common case costs nothing: read on from the start, unwrapped
        stream.seek(start)
        return stream
    return io.BufferedReader(_Prefixed(head, stream))


def marked_encoding(head: bytes) -> str | None:
    """The encoding a byte order mark at the start of `head` names (UTF-16 only when it looks like text), or
    UTF-16 without a mark when every other byte of the start is NUL and the rest is text; None for UTF-8."""
    for bom, encoding in _BOMS:
        if head.startswith(bom) and _plausible(head[len(bom) : _SAMPLE], encoding):
            return encoding
    sample = head[: _SAMPLE & ~1]
    if len(sample) >= _UNMARKED_MINIMUM:
        for encoding, high, low in (
            ("utf-16-le", sample[1::2], sample[0::2]),
            ("utf-16-be", sample[0::2], sample[1::2]),
        ):
            if not high.strip(b"\x00") and all(32 <= byte < 127 or byte in b"\t\r\n" for byte in low):
                return encoding
    return None


def _plausible(sample: bytes, encoding: str) -> bool:
    """Whether UTF-16 after a byte order mark looks like a log (mostly ASCII: many NUL high bytes), not binary
    junk that happens to start with `\\xff\\xfe`."""
    if encoding == "utf-8":
        return True
    high = sample[1::2] if encoding == "utf-16-le" else sample[0::2]
    return not high or high.count(0) * 4 >= len(high)
