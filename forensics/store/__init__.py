"""The history store: every recorded report's runs, jobs, test outcomes and root causes, and what they add up to.

`open_store` picks the backend from the location: a path or `sqlite:///path` is a SQLite file (the default,
zero setup), `postgresql://…` a shared PostgreSQL database. Both run the same schema and SQL.
"""

from __future__ import annotations

from pathlib import Path

from forensics.errors import StoreError
from forensics.store.base import Store
from forensics.store.schema import SCHEMA_VERSION, migrate
from forensics.store.sqlite import SQLiteStore

__all__ = ["DEFAULT_FILE_NAME", "SCHEMA_VERSION", "Store", "open_store"]

DEFAULT_FILE_NAME = "history.sqlite3"
_POSTGRES_SCHEMES = ("postgresql://", "postgres://")


def open_store(location: str | None, *, default_dir: Path) -> Store:
    """Open (creating and migrating as needed) the store at `location`, or `default_dir/history.sqlite3`."""
    store = _connect(location, default_dir=default_dir)
    try:
        migrate(store)
    except BaseException:
        store.close()
        raise
    return store


def _connect(location: str | None, *, default_dir: Path) -> Store:
    if not location:
        return SQLiteStore(default_dir / DEFAULT_FILE_NAME)
    if location.startswith(_POSTGRES_SCHEMES):
        try:
            from forensics.store.postgres import PostgresStore  # psycopg is the optional `postgres` extra
        except ImportError as err:
            raise StoreError(
                "a PostgreSQL history store needs psycopg", hint="pip install 'ci-forensics[postgres]'"
            ) from err
        return PostgresStore(location)
    if location.startswith("sqlite:///"):  # SQLAlchemy's spelling: sqlite:///relative, sqlite:////absolute
        return SQLiteStore(Path(location.removeprefix("sqlite:///")).expanduser())
    if "://" in location:
        raise StoreError(
            f"unknown history store '{location.split('://')[0]}://…'",
            hint="pass a file path, sqlite:///path or postgresql://user@host/db",
        )
    return SQLiteStore(Path(location).expanduser())
