"""One trip to aiosqlite's thread per SQLite statement, for the API's engine.

SQLAlchemy's aiosqlite adapter makes four trips for each statement: it creates the
cursor, executes, fetches the rows, closes the cursor, each a future resolved by
aiosqlite's thread and a wake-up of the event loop. In the API those trips were most of
a read's CPU (docs/performance.md, "The read paths"). This cursor does the four in one
call on that thread and keeps what SQLAlchemy reads afterwards (the rows, the
description, the row count, the last row id).

It replaces SQLAlchemy's default cursor only (server-side cursors keep theirs), and only
where asked (`create_engine(..., one_trip=True)`: the API's): it reaches into
aiosqlite's `Connection._execute` and `_conn` and SQLAlchemy's adapter classes, as the
locked versions have them (docs/decisions.md, Issue 30).
"""

from __future__ import annotations

import collections
import sqlite3
from typing import Any

import aiosqlite
from sqlalchemy.dialects.sqlite.aiosqlite import (
    AsyncAdapt_aiosqlite_connection,
    AsyncAdapt_aiosqlite_cursor,
    AsyncAdapt_aiosqlite_dbapi,
)
from sqlalchemy.util import EMPTY_DICT
from sqlalchemy.util.concurrency import await_


def _run(
    connection: sqlite3.Connection, operation: str, parameters: Any, many: bool
) -> tuple[sqlite3.Cursor, list[Any] | None]:
    """On aiosqlite's thread: the statement from cursor to close."""
    cursor = connection.cursor()
    try:
        if many:
            cursor.executemany(operation, parameters)
        else:
            cursor.execute(operation, parameters if parameters is not None else ())
        rows = cursor.fetchall() if cursor.description else None
    finally:
        cursor.close()
    return cursor, rows


class OneTripCursor(AsyncAdapt_aiosqlite_cursor):
    """The statement runs on execute, in one trip; the (closed) sqlite3 cursor is kept
    for its description, rowcount and lastrowid, which it still answers."""

    __slots__ = ()
    _awaitable_cursor_close = False

    def __init__(self, adapt_connection: Any) -> None:  # no trip to make a cursor
        self._adapt_connection = adapt_connection
        self._connection = adapt_connection._connection
        self._cursor = None  # type: ignore[assignment]
        self._soft_closed_memoized = EMPTY_DICT
        self._rows = collections.deque()

    async def _execute_async(self, operation: Any, parameters: Any) -> Any:
        return await self._one_trip(operation, parameters, many=False)

    async def _executemany_async(self, operation: Any, seq_of_parameters: Any) -> Any:
        return await self._one_trip(operation, seq_of_parameters, many=True)

    async def _one_trip(self, operation: Any, parameters: Any, *, many: bool) -> None:
        connection: aiosqlite.Connection = self._connection  # type: ignore[assignment]
        async with self._adapt_connection._execute_mutex:
            cursor, rows = await connection._execute(  # type: ignore[no-untyped-call]
                _run, connection._conn, operation, parameters, many
            )
        self._cursor = cursor
        if rows is not None:
            self._rows = collections.deque(rows)

    async def _async_soft_close(self) -> None:
        return  # closed on its thread already

    def close(self) -> None:
        self._rows.clear()


class _OneTripConnection(AsyncAdapt_aiosqlite_connection):
    __slots__ = ()
    _cursor_cls = OneTripCursor


class OneTripDbapi(AsyncAdapt_aiosqlite_dbapi):
    """The DBAPI module SQLAlchemy is given (`create_async_engine(module=...)`)."""

    def __init__(self) -> None:
        super().__init__(aiosqlite, sqlite3)

    def connect(self, *arg: Any, **kw: Any) -> _OneTripConnection:
        connection = aiosqlite.connect(*arg, **kw)
        connection._thread.daemon = True  # as SQLAlchemy's own adapter does
        return _OneTripConnection(self, await_(connection))  # type: ignore[arg-type]
