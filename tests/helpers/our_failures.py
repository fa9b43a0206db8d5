"""Failures of ours, made for real: the database refusing the statement an order reads
with (tests/test_internal_order_errors.py, tests/test_bridge_accounts.py), and what a
failover would have left behind (the move's event)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from sqlalchemy import text
from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.db.tables import WebhookEventRow


@asynccontextmanager
async def order_statement_failing(
    sessions: async_sessionmaker[AsyncSession],
) -> AsyncIterator[None]:
    """While inside, the order's one read (ramp/routing/order_reads.py) fails in the
    database, as with a schema out of step with the code: the table of partner fees it
    joins is not there. Nothing else an intent does on the way reads that table."""
    await _statement(sessions, "ALTER TABLE partner_fee RENAME TO partner_fee_away")
    try:
        yield
    finally:
        await _statement(sessions, "ALTER TABLE partner_fee_away RENAME TO partner_fee")


async def _statement(sessions: async_sessionmaker[AsyncSession], sql: str) -> None:
    async with sessions() as session:
        await (await session.connection()).execute(text(sql))
        await session.commit()


async def moves_announced(sessions: async_sessionmaker[AsyncSession], intent_id: str) -> int:
    """How many of the intent's stored events announce a move to another provider."""
    async with sessions() as session:
        rows = (
            await session.exec(
                select(WebhookEventRow).where(WebhookEventRow.intent_id == intent_id)
            )
        ).all()
    return sum("movedToProviderCode" in json.loads(row.body)["data"] for row in rows)
