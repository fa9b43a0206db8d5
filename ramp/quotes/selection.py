"""The prices `BEST_PRICE` routing ranks by (issue 26): each eligible provider's best
net destination amount for one payment, asked the way `GET /v1/intent/quote` asks (the
same quoters, budget and partner fee), and the held quote a payment names."""

from __future__ import annotations

from decimal import Decimal

from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.adapters.registry import Connectors
from ramp.catalog import Rail
from ramp.config import Environment
from ramp.db.tables import Project
from ramp.money import format_amount
from ramp.quotes.accounts import sandbox_quoters
from ramp.quotes.service import QuoteQuery, project_quotes
from ramp.security.encryption import SecretBox


async def provider_nets(
    db: async_sessionmaker[AsyncSession],
    project_id: str,
    route: tuple[str, str],
    amount: Decimal,
    bank: tuple[Rail | None, str | None],
    *,
    connectors: Connectors,
    secret_box: SecretBox | None,
) -> dict[str, Decimal]:
    """The largest net destination amount each provider quotes for the payment (by
    provider code); a provider whose quote failed is missing."""
    async with db() as session:
        project = await session.get(Project, project_id)
    if project is None or (project.environment == Environment.PRODUCTION and secret_box is None):
        return {}
    rail, country = bank
    found = await project_quotes(
        db,
        project,
        QuoteQuery(
            source_currency=route[0],
            destination_currency=route[1],
            amount=format_amount(amount),
            country_code=country,
            rails=(rail,) if rail is not None else (),
        ),
        sandbox_quoters=sandbox_quoters(connectors),
        secret_box=secret_box,
        connectors=connectors,
        routed=False,
    )
    nets: dict[str, Decimal] = {}
    for quote in found.quotes:
        code = quote.provider.code
        nets[code] = max(nets.get(code, quote.destination_amount), quote.destination_amount)
    return nets
