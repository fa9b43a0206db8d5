"""Money without our reference, matched otherwise (issue 27).

A payer may leave out the reference we gave (Monerium: any SEPA payment to the
customer's IBAN mints, whatever its memo). The provider's event then names no
transfer of ours, and carries a `DepositMatch` instead: the provider's customer, the
amount and the payer's IBAN. It belongs to the one open on-ramp of that customer at
that provider account for that amount, paid from that IBAN (the source account the
customer registered); with none, or more than one, it stays unmatched (kept pending by
the relay, then dropped: docs/providers.md).
"""

from __future__ import annotations

from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.adapters.contract import DepositMatch
from ramp.catalog import MovementType
from ramp.db.tables import IntentRow, ProviderCustomer, TransactionRow
from ramp.external_accounts.lookup import accounts_by_id
from ramp.intents.states import TERMINAL_INTENT_STATUSES


def _iban(metadata: object) -> str | None:
    identifier = metadata.get("accountIdentifier") if isinstance(metadata, dict) else None
    iban = identifier.get("iban") if isinstance(identifier, dict) else None
    return str(iban).replace(" ", "").upper() if iban else None


async def unreferenced_intent(
    db: async_sessionmaker[AsyncSession], provider_account_id: str, match: DepositMatch
) -> tuple[str, str] | None:
    """(intent id, transaction id) of the one open on-ramp the money matches, or None."""
    async with db() as session:
        candidates = (
            await session.exec(
                select(IntentRow, TransactionRow.id)
                .join(TransactionRow, col(TransactionRow.intent_id) == IntentRow.id)
                .join(
                    ProviderCustomer,
                    (col(ProviderCustomer.customer_id) == IntentRow.customer_id)
                    & (col(ProviderCustomer.provider_account_id) == IntentRow.provider_account_id),
                )
                .where(
                    IntentRow.provider_account_id == provider_account_id,
                    IntentRow.movement_type == MovementType.ONRAMP.value,
                    ProviderCustomer.provider_customer_id == match.provider_customer_id,
                    col(IntentRow.status).not_in([s.value for s in TERMINAL_INTENT_STATUSES]),
                )
            )
        ).all()
        same = [(i, t) for i, t in candidates if i.amount == match.amount]
        if match.payer_iban is not None and same:
            accounts = await accounts_by_id(session, [i.src_account_id for i, _ in same])
            same = [
                (i, t)
                for i, t in same
                if i.src_account_id in accounts
                and _iban(accounts[i.src_account_id].account_metadata) == match.payer_iban
            ]
    if len(same) != 1:
        return None
    intent, transaction_id = same[0]
    return intent.id, transaction_id
