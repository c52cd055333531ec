"""The tables kept beside the bytecode (forensics/code_table.py): read under their header, written back when grown."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from forensics.code_table import DiskTable, read_table, write_table


def test_a_grown_table_is_written_and_read_back_under_its_header_only(tmp_path: Path) -> None:
    path = str(tmp_path / "table.pyc")
    table = DiskTable(path, max_entries=10)
    table.load(b"header one\n")
    assert table.loaded and table.get("a") is None
    table.add("a", 1)
    table.save()
    again = DiskTable(path, max_entries=10)
    again.load(b"header one\n")
    assert again.get("a") == 1 and not again.added
    assert read_table(path, b"header two\n") == {}  # another interpreter's or engine's table is ignored


def test_past_the_cap_only_the_entries_this_run_used_are_kept(tmp_path: Path) -> None:
    path = str(tmp_path / "table.pyc")
    write_table(path, b"h\n", {f"old{n}": n for n in range(3)})
    table = DiskTable(path, max_entries=3)
    table.load(b"h\n")
    assert table.get("old1") == 1
    table.add("new", 9)  # four entries now: past the cap
    table.save()
    assert read_table(path, b"h\n") == {"old1": 1, "new": 9}


def test_nothing_is_kept_before_loading_without_a_header_or_where_bytecode_writing_is_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "table.pyc"
    unloaded = DiskTable(str(path), max_entries=10)
    unloaded.add("a", 1)  # never loaded: nothing to add to
    assert not unloaded.loaded and unloaded.get("a") is None and not unloaded.added
    headless = DiskTable(str(path), max_entries=10)
    headless.load(b"")  # what the entries depend on could not be told
    headless.add("a", 1)
    headless.save()
    assert not headless.added and not path.exists()
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    quiet = DiskTable(str(path), max_entries=10)
    quiet.load(b"h\n")
    quiet.add("a", 1)
    assert not quiet.added  # no save at exit
