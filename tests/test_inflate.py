"""The zip member reader of big artifacts (forensics/inputs/inflate.py) reads what `zipfile` reads, with its errors."""

from __future__ import annotations

import importlib
import io
import os
import random
import zipfile
import zlib
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

from forensics.inputs.archive import ZipArchive
from forensics.inputs.inflate import COMPRESSED_CHUNK, InflatedMember, inflater, open_deflated


def _modules() -> list[ModuleType]:
    """The standard zlib, and zlib-ng where its wheel is installed (the `fast` extra)."""
    try:
        return [zlib, importlib.import_module("zlib_ng.zlib_ng")]
    except ImportError:
        return [zlib]


def _log_bytes(size: int, seed: int) -> bytes:
    """Log-like lines, compressible as logs are, with random tokens so that deflate has work to do."""
    rng = random.Random(seed)
    lines = []
    total = 0
    while total < size:
        line = f"INFO 12-01 10:{rng.randrange(60):02d} [loggers.py:{rng.randrange(999)}] token {rng.getrandbits(64):x}\n"
        lines.append(line)
        total += len(line)
    return "".join(lines).encode()[:size]


@pytest.fixture(scope="module")
def artifact(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("inflate") / "artifact.zip"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("empty.txt", b"")
        archive.writestr("one-line.txt", b"RuntimeError: CUDA error: out of memory\n")
        archive.writestr(
            "big/job.log", _log_bytes(3 * COMPRESSED_CHUNK * 6, seed=1)
        )  # several compressed chunks
        archive.writestr(
            "random.bin", random.Random(2).randbytes(300_000)
        )  # incompressible: more in than out
        archive.writestr("stored.txt", b"stored as it is\n" * 100, compress_type=zipfile.ZIP_STORED)
    return path


def _member(archive: zipfile.ZipFile, name: str, module: ModuleType) -> InflatedMember:
    info = archive.getinfo(name)
    stream = open_deflated(archive, info)
    assert isinstance(stream, InflatedMember)
    stream.close()
    return InflatedMember(os.dup(archive.fp.fileno()), stream._start, info, module)  # type: ignore[union-attr]


@pytest.mark.parametrize("module", _modules(), ids=lambda module: module.__name__)
def test_every_member_reads_as_zipfile_reads_it_in_any_read_sizes(artifact: Path, module: ModuleType) -> None:
    with zipfile.ZipFile(artifact) as archive:
        for name in ("empty.txt", "one-line.txt", "big/job.log", "random.bin"):
            expected = archive.read(name)
            assert _member(archive, name, module).read() == expected
            for size in (
                (1, 512, 65_536, 1 << 20, 5 << 20) if len(expected) < 100_000 else (4093, 1 << 20, 5 << 20)
            ):
                stream = _member(archive, name, module)
                pieces = []
                while piece := stream.read(size):
                    assert len(piece) == size or not stream.read(1)  # short only at the end
                    pieces.append(piece)
                    stream.seek(sum(map(len, pieces)))
                assert b"".join(pieces) == expected, (name, size)
                assert stream.tell() == len(expected)


@pytest.mark.parametrize("module", _modules(), ids=lambda module: module.__name__)
def test_seeking_back_reads_again_from_the_start(artifact: Path, module: ModuleType) -> None:
    with zipfile.ZipFile(artifact) as archive:
        expected = archive.read("big/job.log")
        stream = _member(archive, "big/job.log", module)
        assert stream.read(512) == expected[:512]
        assert stream.seek(0) == 0
        assert stream.read(3 << 20) == expected[: 3 << 20]
        assert stream.seek(-100, io.SEEK_END) == len(expected) - 100
        assert stream.read() == expected[-100:]
        assert stream.seek(1000) == 1000
        buffer = bytearray(10)
        assert stream.readinto(buffer) == 10 and bytes(buffer) == expected[1000:1010]
        assert stream.seek(10, io.SEEK_CUR) == 1020
        assert stream.read(5) == expected[1020:1025]


def test_zip_archive_opens_deflated_members_with_it_and_others_with_zipfile(artifact: Path) -> None:
    archive = ZipArchive(artifact)
    with archive.open("big/job.log") as stream:
        assert isinstance(stream, InflatedMember)
        assert stream.read(64).startswith(b"INFO 12-01 10:")
    with archive.open("stored.txt") as stream:
        assert isinstance(stream, zipfile.ZipExtFile)
        assert stream.read() == b"stored as it is\n" * 100
    stream = archive.open("big/job.log")
    archive.close()  # the member keeps its own descriptor
    assert stream.read() == zipfile.ZipFile(artifact).read("big/job.log")
    stream.close()
    assert inflater() in _modules()


def _error_of(read: Callable[[], object]) -> tuple[type[BaseException], str] | None:
    try:
        read()
    except (zlib.error, EOFError, zipfile.BadZipFile) as err:
        return type(err), str(err)
    return None


@pytest.mark.parametrize("module", _modules(), ids=lambda module: module.__name__)
def test_a_damaged_member_raises_what_zipfile_raises(
    artifact: Path, tmp_path: Path, module: ModuleType
) -> None:
    data = bytearray(artifact.read_bytes())
    with zipfile.ZipFile(artifact) as archive:
        info = archive.getinfo("big/job.log")
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
    damaged = tmp_path / "damaged.zip"
    errors = set()
    for offset in (100, info.compress_size // 2, info.compress_size - 3):  # bad data, or a wrong CRC-32
        copy = bytearray(data)
        copy[start + offset] ^= 0xFF
        damaged.write_bytes(bytes(copy))
        with zipfile.ZipFile(damaged) as archive:
            expected = _error_of(lambda archive=archive: archive.read("big/job.log"))
            assert expected is not None
            assert _error_of(_member(archive, "big/job.log", module).read) == expected
            errors.add(expected[0])
    assert zlib.error in errors or zipfile.BadZipFile in errors
    with zipfile.ZipFile(artifact) as archive:  # the directory's CRC-32 is not the data's
        info = archive.getinfo("one-line.txt")
        info.CRC ^= 1
        expected = _error_of(lambda: archive.read("one-line.txt"))
        assert expected is not None and expected[0] is zipfile.BadZipFile
        assert _error_of(_member(archive, "one-line.txt", module).read) == expected
