"""The embedded store: one SQLite file, WAL mode, safe when two CI jobs record into it at once.

WAL lets readers go on while one process writes; `BEGIN IMMEDIATE` takes the write lock when a recording
starts (not halfway, when SQLite could only fail it), and the busy timeout makes a second writer wait
for the first instead of failing with "database is locked".
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from forensics.errors import StoreError, StoreNotFoundError
from forensics.store.base import MISSING_HINT, Row, Store

BUSY_TIMEOUT_SECONDS = 60.0


class SQLiteStore(Store):
    """A history store in a SQLite file (created with its folder when missing, unless `create` is false)."""

    dialect = "sqlite"
    identity_column = "INTEGER PRIMARY KEY"

    def __init__(
        self, path: Path, *, create: bool = True, busy_timeout: float = BUSY_TIMEOUT_SECONDS
    ) -> None:
        self.location = str(path)
        if not create and not path.is_file():
            raise StoreNotFoundError(f"no history store at '{path}'", hint=MISSING_HINT)
        try:
            if create:
                path.parent.mkdir(parents=True, exist_ok=True)
                target: str | Path = path
            else:  # mode=rw: if the file goes away meanwhile, fail instead of creating an empty one
                target = f"{path.absolute().as_uri()}?mode=rw"
            self.connection = sqlite3.connect(
                target, timeout=busy_timeout, isolation_level=None, uri=not create
            )
        except (OSError, sqlite3.Error) as err:
            raise StoreError(
                f"cannot open history store '{path}': {err}",
                hint="pass a writable file path with --store (or set CI_FORENSICS_STORE)",
            ) from err
        try:
            self.connection.execute(f"PRAGMA busy_timeout = {int(busy_timeout * 1000)}")
            if create:  # every store this tool created is in WAL mode already; opening one changes nothing
                self._use_wal(busy_timeout)
            self.connection.execute("PRAGMA synchronous = NORMAL")  # durable at checkpoints; safe in WAL mode
            self.connection.execute("PRAGMA foreign_keys = ON")
        except sqlite3.Error as err:
            self.connection.close()
            raise StoreError(
                f"'{path}' is not a usable ci-forensics history store: {err}",
                hint="pass another path with --store, or move that file away",
            ) from err

    def _use_wal(self, busy_timeout: float) -> None:
        """Switch a new file to WAL. SQLite answers "locked" without waiting when another process holds the
        file while the mode changes (the busy handler is not called for it), so retry until the timeout."""
        deadline = time.monotonic() + busy_timeout
        while True:
            try:
                if self.connection.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                    self.connection.execute("PRAGMA journal_mode = WAL")
                return
            except sqlite3.OperationalError as err:
                if "locked" not in str(err) or time.monotonic() > deadline:
                    raise
                time.sleep(0.02)

    def execute(self, sql: str, parameters: Sequence[Any] = ()) -> None:
        """Run one statement."""
        try:
            self.connection.execute(sql, tuple(parameters))
        except sqlite3.Error as err:
            raise self._error(err) from err

    def execute_many(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        """Run one statement once per row of parameters."""
        try:
            self.connection.executemany(sql, (tuple(row) for row in rows))
        except sqlite3.Error as err:
            raise self._error(err) from err

    def query(self, sql: str, parameters: Sequence[Any] = ()) -> list[Row]:
        """Run a query and return every row."""
        try:
            return self.connection.execute(sql, tuple(parameters)).fetchall()
        except sqlite3.Error as err:
            raise self._error(err) from err

    def begin(self) -> None:
        """Take the write lock now, waiting up to the busy timeout for another writer."""
        self.execute("BEGIN IMMEDIATE")

    def commit(self) -> None:
        """Commit the transaction."""
        self.execute("COMMIT")

    def rollback(self) -> None:
        """Roll back, if a transaction is still open (SQLite ends some on its own after an error)."""
        if self.connection.in_transaction:
            self.execute("ROLLBACK")

    def lock_for_migration(self) -> None:
        """`BEGIN IMMEDIATE` already holds the only write lock there is."""

    def close(self) -> None:
        """Close the connection."""
        self.connection.close()

    def _error(self, err: sqlite3.Error) -> StoreError:
        if isinstance(err, sqlite3.OperationalError) and "locked" in str(err):
            return StoreError(
                f"history store '{self.location}' stayed locked by another process: {err}",
                hint="another recording is still writing; try again, or give each job its own --store",
            )
        return StoreError(
            f"history store '{self.location}': {err}",
            hint="if the file is damaged, move it away; ci-forensics creates a fresh store",
        )
