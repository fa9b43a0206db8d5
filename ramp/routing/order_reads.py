"""What placing an order reads, in one statement: its two external accounts, the
project's partner fee (for the receipt) and, for a sandbox mock, how the project set
that provider account to behave (ramp/routing/behaviour.py).

One statement instead of three (each in a session of its own before) because it runs
in every intent, where each round trip to the database costs the worker about half a
millisecond of CPU (docs/performance.md, "Fewer round trips"). Nothing read here is
kept past the activity: the accounts' details are decrypted per order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import String, literal
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.adapters.sandbox.behaviour import Behaviour
from ramp.db.routing_tables import PartnerFee, SandboxProviderBehaviour
from ramp.db.tables import ExternalAccount
from ramp.db.types import utcnow
from ramp.routing.behaviour import live_mode


@dataclass(frozen=True)
class OrderReads:
    # By id; a missing id is absent (external accounts are never deleted: an intent's stay).
    accounts: dict[str, ExternalAccount]
    # The source account's project's fee, in basis points (0: none).
    partner_fee_bps: int
    # How the provider account behaves now (UP: as it is; always UP when not asked).
    behaviour: Behaviour


async def order_reads(
    session: AsyncSession, account_ids: Sequence[str], provider_account_id: str | None = None
) -> OrderReads:
    """The accounts of `account_ids` (the source first) with their projects' partner fee
    and, when `provider_account_id` is given, that provider account's sandbox behaviour:
    LEFT JOINs, so no fee row is 0 and no behaviour row is UP."""
    # Not asked (None): `= NULL` matches no row, and the behaviour reads UP.
    behaviour_of = literal(provider_account_id, String)
    rows = (
        await session.exec(
            select(
                ExternalAccount,
                PartnerFee.bps,
                SandboxProviderBehaviour.mode,
                SandboxProviderBehaviour.until,
            )
            .select_from(ExternalAccount)
            .outerjoin(PartnerFee, col(PartnerFee.project_id) == ExternalAccount.project_id)
            .outerjoin(
                SandboxProviderBehaviour,
                col(SandboxProviderBehaviour.provider_account_id) == behaviour_of,
            )
            .where(col(ExternalAccount.id).in_(list(account_ids)))
        )
    ).all()
    accounts = {account.id: account for account, *_ in rows}
    fees = {account.id: bps for account, bps, *_ in rows}
    mode, until = (rows[0][2], rows[0][3]) if rows else (None, None)
    return OrderReads(
        accounts=accounts,
        partner_fee_bps=fees.get(account_ids[0]) or 0,
        behaviour=live_mode(mode, until, utcnow()),
    )
