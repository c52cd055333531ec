"""The dependency direction the folder layout promises: a pure core; rich/click/requests only at the edges."""

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


def test_the_core_never_imports_the_cli_or_renderers() -> None:
    for module, path in _modules():
        if module.startswith(("forensics.cli", "forensics.render")) or module == "forensics.__main__":
            continue
        if module == "forensics":  # the public API re-exports render_report, imported only when first used
            continue
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                assert not node.module.startswith(("forensics.cli", "forensics.render")), (
                    module,
                    node.module,
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
        "print(sorted(m for m in ('requests', 'psycopg', 'forensics.services.http', 'forensics.store.history')"
        " if m in sys.modules))\n"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert loaded.stdout.strip() == "[]", loaded.stderr
