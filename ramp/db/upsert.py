"""INSERT ... ON CONFLICT of SQLModel rows (update, or leave alone), on both supported databases."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

from sqlalchemy import JSON, Table, cast, func, inspect
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.sql.dml import Insert
from sqlmodel import SQLModel
from sqlmodel.ext.asyncio.session import AsyncSession


async def upsert(
    session: AsyncSession,
    rows: Sequence[SQLModel],
    key: Sequence[str],
    newer: str | None = None,
) -> None:
    """Inserts `rows` (all of one table), replacing the other columns where `key` exists;
    with `newer`, only where the given column's new value is greater than the stored one.
    """
    if not rows:
        return
    model = type(rows[0])
    columns = _columns(model)
    dialect = session.bind.dialect.name if session.bind is not None else "sqlite"
    names = tuple(column for column, _ in columns)
    statement = _statement(dialect, model, names, tuple(key), newer)
    params = [{column: getattr(row, attribute) for column, attribute in columns} for row in rows]
    # One statement, built once per table: SQLAlchemy's compiled cache then applies.
    await session.exec(statement, params=params)


async def insert_missing(
    session: AsyncSession, rows: Sequence[SQLModel], key: Sequence[str]
) -> None:
    """Inserts those of `rows` (all of one table) whose `key` is not stored yet."""
    if not rows:
        return
    model = type(rows[0])
    columns = _columns(model)
    dialect = session.bind.dialect.name if session.bind is not None else "sqlite"
    statement = _insert(dialect, model).on_conflict_do_nothing(index_elements=list(key))
    params = [{column: getattr(row, attribute) for column, attribute in columns} for row in rows]
    await session.exec(statement, params=params)


async def insert_missing_values(
    session: AsyncSession,
    model: type[SQLModel],
    rows: Sequence[dict[str, Any]],
    key: Sequence[str],
    returning: str | None = None,
) -> list[Any]:
    """`insert_missing` of plain rows (column name -> value, every row the same
    columns), without building model objects; with `returning`, that column of the rows
    inserted now (those already stored are left out)."""
    if not rows:
        return []
    dialect = session.bind.dialect.name if session.bind is not None else "sqlite"
    statement = _insert_missing(dialect, model, tuple(key), returning)
    result = await session.exec(statement, params=rows)
    return list(result.scalars()) if returning is not None else []


@cache
def _insert_missing(
    dialect: str, model: type[SQLModel], key: tuple[str, ...], returning: str | None
) -> Insert:
    statement = _insert(dialect, model).on_conflict_do_nothing(index_elements=list(key))
    if returning is None:
        return statement
    table: Table = getattr(model, "__table__")  # noqa: B009  (SQLModel does not type it)
    return statement.returning(table.c[returning])


@cache
def _columns(model: type[SQLModel]) -> tuple[tuple[str, str], ...]:
    """(column name, attribute name): they differ where SQLModel reserves the name."""
    return tuple((prop.columns[0].name, prop.key) for prop in inspect(model).column_attrs)


@cache
def _statement(
    dialect: str,
    model: type[SQLModel],
    columns: tuple[str, ...],
    key: tuple[str, ...],
    newer: str | None,
) -> Insert:
    table: Table = getattr(model, "__table__")  # noqa: B009  (SQLModel does not type it)
    statement = _insert(dialect, model)
    return statement.on_conflict_do_update(
        index_elements=list(key),
        set_={name: statement.excluded[name] for name in columns if name not in key},
        where=None if newer is None else table.c[newer] < statement.excluded[newer],
    )


def _insert(dialect: str, model: type[SQLModel]) -> postgresql.Insert | sqlite.Insert:
    table: Table = getattr(model, "__table__")  # noqa: B009  (SQLModel does not type it)
    return (postgresql.insert if dialect == "postgresql" else sqlite.insert)(table)


def json_with_key(column: Any, dialect: str, key: str, value: str) -> Any:
    """`column` (a JSON object) with `key` set to `value`, computed by the database in the
    UPDATE that stores it: writers of different keys at the same time all keep theirs,
    where reading the object, changing it and writing it back would lose all but one."""
    if dialect == "postgresql":
        # The column is `json`: merged as jsonb (`||`: the right side's keys win).
        merged = cast(column, postgresql.JSONB).op("||")(func.jsonb_build_object(key, value))
        return cast(merged, JSON)
    # SQLite's json_patch (RFC 7396) replaces the key and keeps the others.
    return func.json_patch(column, func.json_object(key, value))
