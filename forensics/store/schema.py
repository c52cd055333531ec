"""The store's tables and their numbered migrations; one `schema_version` table says which ran.

A store written by a newer ci-forensics (a higher schema version than this one knows) is never touched:
opening it is a `StoreError` that names the version to upgrade to. Reading commands migrate nothing:
`require_current` refuses a store that is missing or older, and says which command upgrades it.

Times are whole seconds since the epoch (UTC) in BIGINT columns, lists and mappings are JSON text:
the same DDL means the same thing in SQLite and PostgreSQL.
"""

from __future__ import annotations

from forensics.errors import StoreError, StoreNotFoundError
from forensics.store.base import MISSING_HINT, Store
from forensics.values import clean_text
from forensics.version import __version__

_INITIAL = (
    # One CI run attempt. Local analyses get provider 'local' and a run id derived from their inputs.
    """CREATE TABLE runs (
        id {identity},
        provider TEXT NOT NULL, repository TEXT NOT NULL,
        run_id BIGINT NOT NULL, run_attempt INTEGER NOT NULL,
        workflow TEXT NOT NULL, workflow_path TEXT NOT NULL, branch TEXT NOT NULL, event TEXT NOT NULL,
        head_sha TEXT NOT NULL, run_url TEXT NOT NULL,
        at BIGINT NOT NULL, recorded_at BIGINT NOT NULL,
        tool_version TEXT NOT NULL, rules_loaded INTEGER NOT NULL,
        UNIQUE (provider, repository, run_id, run_attempt))""",
    "CREATE INDEX runs_by_time ON runs (at)",
    "CREATE INDEX runs_by_series ON runs (repository, workflow, branch, at)",
    "CREATE INDEX runs_by_commit ON runs (repository, head_sha)",
    # A job of a run (job_id 0: the inputs no CI job is known for).
    """CREATE TABLE jobs (
        id {identity},
        run BIGINT NOT NULL REFERENCES runs (id),
        job_id BIGINT NOT NULL, name TEXT NOT NULL, url TEXT NOT NULL, conclusion TEXT NOT NULL,
        runner_name TEXT NOT NULL, runner_labels TEXT NOT NULL,
        started_at TEXT NOT NULL, completed_at TEXT NOT NULL,
        UNIQUE (run, job_id))""",
    # What a job ran on: runner, runner_label, gpu_model, gpu_memory — one row per value.
    """CREATE TABLE job_facts (
        job BIGINT NOT NULL REFERENCES jobs (id),
        dimension TEXT NOT NULL, value TEXT NOT NULL,
        PRIMARY KEY (job, dimension, value))""",
    # Every test outcome; cause_kind/cause_key only for failing tests ('cause' + rule id, or
    # 'unexplained' + fingerprint key).
    """CREATE TABLE tests (
        id {identity},
        run BIGINT NOT NULL REFERENCES runs (id),
        job BIGINT NOT NULL REFERENCES jobs (id),
        test_key TEXT NOT NULL, name TEXT NOT NULL, full_name TEXT NOT NULL,
        status TEXT NOT NULL, failing INTEGER NOT NULL,
        retries INTEGER NOT NULL, previous_statuses TEXT NOT NULL,
        cause_kind TEXT, cause_key TEXT,
        UNIQUE (job, test_key))""",
    "CREATE INDEX tests_by_run ON tests (run)",
    "CREATE INDEX tests_by_cause ON tests (cause_key)",
    # The root cause (or fingerprint) of a failing test, as the report showed it (already redacted).
    """CREATE TABLE findings (
        test BIGINT PRIMARY KEY REFERENCES tests (id),
        kind TEXT NOT NULL, key TEXT NOT NULL, title TEXT NOT NULL, category TEXT NOT NULL,
        summary TEXT NOT NULL, advice TEXT NOT NULL,
        fields TEXT NOT NULL, tickets TEXT NOT NULL, symptoms TEXT NOT NULL,
        attachment TEXT NOT NULL, line INTEGER NOT NULL, text TEXT NOT NULL, location TEXT NOT NULL,
        excerpt TEXT NOT NULL, masked TEXT NOT NULL)""",
    # The redacted log text around a failing test's evidence, and where its artifact was: what
    # `reanalyze` runs newer rules over.
    """CREATE TABLE evidence_logs (
        test BIGINT PRIMARY KEY REFERENCES tests (id),
        test_uuid TEXT NOT NULL, input_path TEXT NOT NULL, input_label TEXT NOT NULL,
        source TEXT NOT NULL, attachment TEXT NOT NULL, location TEXT NOT NULL,
        first_line INTEGER NOT NULL, text TEXT NOT NULL, message TEXT NOT NULL)""",
)

_INPUT_IDENTITY = (
    # What the input at input_path held when it was analysed (see report/identity.py); '' when unknown.
    # `reanalyze` reads the file again only while it still holds exactly that.
    "ALTER TABLE evidence_logs ADD COLUMN input_identity TEXT NOT NULL DEFAULT ''",
)

MIGRATIONS: tuple[tuple[int, tuple[str, ...]], ...] = ((1, _INITIAL), (2, _INPUT_IDENTITY))
"""(version, statements) in order; append a new entry for every schema change, never edit a shipped one."""

SCHEMA_VERSION = MIGRATIONS[-1][0]
_UPGRADE_HINT = (
    "upgrade ci-forensics to {tool} or later (pip install -U ci-forensics), or use another --store"
)
_OLDER_HINT = (
    "record into it once with this ci-forensics to upgrade it (`ci-forensics analyze … --record`, "
    "`fetch … --record` or `reanalyze --apply`); reading commands never change a store"
)


def migrate(store: Store, *, target: int = SCHEMA_VERSION) -> int:
    """Bring the store to `target` (default: SCHEMA_VERSION); StoreError when a newer ci-forensics wrote it.

    Returns the version. A lower `target` builds a store as an older release left it (for upgrade tests).
    """
    current, writer = _version(store) if _has_schema_table(store) else (0, "")
    _refuse_newer(store, current, writer)
    if current >= target:
        return current
    with store.transaction():
        store.lock_for_migration()
        store.execute(
            "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL, tool_version TEXT NOT NULL)"
        )
        current, writer = _version(store)  # again, under the lock: another process may have migrated
        _refuse_newer(store, current, writer)
        for version, statements in MIGRATIONS:
            if version <= current or version > target:
                continue
            for statement in statements:
                store.execute(statement.format(identity=store.identity_column))
            store.execute(
                "INSERT INTO schema_version (version, tool_version) VALUES (?, ?)", (version, __version__)
            )
    return max(current, target)


def require_existing(store: Store) -> None:
    """StoreNotFoundError when the store holds no ci-forensics tables (nothing is created)."""
    if not _has_schema_table(store):
        raise StoreNotFoundError(f"no history store at '{store.location}'", hint=MISSING_HINT)


def require_current(store: Store) -> None:
    """For reading without writing: the store must exist at exactly SCHEMA_VERSION (it is never migrated)."""
    require_existing(store)
    current, writer = _version(store)
    _refuse_newer(store, current, writer)
    if current < SCHEMA_VERSION:
        raise StoreError(
            f"history store '{store.location}' has schema version {current}; this ci-forensics {__version__} "
            f"reads version {SCHEMA_VERSION} and does not upgrade a store it only reads",
            hint=_OLDER_HINT,
        )


def _version(store: Store) -> tuple[int, str]:
    rows = store.query("SELECT version, tool_version FROM schema_version ORDER BY version DESC LIMIT 1")
    if not rows:
        return 0, ""
    version, writer = rows[0]
    if isinstance(version, bool) or not isinstance(version, int):  # SQLite keeps 'abc' in an INTEGER column
        raise StoreError(
            f"history store '{store.location}' has a schema version that is not a number: "
            f"{clean_text(repr(version), limit=40)}",
            hint="the schema_version table was edited by hand or damaged; restore the store from a backup",
        )
    return version, clean_text(str(writer), limit=40)


def _refuse_newer(store: Store, version: int, writer: str) -> None:
    if version > SCHEMA_VERSION:
        raise StoreError(
            f"history store '{store.location}' has schema version {version} (written by ci-forensics "
            f"{writer or 'a newer release'}); this ci-forensics {__version__} knows up to version {SCHEMA_VERSION}",
            hint=_UPGRADE_HINT.format(tool=writer or "the release that wrote it"),
        )


def _has_schema_table(store: Store) -> bool:
    if store.dialect == "sqlite":
        sql = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'"
    else:
        sql = (
            "SELECT 1 FROM information_schema.tables "
            "WHERE table_name = 'schema_version' AND table_schema = current_schema()"
        )
    return bool(store.query(sql))
