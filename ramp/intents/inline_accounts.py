"""A one-call intent's accounts: the source/destination pair sent inline in `POST /intent`.

They are registered exactly as `POST /customers/external-accounts` registers a pair
(`register_account_pair`: the route's schemas, both accounts or neither), under ids
derived from the intent's Idempotency-Key. A retry with the key finds the pair it
registered and reuses it, so one key makes one pair and one intent; the same key with
other accounts is refused as any reused key is (422 IDEMPOTENCY_KEY_REUSED).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.db.tables import Customer, ExternalAccount
from ramp.external_accounts.lookup import accounts_by_id
from ramp.external_accounts.service import register_account_pair
from ramp.idempotency.store import key_reused

_ACCOUNT_IDS = uuid.UUID("b7d1f0c2-5a4e-4f3b-9c61-0e2d8a7b9f14")


@dataclass(frozen=True)
class InlineAccounts:
    """The pair as `POST /customers/external-accounts` takes it: the route's currency
    codes and each account's metadata."""

    src: str
    dest: str
    source: dict[str, Any]
    destination: dict[str, Any]


def inline_account_ids(customer_id: str, key: str) -> tuple[str, str]:
    """The ids of the source and destination accounts a customer's one-call intent with
    this Idempotency-Key registers."""
    return (
        str(uuid.uuid5(_ACCOUNT_IDS, f"{customer_id}:{key}:source")),
        str(uuid.uuid5(_ACCOUNT_IDS, f"{customer_id}:{key}:destination")),
    )


async def register_inline_accounts(
    session: AsyncSession, customer: Customer, accounts: InlineAccounts, key: str
) -> tuple[str, str]:
    """The ids of the pair: registered now, or found as an earlier call with this key
    registered it (the same accounts, or IDEMPOTENCY_KEY_REUSED)."""
    ids = inline_account_ids(customer.id, key)
    if await _registered(session, customer, accounts, ids):
        return ids
    try:
        await register_account_pair(
            session,
            customer,
            src=accounts.src,
            dest=accounts.dest,
            source=accounts.source,
            destination=accounts.destination,
            ids=ids,
        )
    except IntegrityError:
        # A concurrent call with the same key registered them first.
        await session.rollback()
        if not await _registered(session, customer, accounts, ids):
            raise
    return ids


async def _registered(
    session: AsyncSession, customer: Customer, accounts: InlineAccounts, ids: tuple[str, str]
) -> bool:
    """Whether the pair exists; refuses the key when it holds other accounts."""
    found = await accounts_by_id(session, ids, owners=customer.id)
    if not found:
        return False
    wanted = (
        (ids[0], accounts.src, accounts.source),
        (ids[1], accounts.dest, accounts.destination),
    )
    if all(_same(found.get(id_), code, metadata) for id_, code, metadata in wanted):
        return True
    raise key_reused()


def _same(account: ExternalAccount | None, currency_code: str, metadata: dict[str, Any]) -> bool:
    return (
        account is not None
        and account.currency_code == currency_code
        and account.account_metadata == metadata
    )
