"""The dependency direction the folder layout promises: a pure core; rich/click/requests only at the edges.

The layers themselves are import-linter contracts (`[tool.importlinter]` in pyproject.toml, run by
`make lint`); this module also runs them, so the suite fails on a crossed layer too."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "forensics"
# module prefix → third-party packages it may import
_ALLOWED = {
    "forensics.cli": {"click", "rich", "regex"},
    "forensics.render.text": {"rich"},
    "forensics.render": {"rich", "regex"},
    "forensics.services": {"requests", "regex"},  # the HTTP clients; sources and sinks go through them
    "forensics.store.postgres": {"psycopg", "regex"},
}
_CORE_ALLOWED = {"regex"}
_EDGE_ONLY = {"click", "rich", "requests", "psycopg"}


def _modules() -> list[tuple[str, Path]]:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found.append((name, path))
    return found


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize(("module", "path"), _modules(), ids=[name for name, _ in _modules()])
def test_edge_libraries_stay_at_the_edges(module: str, path: Path) -> None:
    allowed = next((libs for prefix, libs in _ALLOWED.items() if module.startswith(prefix)), _CORE_ALLOWED)
    forbidden = (_imports(path) & _EDGE_ONLY) - allowed
    assert not forbidden, f"{module} imports {sorted(forbidden)}"


def test_the_layers_hold() -> None:
    """The import-linter contracts of pyproject.toml (layers, and only inputs/ and report/ open an input)."""
    lint_imports = Path(sys.executable).with_name("lint-imports")
    checked = subprocess.run(
        [str(lint_imports), "--no-cache"], capture_output=True, text=True, cwd=PACKAGE.parent, check=False
    )
    assert checked.returncode == 0, checked.stdout[-4000:]


# Every package but inputs/ and report/ (which open inputs), rules/ (which reads rule files) and cli/ (which
# reads options and writes outputs) keeps off the file system: the import-linter contract keeps them from
# importing the input readers, this from opening files themselves. The few that own files say which, here.
_NO_FILE_ACCESS = (
    "forensics.annotate",
    "forensics.dashboard",
    "forensics.engine",
    "forensics.render",
    "forensics.services",
    "forensics.sinks",
    "forensics.sources",
    "forensics.store",
    "forensics.usecases",
)
_OWN_FILES = {
    "forensics.store.sqlite": "the store's own database file",
    "forensics.dashboard.site": "the site it writes, and the assets packaged with it",
    "forensics.services.http": "a download being written",
    "forensics.sources.cache": "the download cache's own files (size and SHA-256 checks)",
    # reads a downloaded job log before analysis, for which artifacts that job uploaded (not yet an input)
    "forensics.sources.naming": "a job log it downloaded",
    "forensics.engine.learned": "the rule pack's learned family model (rules/learned/family-model.json)",
    "forensics.engine.cause_gate": "the rule pack's learned cause gate (rules/learned/cause-gate.txt)",
    "forensics.usecases.learn_family_model": "the labelled corpus it learns from and the model file it writes",
    "forensics.usecases.learn_cause_gate": "the labelled corpus and the logs it learns the cause gate from",
}
_FILE_CALLS = {
    "open", "stat", "lstat", "fstat", "scandir", "listdir", "walk", "iterdir", "glob", "rglob",
    "read_bytes", "read_text", "getsize", "getmtime", "exists", "isfile", "isdir", "is_file", "is_dir",
    "ZipFile", "is_zipfile", "TarFile",
}  # fmt: skip
_CHECKED = [(name, path) for name, path in _modules() if name.startswith(_NO_FILE_ACCESS)]


def _file_calls(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call):
            name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
            if name in _FILE_CALLS:
                found.append(f"{name}() at line {node.lineno}")
    return found


@pytest.mark.parametrize(("module", "path"), _CHECKED, ids=[name for name, _ in _CHECKED])
def test_no_module_outside_inputs_and_report_opens_a_file(module: str, path: Path) -> None:
    """The store, renderers, sinks, annotate, the use cases and the engine (which reads the streams it is
    handed) take what `analyze` put on the Report; the modules that own files touch only those."""
    calls = _file_calls(path)
    assert bool(calls) == (module in _OWN_FILES), (
        f"{module}: {calls or 'no file access left: drop it from _OWN_FILES'}"
    )


def test_analyze_loads_no_http_client_or_database_driver() -> None:
    """`analyze` starts fast: the CLI imports a command's module only when it runs (0.1 s, not 0.3 s)."""
    code = (
        "import os, sys\n"
        "from forensics.cli.main import main\n"
        "try:\n"
        "    main(['analyze', '--demo', '--format', 'json', '-o', os.devnull])\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(sorted(m for m in ('requests', 'psycopg', 'forensics.services.http', 'forensics.store.answers')"
        " if m in sys.modules))\n"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert loaded.stdout.strip() == "[]", loaded.stderr
