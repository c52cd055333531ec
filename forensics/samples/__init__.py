"""Bundled sample artifacts."""

from __future__ import annotations

from pathlib import Path

SAMPLE = Path(__file__).resolve().parent / "nightly-allure-results.zip"
"""The sample nightly artifact `analyze --demo` reads (see README.md beside it)."""

HEALTHY_TRAFFIC = Path(__file__).resolve().parent / "healthy-traffic.log"
"""Real healthy serving lines `rules lint` measures the rules' pre-filter literals on (healthy-traffic-SOURCES.md)."""


def healthy_traffic() -> bytes:
    """The shipped healthy sample's bytes."""
    return HEALTHY_TRAFFIC.read_bytes()
