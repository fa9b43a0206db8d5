"""What issue 26 adds to quotes: each quote held until it expires (`quoteId`: `POST
/intent` with it uses that provider, or answers 409 QUOTE_EXPIRED after), and the
project's strategy read for their ranking (ramp/routing/strategy.py; the ranking
itself is in ramp/quotes/service.py)."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime, timedelta
from decimal import Decimal

from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel import col, delete
from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.db.routing_tables import HeldQuote
from ramp.db.types import utcnow
from ramp.errors import Conflict, IntentError, InvalidInput
from ramp.routing.strategy import Strategy, routing_strategy

# How long a quote without an expiry of its own is held.
DEFAULT_HOLD = timedelta(seconds=30)


def held(
    project_id: str,
    provider_code: str,
    rail: str,
    route: tuple[str, str],
    amounts: tuple[Decimal, Decimal],
    expires_at: datetime | None,
) -> HeldQuote:
    return HeldQuote(
        id=str(uuid.uuid4()),
        project_id=project_id,
        provider_code=provider_code,
        rail=rail,
        source_currency=route[0],
        destination_currency=route[1],
        source_amount=amounts[0],
        destination_amount=amounts[1],
        expires_at=expires_at or utcnow() + DEFAULT_HOLD,
    )


async def hold(
    db: async_sessionmaker[AsyncSession], project_id: str, quotes: Sequence[HeldQuote]
) -> Strategy:
    """Stores the quotes (purging the spent ones) and reads the project's strategy, in
    one session."""
    async with db() as session:
        strategy = await routing_strategy(session, project_id)
        if quotes:
            await session.exec(delete(HeldQuote).where(col(HeldQuote.expires_at) < utcnow()))
            session.add_all(quotes)
            await session.commit()
    return strategy


async def held_quote(session: AsyncSession, project_id: str, quote_id: str) -> HeldQuote:
    """The project's held quote, still valid: 400 when it never was one of its quotes,
    409 QUOTE_EXPIRED after its validity (holds are purged some time after)."""
    found = await session.get(HeldQuote, quote_id)
    if found is None or found.project_id != project_id:
        raise InvalidInput(
            IntentError.QUOTE_NOT_FOUND,
            "quoteId is not a live quote of this project (GET /v1/intent/quote)",
            {"fields": [{"pointer": "/quoteId", "reason": "is not a quote of the project"}]},
        )
    if found.expires_at <= utcnow():
        raise Conflict(
            IntentError.QUOTE_EXPIRED,
            "the quote expired: ask GET /v1/intent/quote for a new one",
            {"quoteId": quote_id},
        )
    return found
