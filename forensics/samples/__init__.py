"""Bundled sample artifacts."""

from __future__ import annotations

from pathlib import Path

SAMPLE = Path(__file__).resolve().parent / "nightly-allure-results.zip"
"""The sample nightly artifact `analyze --demo` reads (see README.md beside it)."""
