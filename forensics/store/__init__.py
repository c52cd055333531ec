"""The history store: every recorded report's runs, jobs, test outcomes and root causes, and what they add up to.

`open_store` picks the backend from the location: a path or `sqlite:///path` is a SQLite file (the default,
zero setup), `postgresql://…` a shared PostgreSQL database. Both run the same schema and SQL.

Only recording creates a store. A reading command opens it with `mode="read"`: a missing store is a
`StoreNotFoundError` (a typo in --store must not read as "0 runs"), and a store at an older schema version is
refused with a hint rather than migrated, since migrating writes (to a team's shared database, too).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from forensics.errors import StoreError
from forensics.store.base import Store
from forensics.store.schema import SCHEMA_VERSION, migrate, require_current, require_existing
from forensics.store.sqlite import SQLiteStore

__all__ = ["DEFAULT_FILE_NAME", "SCHEMA_VERSION", "OpenMode", "Store", "open_store"]

DEFAULT_FILE_NAME = "history.sqlite3"
_POSTGRES_SCHEMES = ("postgresql://", "postgres://")

OpenMode = Literal["create", "write", "read"]
"""create: record (create and migrate as needed); write: change an existing store (migrate it when older);
read: read an existing store at this schema version, writing nothing."""


def open_store(
    location: str | os.PathLike[str] | None,
    *,
    default_dir: str | os.PathLike[str],
    mode: OpenMode = "create",
) -> Store:
    """Open the store at `location`, or `default_dir/history.sqlite3`, as `mode` allows (see OpenMode).

    StoreNotFoundError when `mode` is not "create" and no store is there; nothing is created then.
    """
    where = os.fspath(location) if location is not None else None
    store = _connect(where, default_dir=Path(default_dir), create=mode == "create")
    try:
        if mode == "read":
            require_current(store)
        else:
            if mode == "write":
                require_existing(store)
            migrate(store)
    except BaseException:
        store.close()
        raise
    return store


def _connect(location: str | None, *, default_dir: Path, create: bool) -> Store:
    if not location:
        return SQLiteStore(default_dir / DEFAULT_FILE_NAME, create=create)
    if location.startswith(_POSTGRES_SCHEMES):
        try:
            from forensics.store.postgres import PostgresStore  # psycopg is the optional `postgres` extra
        except ImportError as err:
            raise StoreError(
                "a PostgreSQL history store needs psycopg", hint="pip install 'ci-forensics[postgres]'"
            ) from err
        return PostgresStore(location)
    if location.startswith("sqlite:///"):  # SQLAlchemy's spelling: sqlite:///relative, sqlite:////absolute
        return SQLiteStore(Path(location.removeprefix("sqlite:///")).expanduser(), create=create)
    if "://" in location:
        raise StoreError(
            f"unknown history store '{location.split('://')[0]}://…'",
            hint="pass a file path, sqlite:///path or postgresql://user@host/db",
        )
    return SQLiteStore(Path(location).expanduser(), create=create)
