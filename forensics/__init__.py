"""ci-forensics: tells why each test in a failed CI run really failed.

Names load on first use (PEP 562): `ci-forensics --version` and `--help` import this package, and must not
pay for the engine, the rules loader and their libraries.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from forensics.errors import ForensicsError
from forensics.version import __version__

if TYPE_CHECKING:
    from forensics.report.build import AnalyzeOptions, analyze
    from forensics.rules.loader import load_rules

__all__ = ["AnalyzeOptions", "ForensicsError", "__version__", "analyze", "load_rules"]

_LAZY = {
    "AnalyzeOptions": "forensics.report.build",
    "analyze": "forensics.report.build",
    "load_rules": "forensics.rules.loader",
}


def __getattr__(name: str) -> Any:
    """Import a public name's module the first time the name is used."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'forensics' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
