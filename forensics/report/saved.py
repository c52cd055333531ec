"""Saved JSON reports (`analyze --format json`) read back: the one place that recognises one."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from forensics.errors import ResultsError

_HINT = "pass a file written by `ci-forensics analyze --format json`"


def load_saved_report(path: Path) -> dict[str, Any]:
    """The report's JSON document; ResultsError when the file is not a schema 1.x report."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise ResultsError(f"cannot read report '{path}': {err}", hint=_HINT) from err
    if not isinstance(document, dict) or not str(document.get("schema_version", "")).startswith("1."):
        raise ResultsError(f"'{path}' is not a ci-forensics JSON report (schema 1.x)", hint=_HINT)
    return document
