"""Money no intent matches, reported (issue 27): a `DEPOSIT_UNMATCHED` event with a null
`intentId`, stored in the events store and delivered like every event.

A provider event is money when it says a deposit arrived (`DEPOSIT_RECEIVED`, and not
`FAILED`: a payment the provider refused is returned by it) towards us (`incoming`: not
Monerium's redeem order, which pays out). The relay
(ramp/provider_webhooks/service.py) first looks for its intent: by our reference, then,
for a payment without one (`DepositMatch`), by customer, amount and payer. When none
takes it, the relay reports it here:

- a payment with a `DepositMatch` (Monerium's issue orders) once `UNREFERENCED_GRACE`
  has passed since it was received: no reference of ours can arrive later, and the
  grace covers an on-ramp whose transfer is being recorded as the payment lands;
- any other deposit (a Bridge transfer no intent of ours has) when the relay gives it
  up (`UNMATCHED_FOR`, a day): until then its intent may still record the transfer.

One event per payment, whatever the number of notifications about it (Monerium sends
`order.created` then `order.updated`, and redelivers them): its id derives from the
provider account and the provider's id of the payment, so a second report stores
nothing. The event names what is known: the amount and currency the provider states,
our customer when the provider's customer is one of ours at that account, and the
provider account; an operator refunds or settles it by hand (the dashboard's
"Unmatched money" page lists them).

Money for an intent whose workflow has closed before any deposit (it expired, was
cancelled or failed) reaches no workflow to report it: the relay reports it here too,
naming that intent and its transaction. Once a transaction took a deposit, or its
intent reported unmatched money already, a payment naming it is not reported: the
workflow's event ids derive from our reference, so a second payment cannot be told
from a redelivery of the first.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.adapters.contract import ProviderTransferEvent
from ramp.db.tables import (
    IntentRow,
    ProviderAccount,
    ProviderCustomer,
    TransactionEventRow,
    WebhookEventRow,
)
from ramp.intents.events import DepositUnmatched, WebhookEvent, WebhookEventType
from ramp.intents.states import ProviderEventType
from ramp.webhooks.models import DeliveryPolicy
from ramp.webhooks.outbox import WebhookOutbox

# How long a payment without our reference may wait for an intent to take it.
UNREFERENCED_GRACE = timedelta(minutes=10)

_NAMESPACE = uuid.UUID("3c9e2f4a-7b1d-5e60-8a2f-1d4c6b8e9f07")

NO_INTENT_REASON = (
    "Money reached the provider account that no intent matches: it quotes none of our "
    "references (or one no transfer has), and no single open on-ramp of that customer "
    "is for that amount from that account. Refund it, or settle it by hand"
)


ENDED_INTENT_REASON = (
    "Money reached the provider account for an intent that had already ended ({status}) "
    "and so cannot take it. Refund it, or settle it by hand"
)


@dataclass(frozen=True)
class EndedIntent:
    """The intent (and transaction) a provider event names, whose workflow has closed."""

    intent_id: str
    transaction_id: str


def is_money(event: ProviderTransferEvent) -> bool:
    """Money received for someone: a deposit, not an order paying out, not refused."""
    return (
        event.incoming
        and ProviderEventType.DEPOSIT_RECEIVED in event.events
        and ProviderEventType.FAILED not in event.events
    )


def due_for_report(
    event: ProviderTransferEvent, received_at: datetime, now: datetime, *, given_up: bool
) -> bool:
    """Whether money no intent took is to be reported now."""
    if not is_money(event):
        return False
    return given_up or (event.match is not None and now - received_at >= UNREFERENCED_GRACE)


def payment_reference(event: ProviderTransferEvent) -> str:
    """The provider's id of the payment: what an operator quotes, and the event's key."""
    if event.match is not None and event.match.payment_reference:
        return event.match.payment_reference
    return event.provider_reference


def unmatched_event_id(provider_account_id: str, reference: str) -> str:
    return str(uuid.uuid5(_NAMESPACE, f"{provider_account_id}/{reference}"))


async def money_already_settled(db: async_sessionmaker[AsyncSession], ended: EndedIntent) -> bool:
    """Whether the ended intent's transaction took a deposit, or the intent already
    reported unmatched money (its workflow did, while it ran). Either way a payment
    naming it is not reported again: the workflow's event ids derive from our reference,
    so a second payment cannot be told from a redelivery of the first."""
    async with db() as session:
        deposit = await session.exec(
            select(TransactionEventRow.id).where(
                TransactionEventRow.transaction_id == ended.transaction_id,
                TransactionEventRow.type == ProviderEventType.DEPOSIT_RECEIVED.value,
            )
        )
        if deposit.first() is not None:
            return True
        reported = await session.exec(
            select(WebhookEventRow.id).where(
                WebhookEventRow.intent_id == ended.intent_id,
                WebhookEventRow.event_type == WebhookEventType.DEPOSIT_UNMATCHED.value,
            )
        )
        return reported.first() is not None


async def report_unmatched(
    db: async_sessionmaker[AsyncSession],
    provider_account_id: str,
    event: ProviderTransferEvent,
    received_at: datetime,
    outbox: WebhookOutbox | None = None,
    *,
    ended: EndedIntent | None = None,
) -> None:
    """Stores the event (and its deliveries) once per payment; a repeat stores nothing.
    `ended`: the closed intent the payment names (else no intent matched it)."""
    outbox = outbox or WebhookOutbox(DeliveryPolicy())
    reference = payment_reference(event)
    async with db() as session:
        account = await session.get(ProviderAccount, provider_account_id)
        if account is None:
            return  # the account was removed: nobody to tell
        customer_id = None
        reason = NO_INTENT_REASON
        if ended is not None:
            intent = await session.get(IntentRow, ended.intent_id)
            customer_id = intent.customer_id if intent is not None else None
            status = intent.status if intent is not None else "ended"
            reason = ENDED_INTENT_REASON.format(status=status)
        elif event.match is not None:
            customer_id = (
                await session.exec(
                    select(ProviderCustomer.customer_id).where(
                        ProviderCustomer.provider_account_id == provider_account_id,
                        ProviderCustomer.provider_customer_id == event.match.provider_customer_id,
                    )
                )
            ).first()
        amount = event.match.amount if event.match is not None else event.received_amount
        currency = event.match.currency if event.match is not None else event.received_currency
        report = WebhookEvent(
            event_id=unmatched_event_id(provider_account_id, reference),
            event_type=WebhookEventType.DEPOSIT_UNMATCHED,
            timestamp=event.occurred_at or received_at,
            project_id=account.project_id,
            data=DepositUnmatched(
                intent_id=ended.intent_id if ended else None,
                customer_id=customer_id,
                transaction_id=ended.transaction_id if ended else None,
                provider_reference=reference,
                unmatched_reason=reason,
                amount=amount,
                currency=currency.upper() if currency else None,
                provider_account_id=provider_account_id,
            ),
        )
        outbound = await outbox.enqueue(session, [report])
        await session.commit()
    await outbox.dispatch(outbound)
