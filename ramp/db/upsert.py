"""INSERT ... ON CONFLICT DO UPDATE on both supported databases."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Table
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import SQLModel
from sqlmodel.ext.asyncio.session import AsyncSession


async def upsert(
    session: AsyncSession,
    model: type[SQLModel],
    rows: Sequence[dict[str, Any]],
    key: Sequence[str],
) -> None:
    """Inserts `rows` (by column name), replacing the other columns where `key` exists."""
    if not rows:
        return
    table: Table = getattr(model, "__table__")  # noqa: B009  (SQLModel does not type it)
    dialect = session.bind.dialect.name if session.bind is not None else ""
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    statement = insert(table).values(list(rows))
    columns = [name for name in rows[0] if name not in key]
    statement = statement.on_conflict_do_update(
        index_elements=list(key),
        set_={name: statement.excluded[name] for name in columns},
    )
    await session.exec(statement)
