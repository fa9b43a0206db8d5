"""A customer's registered external accounts, newest first
(`GET /v1/customers/external-accounts`)."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.db import keyset
from ramp.db.keyset import Page, PageRequest
from ramp.db.tables import ExternalAccount


async def account_page(
    db: async_sessionmaker[AsyncSession], customer_id: str, page: PageRequest
) -> Page[ExternalAccount]:
    query = select(ExternalAccount).where(ExternalAccount.customer_id == customer_id)
    async with db() as session:
        rows = list(
            (
                await session.exec(
                    keyset.newest_first(
                        query, col(ExternalAccount.created_at), col(ExternalAccount.id), page
                    )
                )
            ).all()
        )
    last = rows[page.limit - 1] if len(rows) > page.limit else None
    return Page(rows[: page.limit], (last.created_at, last.id) if last is not None else None)
