"""Database engines: async for the API and activities, sync for migrations."""

from __future__ import annotations

import asyncio
import contextlib
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

from sqlalchemy import event, make_url
from sqlalchemy.ext.asyncio import AsyncEngine, async_sessionmaker, create_async_engine
from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.config import Settings
from ramp.db.encrypted import attach_secret_box
from ramp.security.encryption import SecretBox
from ramp.security.files import private_dir, private_sqlite_file


def create_engine(settings: Settings, *, pre_ping: bool = True) -> AsyncEngine:
    """`pre_ping` tests each pooled PostgreSQL connection before use (a round trip):
    the API wants it, so a database restart costs no failed request; activities retry
    on their own and skip it.

    The engine carries the encryption keys, when set, for the encrypted columns
    (ramp/db/encrypted.py)."""
    url = settings.sqlalchemy_url
    if url.startswith("sqlite"):
        prepare_sqlite(settings)
        engine = create_async_engine(url, connect_args={"timeout": 30})
        event.listen(engine.sync_engine, "connect", _sqlite_pragmas)
    else:
        engine = create_async_engine(url, pool_size=10, max_overflow=20, pool_pre_ping=pre_ping)
    if settings.encryption_keys.get_secret_value():
        attach_secret_box(engine.sync_engine, SecretBox.from_settings(settings))
    return engine


def prepare_sqlite(settings: Settings) -> None:
    """The data dir 0700 and the SQLite file (with its -wal/-shm) 0600, before any
    connection can create them with the umask's looser modes."""
    private_dir(settings.data_dir)
    database = make_url(settings.migration_url).database
    if database and database != ":memory:":
        private_sqlite_file(Path(database))


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    # WAL lets the API read while the worker writes; foreign keys are off by default.
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA busy_timeout=30000")
    cursor.close()


def session_factory(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    return async_sessionmaker(engine, class_=AsyncSession, expire_on_commit=False)


def sqlite_writer(db: async_sessionmaker[AsyncSession]) -> AbstractAsyncContextManager[Any]:
    """One lock for a process's database writes on SQLite (the worker's projection
    writes, a webhook dispatcher's claims and records): they queue here rather than in
    SQLite's lock. None on PostgreSQL."""
    if db.kw["bind"].dialect.name == "sqlite":
        return asyncio.Lock()
    return contextlib.nullcontext()


async def read_snapshot(session: AsyncSession) -> None:
    """Makes the rest of the session's transaction read one consistent snapshot.

    Call it before the transaction's first query, on read-only work: a response built
    from several rows (an intent, its steps, its transaction) must not mix two writes.
    PostgreSQL's default READ COMMITTED and pysqlite's autocommitted SELECTs would.
    """
    connection = await session.connection()
    if connection.dialect.name == "postgresql":
        await connection.exec_driver_sql("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
    else:
        # pysqlite only opens transactions before writes; a deferred BEGIN pins the
        # WAL snapshot at the first SELECT. Read-only, so it never needs a write lock.
        await connection.exec_driver_sql("BEGIN")


async def begin_write(session: AsyncSession) -> None:
    """Starts the session's transaction as a writer, before its first query.

    On SQLite the write lock is taken now (BEGIN IMMEDIATE), so what the transaction
    reads first (a revision, say) cannot change before it writes. PostgreSQL's row
    locks (SELECT ... FOR UPDATE) do that there.
    """
    connection = await session.connection()
    if connection.dialect.name == "sqlite":
        await connection.exec_driver_sql("BEGIN IMMEDIATE")
