"""The project's partner fee: its own cut of every ramp, in basis points of the source
amount, set by the project owner (`ramp project set-partner-fee`; the dashboard later)."""

from __future__ import annotations

from decimal import ROUND_DOWN, ROUND_UP, Decimal

from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.db.routing_tables import PartnerFee
from ramp.db.tables import Project
from ramp.db.types import utcnow
from ramp.errors import InvalidInput, NotFound, RequestError

# 10 %: above that a "fee" is a price, and a typo (1000 for 100) would be costly.
MAX_PARTNER_FEE_BPS = 1000


async def set_partner_fee(session: AsyncSession, project_id: str, bps: int) -> int:
    """Sets the project's fee (0 removes it); returns it."""
    if not 0 <= bps <= MAX_PARTNER_FEE_BPS:
        raise InvalidInput(
            RequestError.VALIDATION_ERROR,
            f"the partner fee is 0 to {MAX_PARTNER_FEE_BPS} basis points",
        )
    if await session.get(Project, project_id) is None:
        raise NotFound("project")
    row = await session.get(PartnerFee, project_id)
    if row is None:
        row = PartnerFee(project_id=project_id, bps=bps, updated_at=utcnow())
    row.bps = bps
    row.updated_at = utcnow()
    session.add(row)
    await session.commit()
    return bps


async def partner_fee_bps(session: AsyncSession, project_id: str) -> int:
    row = await session.get(PartnerFee, project_id)
    return 0 if row is None else row.bps


def partner_fee(amount: Decimal, bps: int, decimals: int) -> Decimal:
    """The fee on `amount`, rounded up to the currency's places (never a fraction of a
    minor unit, never less than the rate)."""
    return (amount * bps / 10_000).quantize(Decimal(1).scaleb(-decimals), ROUND_UP)


def after_partner_fee(
    destination_amount: Decimal, fee: Decimal, exchange_rate: Decimal, decimals: int
) -> Decimal:
    """What arrives once the partner fee (in the source currency) is also taken: the
    provider's destination amount less the fee at the quote's rate, rounded down."""
    arriving = destination_amount - fee * exchange_rate
    return arriving.quantize(Decimal(1).scaleb(-decimals), ROUND_DOWN)
