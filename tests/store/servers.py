"""The PostgreSQL server the store tests use: CI_FORENSICS_TEST_POSTGRES, or skip locally / fail in CI."""

from __future__ import annotations

import os

import pytest

POSTGRES_VARIABLE = "CI_FORENSICS_TEST_POSTGRES"


def postgres_url() -> str:
    """The test server's URL; skip (workstation) or fail (CI) without one."""
    url = os.environ.get(POSTGRES_VARIABLE, "")
    if url:
        return url
    if os.environ.get("CI"):
        pytest.fail(
            f"{POSTGRES_VARIABLE} is not set: CI must run the PostgreSQL store tests (.ci/services starts one)"
        )
    pytest.skip(
        f'{POSTGRES_VARIABLE} is not set; eval "$(.ci/services)" starts a PostgreSQL server for these tests'
    )


def with_search_path(url: str, schema: str) -> str:
    """The URL with libpq's `options` setting the schema new tables go to."""
    return f"{url}{'&' if '?' in url else '?'}options=-csearch_path%3D{schema}"
