"""Intents as the API shows them: the projection's rows of an intent (its steps, its
transaction) with its two external accounts. Read here, for one intent or a page.

One intent is read in one statement (its rows joined): `GET /v1/intent/{id}`, the
call clients make most, costs one round trip to the database and needs no snapshot
(a single SELECT reads one). A page reads each kind of row once for all its intents.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from sqlalchemy import BindParameter, bindparam
from sqlalchemy.orm import aliased
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from sqlmodel.sql.expression import Select

from ramp.db.tables import ComplianceStepRow, ExternalAccount, IntentRow, TransactionRow
from ramp.errors import NotFound
from ramp.external_accounts.lookup import accounts_by_id


@dataclass(frozen=True)
class IntentView:
    """An intent as its projection rows, with its two external accounts."""

    intent: IntentRow
    steps: Sequence[ComplianceStepRow]
    transaction: TransactionRow | None
    source: ExternalAccount
    destination: ExternalAccount


# Built once: a statement's aliases and its cache key cost more to make than the
# statement costs to run (about 1 ms of CPU per read when built per call).
_SOURCE = aliased(ExternalAccount, name="source")
_DESTINATION = aliased(ExternalAccount, name="destination")
_CUSTOMER_ID: BindParameter[str] = bindparam("customer_id")
_ONE_VIEW = (
    # SQLModel's select() is typed for four entities at most: its class takes five.
    Select[IntentRow, ExternalAccount, ExternalAccount, TransactionRow, ComplianceStepRow](
        IntentRow, _SOURCE, _DESTINATION, TransactionRow, ComplianceStepRow
    )
    .join(
        _SOURCE,
        (col(_SOURCE.id) == IntentRow.src_account_id) & (col(_SOURCE.customer_id) == _CUSTOMER_ID),
    )
    .join(
        _DESTINATION,
        (col(_DESTINATION.id) == IntentRow.dest_account_id)
        & (col(_DESTINATION.customer_id) == _CUSTOMER_ID),
    )
    .outerjoin(TransactionRow, col(TransactionRow.intent_id) == IntentRow.id)
    .outerjoin(ComplianceStepRow, col(ComplianceStepRow.intent_id) == IntentRow.id)
    .where(col(IntentRow.id) == bindparam("intent_id"), col(IntentRow.customer_id) == _CUSTOMER_ID)
)


async def read_view(session: AsyncSession, customer_id: str, intent_id: str) -> IntentView:
    """One of the customer's intents (NotFound for another's: it does not exist, as far
    as this caller knows), in one statement: a row per compliance step (one without
    steps), each with the intent, its transaction (or none) and its accounts."""
    params = {"customer_id": customer_id, "intent_id": intent_id}
    rows = (await session.exec(_ONE_VIEW, params=params)).all()
    if not rows:
        raise NotFound("intent")
    intent, source, destination, transaction, _ = rows[0]
    steps = [step for *_, step in rows if step is not None]
    return IntentView(intent, steps, transaction, source, destination)


async def load_views(session: AsyncSession, intents: Sequence[IntentRow]) -> list[IntentView]:
    """Views of `intents` (one customer's, or a project's), with three queries whatever
    their number."""
    if not intents:
        return []
    ids = [intent.id for intent in intents]
    steps = (
        await session.exec(
            select(ComplianceStepRow).where(col(ComplianceStepRow.intent_id).in_(ids))
        )
    ).all()
    transactions = {
        row.intent_id: row
        for row in (
            await session.exec(select(TransactionRow).where(col(TransactionRow.intent_id).in_(ids)))
        ).all()
    }
    accounts = await owned_accounts(
        session,
        {intent.customer_id for intent in intents},
        {i.src_account_id for i in intents} | {i.dest_account_id for i in intents},
    )
    return [
        view_of(
            intent,
            [step for step in steps if step.intent_id == intent.id],
            transactions.get(intent.id),
            accounts,
        )
        for intent in intents
    ]


def view_of(
    intent: IntentRow,
    steps: Sequence[ComplianceStepRow],
    transaction: TransactionRow | None,
    accounts: Mapping[str, ExternalAccount],
) -> IntentView:
    return IntentView(
        intent,
        steps,
        transaction,
        accounts[intent.src_account_id],
        accounts[intent.dest_account_id],
    )


async def owned_accounts(
    session: AsyncSession, customer_ids: str | Iterable[str], ids: Iterable[str]
) -> dict[str, ExternalAccount]:
    return await accounts_by_id(session, ids, owners=customer_ids)
