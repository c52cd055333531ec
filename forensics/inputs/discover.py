"""Turn the paths a user gave into inputs: results folders, artifact zips (also a folder of them), logs."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from forensics.engine.decode import marked_encoding
from forensics.errors import ResultsError
from forensics.inputs.allure import has_results
from forensics.inputs.archive import (
    Archive,
    DirectoryArchive,
    NotRegularFileError,
    ZipArchive,
    file_kind,
    open_regular,
)
from forensics.model import InputKind, Problem
from forensics.values import MAX_TEXT_CHARS, clean_text

STDIN = "-"
_ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")
_SNIFF_BYTES = 8192
_DOWNLOADED_JOB_LOG = re.compile(r"job-\d+\.log")


@dataclass(frozen=True, slots=True)
class LogInput:
    """A plain log file (or stdin) analysed as one failing item named after it."""

    path: str
    label: str
    open: Callable[[], BinaryIO]
    kind: InputKind = "log"
    name: str = ""  # the failing item's name; default: the file's name
    problems: list[Problem] = field(default_factory=list)  # trouble found beside it (a broken zip)


Input = Archive | LogInput


def discover(path: str) -> list[Input]:
    """The inputs behind one command-line path; ResultsError when it is none of the accepted kinds.

    Only folders and regular files are read (a FIFO would block, a device never end); a path that cannot
    be read (no permission, a link loop) is a ResultsError naming it, like one that does not exist.
    """
    if path == STDIN:
        return [LogInput(path=STDIN, label="stdin", open=lambda: sys.stdin.buffer, kind="stdin")]
    location = Path(path)
    label = printable_path(path)
    try:
        mode = location.stat().st_mode
    except FileNotFoundError as err:
        raise ResultsError(
            f"'{label}' does not exist", hint="pass an allure-results folder, an artifact .zip or a log file"
        ) from err
    except OSError as err:
        raise _unreadable(label, err) from err
    kind = file_kind(mode)
    if kind == "a folder":
        return _discover_directory(location, path)
    if kind:
        raise ResultsError(
            f"'{label}' is {kind}, not a file or folder; it was not read",
            hint="save the log to a file first, or pipe it in and pass '-' for stdin",
        )
    try:
        with open_regular(location) as stream:
            head = stream.read(_SNIFF_BYTES)
    except OSError as err:  # NotRegularFileError too: it changed under us
        raise _unreadable(label, err) from err
    if head.startswith(_ZIP_MAGIC):
        return [ZipArchive(location, label=label)]
    if path.endswith("-result.json") or path.endswith("-container.json"):
        raise ResultsError(
            f"'{label}' is a single Allure file",
            hint=f"pass the folder that holds it: {printable_path(str(location.parent))}",
        )
    if _looks_binary(head) and marked_encoding(head) is None:  # UTF-16 is half NULs, yet a log
        raise ResultsError(
            f"'{label}' is not an allure-results folder, an artifact zip or a text log",
            hint="pass the allure-results folder, the downloaded artifact .zip, or a log file",
        )
    return [_log_input(location, path)]


def printable_path(path: str) -> str:
    """A path as report text: bytes that were not UTF-8 (surrogate escapes) become U+FFFD."""
    return clean_text(path, limit=MAX_TEXT_CHARS)


def _unreadable(label: str, err: OSError) -> ResultsError:
    reason = err.strerror or str(err) if not isinstance(err, NotRegularFileError) else str(err)
    return ResultsError(
        f"'{label}' cannot be read: {reason}",
        hint="check the path and its permissions (a log must be a regular file)",
    )


def _log_input(location: Path, path: str) -> LogInput:
    return LogInput(path=path, label=printable_path(path), open=lambda: open_regular(location))


def _discover_directory(location: Path, given: str) -> list[Input]:
    path = printable_path(given)
    archive = DirectoryArchive(location, label=path)
    names = archive.names()
    if has_results(names):
        return [archive]
    zips = [name for name in names if name.lower().endswith(".zip")]
    # `fetch --download-only` saves a job's log (job-<id>.log) beside its zips when it had no usable allure
    # artifact; other logs in such a folder (pip.log, …) are not test results and are left alone
    logs = [name for name in names if _DOWNLOADED_JOB_LOG.fullmatch(name)]
    if zips or logs:  # a folder of downloaded artifacts: one broken zip spoils no other
        inputs: list[Input] = []
        for name in zips:
            try:
                inputs.append(ZipArchive(location / name, label=f"{path.rstrip('/')}/{name}"))
            except ResultsError as err:
                archive.problems.append(
                    Problem(object=f"{path.rstrip('/')}/{name}", message=err.message, hint=err.hint)
                )
        inputs.extend(_log_input(location / name, f"{given.rstrip('/')}/{name}") for name in logs)
        if not inputs:
            raise ResultsError(
                f"none of the {len(zips)} zip(s) in folder '{path}' could be read: {archive.problems[0].message}",
                hint=archive.problems[0].hint,
            )
        inputs[0].problems.extend(archive.problems)
        return inputs
    if not names and archive.problems:  # nothing listed because nothing could be: say why
        raise ResultsError(
            f"folder '{path}' holds nothing that can be read: {archive.problems[0].message}",
            hint=archive.problems[0].hint or "check the folder's permissions",
        )
    if not names:
        raise ResultsError(
            f"folder '{path}' is empty", hint="point at the allure-results folder the test run wrote"
        )
    raise ResultsError(
        f"folder '{path}' holds no Allure results (*-result.json) and no artifact zips",
        hint="pass the allure-results folder (pytest --alluredir=…), an artifact .zip, or a log file",
    )


def _looks_binary(head: bytes) -> bool:
    """Mostly NULs and control bytes: an image or an executable, not a log with a few bad bytes."""
    if not head:
        return False
    control = sum(1 for byte in head if byte < 9 or 13 < byte < 32 or byte == 127)
    return control > len(head) // 10
