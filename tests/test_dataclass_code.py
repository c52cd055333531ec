"""The cached code of dataclass methods (forensics/dataclass_code.py): a warm start compiles none of them, the cached
code is exactly a fresh compile's, nothing is written where bytecode is not, and a damaged table is ignored."""

from __future__ import annotations

import dataclasses
import json
import marshal
import os
import subprocess
import sys
from pathlib import Path

import pytest

from forensics import dataclass_code

REPOSITORY = Path(__file__).resolve().parents[1]
# Counts, in a fresh interpreter, the dataclass method texts compiled ("compile" audit events) and the code objects
# run ("exec" events: `exec` of a text raises none, so a run that bypassed the cache would count none) while the
# CLI and its analyze command are imported, and prints where the table lives.
COUNT_COMPILES = """
import json, sys
counts = {"compiled": 0, "run": 0}
def hook(event, args):
    source = args[0].encode() if isinstance(args[0], str) else args[0]
    if event == "compile" and isinstance(source, bytes) and source.startswith(b"def __create_fn__("):
        counts["compiled"] += 1
    elif event == "exec" and "__create_fn__" in getattr(args[0], "co_names", ()):
        counts["run"] += 1
sys.addaudithook(hook)
import forensics.cli.main, forensics.cli.analyze, forensics.dataclass_code as cache
print(json.dumps({**counts, "table": cache._table_path()}))
"""


def _import_analyze(prefix: Path, *, write: bool) -> dict[str, object]:
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    env.update(PYTHONPYCACHEPREFIX=str(prefix), PYTHONPATH=str(REPOSITORY))
    if not write:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    run = subprocess.run(
        [sys.executable, "-c", COUNT_COMPILES],
        capture_output=True,
        text=True,
        check=True,
        env=env,
        cwd=prefix,
    )
    result: dict[str, object] = json.loads(run.stdout.strip().splitlines()[-1])
    return result


def test_a_warm_start_compiles_no_dataclass_method_and_the_cache_holds_exactly_fresh_code(
    tmp_path: Path,
) -> None:
    first = _import_analyze(tmp_path, write=True)
    assert (
        isinstance(first["compiled"], int) and first["compiled"] > 100
    )  # ~6 methods for each of ~40 classes
    assert first["run"] == first["compiled"]
    table = Path(str(first["table"]))
    assert table.is_relative_to(tmp_path) and table.name.startswith("_dataclass_methods.")
    warm = _import_analyze(tmp_path, write=True)
    assert (warm["compiled"], warm["run"]) == (0, first["run"])
    codes = marshal.loads(table.read_bytes()[len(_magic()) :])
    assert len(codes) == first["compiled"]
    for source, code in codes.items():
        assert code == compile(source, "<string>", "exec", dont_inherit=True)


def test_nothing_is_written_where_bytecode_is_not(tmp_path: Path) -> None:
    first = _import_analyze(tmp_path, write=False)
    assert not Path(str(first["table"])).exists()
    assert _import_analyze(tmp_path, write=False)["compiled"] == first["compiled"]


@pytest.mark.parametrize("content", [b"", b"garbage", None], ids=["empty", "foreign", "corrupt"])
def test_a_damaged_table_is_ignored_and_written_afresh(tmp_path: Path, content: bytes | None) -> None:
    table = Path(str(_import_analyze(tmp_path, write=True)["table"]))
    table.write_bytes(content if content is not None else table.read_bytes()[:200])
    again = _import_analyze(tmp_path, write=True)
    assert isinstance(again["compiled"], int) and again["compiled"] > 100
    assert _import_analyze(tmp_path, write=True)["compiled"] == 0


def test_classes_made_through_the_cache_are_ordinary_frozen_slotted_dataclasses(tmp_path: Path) -> None:
    table = tmp_path / "table.pyc"
    sources = dataclass_code._CompiledSources(str(table))

    def make() -> type:
        namespace: dict[str, object] = {}
        exec(  # a class built as a module builds it, twice: compiled, then from the cache
            "from dataclasses import dataclass, field\n"
            "@dataclass(frozen=True, slots=True)\n"
            "class Point:\n"
            "    x: int\n"
            "    y: int = 0\n"
            "    tags: tuple[str, ...] = field(default=())\n",
            namespace,
        )
        made = namespace["Point"]
        assert isinstance(made, type)
        return made

    original = vars(dataclasses).get("exec")
    dataclasses.exec = sources.exec  # type: ignore[attr-defined]
    try:
        compiled = make()
        sources.table.save()
        assert table.exists()
        warm = dataclass_code._CompiledSources(str(table))
        dataclasses.exec = warm.exec  # type: ignore[attr-defined]
        cached = make()
        assert warm.table.loaded and not warm.table.added  # every method came from the file
    finally:
        if original is None:
            del dataclasses.exec  # type: ignore[attr-defined]
        else:
            dataclasses.exec = original  # type: ignore[attr-defined]
    for point_class in (compiled, cached):
        point = point_class(1, tags=("a",))
        assert repr(point) == "Point(x=1, y=0, tags=('a',))"
        assert point == point_class(1, 0, ("a",)) and hash(point) == hash(point_class(1, 0, ("a",)))
        assert [field.name for field in dataclasses.fields(point)] == ["x", "y", "tags"]
        assert dataclasses.replace(point, y=2).y == 2
        assert point_class.__slots__ == ("x", "y", "tags")
        with pytest.raises(dataclasses.FrozenInstanceError):
            point.x = 3  # type: ignore[attr-defined]


def _magic() -> bytes:
    from importlib.util import MAGIC_NUMBER

    return MAGIC_NUMBER
