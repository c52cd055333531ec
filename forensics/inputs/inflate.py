"""A deflated zip member read without `zipfile.ZipExtFile`: inflated by zlib-ng where it is installed.

Inflating is most of what a big artifact costs (the benchmark's floor is nothing else): the standard zlib
inflates the benchmark's logs at ~330 MiB/s a core with zipfile's CRC-32, zlib-ng (the `zlib-ng` wheel, the
`fast` extra) at ~750 MiB/s, the same bytes. The member's compressed bytes are read with `os.pread` at their
offset (no shared file position), a read of `n` bytes is one `decompress` call whenever the input holds them,
and the CRC-32 is checked at the end as `zipfile` checks it, with the errors it raises (`zlib.error`,
`EOFError`, `zipfile.BadZipFile`), so a damaged member reads as it did.
"""

from __future__ import annotations

import importlib
import io
import os
import zipfile
import zlib
from types import ModuleType
from typing import Any

COMPRESSED_CHUNK = 256 * 1024  # compressed bytes read at a time: ~1.4 MiB of the benchmark's logs
_LOCAL_HEADER = 30  # bytes of a local file header before its name and extra field
_INFLATERS: list[ModuleType] = []


def inflater() -> ModuleType:
    """zlib-ng's `zlib` work-alike where the wheel is installed, the standard `zlib` otherwise."""
    if not _INFLATERS:
        try:
            module = importlib.import_module("zlib_ng.zlib_ng")
        except ImportError:
            module = zlib
        _INFLATERS.append(module)
    return _INFLATERS[0]


def open_deflated(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> io.RawIOBase:
    """The member's bytes: through `InflatedMember` when it is deflated and not encrypted, where `os.pread`
    exists; through `zipfile` otherwise. `zipfile` opens it first either way: its checks of the local
    header (name, encryption, flags) and its errors stay what they were."""
    member = archive.open(info)
    if info.compress_type != zipfile.ZIP_DEFLATED or info.flag_bits & 0x1 or not hasattr(os, "pread"):
        return member  # type: ignore[return-value]  # (no pread on Windows)
    try:  # its own descriptor: closing the archive while the member is read closes nothing under it
        descriptor = os.dup(archive.fp.fileno())  # type: ignore[union-attr]
    except (AttributeError, OSError, ValueError):  # an archive read from memory, or already closed
        return member  # type: ignore[return-value]
    header = os.pread(descriptor, _LOCAL_HEADER, info.header_offset)
    start = (
        info.header_offset
        + _LOCAL_HEADER
        + int.from_bytes(header[26:28], "little")
        + int.from_bytes(header[28:30], "little")
    )
    member.close()
    return InflatedMember(descriptor, start, info, inflater())


class InflatedMember(io.RawIOBase):
    """A deflated member's bytes from `start` in the archive's file (`descriptor`, closed with the member), with
    `ZipExtFile`'s checks: at most
    `file_size` bytes, the CRC-32 compared at the end (`BadZipFile`), a short archive `EOFError`, bad data
    `zlib.error` (zlib-ng's own error class is raised as that one). Seekable (backwards by reading again from
    the start, as `ZipExtFile` does), for `utf8_stream`'s look at the first bytes."""

    def __init__(self, descriptor: int, start: int, info: zipfile.ZipInfo, module: ModuleType) -> None:
        super().__init__()
        self._descriptor = descriptor
        self._start = start
        self._info = info
        self._module: Any = module
        self._restart()

    def _restart(self) -> None:
        self._decompressor = self._module.decompressobj(-15)
        self._offset = self._start
        self._compress_left = self._info.compress_size
        self._left = self._info.file_size
        self._crc = 0
        self._eof = False
        self._position = 0

    def close(self) -> None:
        if not self.closed:
            os.close(self._descriptor)
        super().close()

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._position

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        target = {io.SEEK_SET: 0, io.SEEK_CUR: self._position, io.SEEK_END: self._info.file_size}[whence]
        target = min(max(target + offset, 0), self._info.file_size)
        if target < self._position:
            self._restart()
        while self._position < target and self.read(min(target - self._position, 1 << 20)):
            pass
        return self._position

    def readall(self) -> bytes:
        pieces = []
        while piece := self.read(1 << 20):
            pieces.append(piece)
        return b"".join(pieces)

    def readinto(self, buffer: Any) -> int:
        data = self.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)

    def read(self, size: int | None = -1) -> bytes:
        """Up to `size` bytes (all that is left with no size), fewer only at the member's end."""
        if size is None or size < 0:
            return self.readall()
        pieces: list[bytes] = []
        wanted = size
        while wanted > 0 and not self._eof:
            piece = self._inflate(wanted)
            pieces.append(piece)
            wanted -= len(piece)
        self._position += size - wanted
        return pieces[0] if len(pieces) == 1 else b"".join(pieces)

    def _inflate(self, wanted: int) -> bytes:
        """At most `wanted` more bytes (one `decompress` call), the CRC checked once the member ends."""
        decompressor = self._decompressor
        data = decompressor.unconsumed_tail or self._compressed()
        try:
            piece: bytes = decompressor.decompress(data, wanted)
            self._eof = decompressor.eof or (self._compress_left <= 0 and not decompressor.unconsumed_tail)
            if self._eof:
                piece += decompressor.flush()
        except self._module.error as err:
            if self._module is zlib:
                raise
            raise zlib.error(*err.args) from None  # what zipfile's readers raise, and the scanner catches
        if len(piece) > self._left:
            piece = piece[: self._left]
        self._left -= len(piece)
        if self._left <= 0:
            self._eof = True
        self._crc = self._module.crc32(piece, self._crc)
        if self._eof and self._crc != self._info.CRC:
            raise zipfile.BadZipFile(f"Bad CRC-32 for file {self._info.filename!r}")
        return piece

    def _compressed(self) -> bytes:
        """The next compressed bytes of the member (none once all are read; EOFError when the archive ends
        before them, as `zipfile` raises)."""
        if self._compress_left <= 0:
            return b""
        data = os.pread(self._descriptor, min(COMPRESSED_CHUNK, self._compress_left), self._offset)
        if not data:
            raise EOFError
        self._offset += len(data)
        self._compress_left -= len(data)
        return data
