"""The seam every history store backend fills: run SQL, group writes in a transaction, say how DDL differs.

SQL throughout the store is written once with `?` placeholders and `INSERT … ON CONFLICT … DO NOTHING`,
which SQLite (≥ 3.24) and PostgreSQL both speak; a backend only adapts placeholders, the identity column
and how a write transaction starts.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

Row = tuple[Any, ...]
# what to do when a reading command finds no store where it was told to look
MISSING_HINT = "record one first: `ci-forensics analyze … --record` (or check --store / CI_FORENSICS_STORE)"


class Store(ABC):
    """An open history store. Use it as a context manager, or call `close()`."""

    dialect: str  # "sqlite" or "postgresql"
    identity_column: str  # DDL of an auto-numbered primary key column
    location: str  # where it is, for messages (never with a password)

    @abstractmethod
    def execute(self, sql: str, parameters: Sequence[Any] = ()) -> None:
        """Run one statement."""

    @abstractmethod
    def execute_many(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        """Run one statement once per row of parameters."""

    @abstractmethod
    def query(self, sql: str, parameters: Sequence[Any] = ()) -> list[Row]:
        """Run a query and return every row."""

    @abstractmethod
    def begin(self) -> None:
        """Start a write transaction (SQLite takes the write lock at once, so two writers queue, not fail)."""

    @abstractmethod
    def commit(self) -> None:
        """Commit the transaction."""

    @abstractmethod
    def rollback(self) -> None:
        """Roll the transaction back."""

    @abstractmethod
    def lock_for_migration(self) -> None:
        """Inside a transaction: keep other processes from migrating the schema at the same time."""

    @abstractmethod
    def close(self) -> None:
        """Close the connection."""

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """A write transaction: committed when the block ends, rolled back when it raises."""
        self.begin()
        try:
            yield
        except BaseException:
            self.rollback()
            raise
        self.commit()

    def scalar(self, sql: str, parameters: Sequence[Any] = ()) -> Any:
        """The first column of the first row, or None."""
        rows = self.query(sql, parameters)
        return rows[0][0] if rows else None

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.location!r})"
