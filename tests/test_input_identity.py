"""Content identities: equal while an input holds what was recorded, different once another file is there."""

from __future__ import annotations

import os
import shutil
import zipfile
from pathlib import Path

from forensics.report.identity import input_identity, kind_of
from tests.store.conftest import SAMPLE


def test_a_log_is_its_size_and_sha256(tmp_path: Path) -> None:
    log = tmp_path / "job.log"
    log.write_bytes(b"hello\n")
    identity = input_identity(str(log), "log")
    assert identity == "log:6:sha256:5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03"
    os.utime(log, (0, 0))  # touching it changes nothing
    assert input_identity(str(log), "log") == identity
    log.write_bytes(b"hellO\n")  # the same size, other bytes
    assert input_identity(str(log), "log") != identity
    assert kind_of(identity) == "log"


def test_a_zip_is_its_size_and_central_directory(tmp_path: Path) -> None:
    copy = tmp_path / "copy.zip"
    shutil.copy(SAMPLE, copy)
    identity = input_identity(str(copy), "zip")
    assert identity == input_identity(str(SAMPLE), "zip") and identity.startswith(
        f"zip:{copy.stat().st_size}:"
    )
    with zipfile.ZipFile(copy, "a") as archive:
        archive.writestr("extra-attachment.txt", "one more")
    assert input_identity(str(copy), "zip") != identity


def test_a_results_folder_is_its_file_names_and_sizes(tmp_path: Path) -> None:
    results = tmp_path / "allure-results"
    (results / "nested").mkdir(parents=True)
    (results / "a-result.json").write_text("{}")
    (results / "nested" / "b-attachment.txt").write_text("log")
    identity = input_identity(str(results), "directory")
    assert identity.startswith("directory:")
    (results / "nested" / "b-attachment.txt").write_text("longer log")
    assert input_identity(str(results), "directory") != identity


def test_what_cannot_be_read_has_no_identity(tmp_path: Path) -> None:
    (tmp_path / "not.zip").write_text("plain text")
    assert input_identity(str(tmp_path / "gone.log"), "log") == ""
    assert input_identity(str(tmp_path / "not.zip"), "zip") == ""
    assert input_identity(str(tmp_path / "gone"), "directory") == ""
    assert input_identity("-", "stdin") == ""
    assert kind_of("") == "" and kind_of("sha256:abc") == ""
