"""A project's customers, for reconciliation: newest first, optionally the one with
the project's own `id` (`GET /v1/customers`)."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.db import keyset
from ramp.db.keyset import Page, PageRequest
from ramp.db.tables import Customer


async def customer_page(
    db: async_sessionmaker[AsyncSession],
    project_id: str,
    page: PageRequest,
    external_id: str | None = None,
) -> Page[Customer]:
    query = select(Customer).where(Customer.project_id == project_id)
    if external_id is not None:
        query = query.where(Customer.external_id == external_id)
    async with db() as session:
        rows = list(
            (
                await session.exec(
                    keyset.newest_first(query, col(Customer.created_at), col(Customer.id), page)
                )
            ).all()
        )
    last = rows[page.limit - 1] if len(rows) > page.limit else None
    return Page(rows[: page.limit], (last.created_at, last.id) if last is not None else None)
