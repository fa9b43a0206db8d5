"""`POST /v1/provider-webhooks/{providerAccountId}`: verify, store, answer; then relay.

Receiving stores first and signals after, so the provider gets its 2xx within its
deadline even when workers or Temporal are down: `receive` verifies the signature
(401 and a log line for a forged or stale request, nothing stored), maps the body to
provider-neutral events and stores each under the provider's event id (a replay is
found stored and ignored). `relay` then signals the intent workflows, found by the
transfer's provider reference or, for compliance, by the provider's customer; the API
relays right after answering and every worker relays what is still pending (a crash in
between loses nothing).

A relay claims what it signals, as the webhook dispatchers claim deliveries
(ramp/webhooks/ledger.py): in one write transaction it takes the due events, oldest
due first (`FOR UPDATE SKIP LOCKED` on PostgreSQL, SQLite's write lock there), and
pushes their `due_at` past a lease under its own `lease_token`; relays in other
processes skip them. A relay that dies mid-way leaves them leased; once the lease lapses
any relay takes them again (at least once: the workflow deduplicates provider events).
An event no intent matches yet is due again later, on a backoff, behind the events that
arrived since: a backlog of unmatched events never holds up a matched one. Money no
intent takes is reported as unmatched money (`DEPOSIT_UNMATCHED` with a null
`intentId`, ramp/provider_webhooks/unmatched.py): a payment without our reference after
a grace of minutes, any other deposit when it is given up after a day.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from pydantic import TypeAdapter
from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel import col, select, update
from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.adapters.contract import (
    ProviderComplianceEvent,
    ProviderEvent,
    ProviderTransferEvent,
    WebhookRejected,
)
from ramp.adapters.registry import Connectors
from ramp.db.engine import begin_write
from ramp.db.tables import IntentRow, ProviderCustomer, ProviderWebhookEvent, TransactionRow
from ramp.db.types import utcnow
from ramp.db.upsert import insert_missing
from ramp.errors import NotAuthenticated, NotFound, ProviderWebhookError
from ramp.intents.models import ProviderEvent as TransactionEvent
from ramp.intents.models import StepUpdate
from ramp.intents.provider_calls import provider_event_id
from ramp.intents.states import IntentStatus, ProviderEventType
from ramp.intents.workflow_client import IntentWorkflowClient, WorkflowEnded
from ramp.provider_accounts.service import provider_context
from ramp.provider_webhooks.matching import unreferenced_intent
from ramp.provider_webhooks.unmatched import (
    EndedIntent,
    due_for_report,
    is_money,
    money_already_settled,
    report_unmatched,
)
from ramp.security.encryption import SecretBox

log = logging.getLogger(__name__)

# A transfer event can arrive before the workflow recorded the transfer it names: kept
# pending and relayed again, for this long.
UNMATCHED_FOR = timedelta(days=1)
RELAY_BATCH = 100
# A claim lasts this long: time to signal a batch (each signal a round trip to Temporal).
RELAY_LEASE = timedelta(minutes=2)
# An event no intent matches yet is due again after 5 s, doubling up to 5 minutes.
RETRY_FIRST = timedelta(seconds=5)
RETRY_MAX = timedelta(minutes=5)

_EVENT = TypeAdapter(ProviderEvent)


@dataclass(frozen=True)
class Received:
    stored: int  # new events
    duplicates: int  # already stored (a replay of the provider)


async def receive(
    session: AsyncSession,
    *,
    provider_account_id: str,
    headers: Mapping[str, str],
    body: bytes,
    secret_box: SecretBox,
    connectors: Connectors | None = None,
) -> Received:
    try:
        _, connector, ctx = await provider_context(
            session,
            provider_account_id=provider_account_id,
            secret_box=secret_box,
            connectors=connectors,
        )
    except NotFound:
        raise NotFound("provider account") from None
    try:
        events = connector.parse_webhook(ctx, headers, body)
    except WebhookRejected as rejected:
        # Logged without the body or headers: they may carry personal data.
        log.warning("provider webhook refused for %s: %s", provider_account_id, rejected)
        raise NotAuthenticated(
            ProviderWebhookError.INVALID_WEBHOOK_SIGNATURE,
            "the webhook signature does not verify",
            "Signature",
        ) from None
    now = utcnow()
    rows = [
        ProviderWebhookEvent(
            id=str(uuid.uuid4()),
            provider_account_id=provider_account_id,
            provider_event_id=event.provider_event_id[:200],
            events_encrypted=secret_box.encrypt(_EVENT.dump_json(event).decode()),
            received_at=now,
            due_at=now,
        )
        for event in events
    ]
    ids = [row.provider_event_id for row in rows]
    known = set(
        (
            await session.exec(
                select(ProviderWebhookEvent.provider_event_id).where(
                    ProviderWebhookEvent.provider_account_id == provider_account_id,
                    col(ProviderWebhookEvent.provider_event_id).in_(ids),
                )
            )
        ).all()
    )
    await insert_missing(session, rows, ["provider_account_id", "provider_event_id"])
    await session.commit()
    fresh = len({i for i in ids if i not in known})
    return Received(stored=fresh, duplicates=len(ids) - fresh)


async def relay(
    db: async_sessionmaker[AsyncSession],
    workflows: IntentWorkflowClient,
    secret_box: SecretBox,
    *,
    limit: int = RELAY_BATCH,
    clock: Callable[[], datetime] = utcnow,
) -> int:
    """Signals the workflows of the due events this relay claims; returns how many were
    relayed. An event whose intent cannot be found yet stays pending (for a while)."""
    claimed, token = await _claim(db, limit, clock())
    relayed = 0
    for row in claimed:
        event = _EVENT.validate_json(secret_box.decrypt(row.events_encrypted))
        note: str | None
        try:
            done = await _signal(db, workflows, row.provider_account_id, event)
            if isinstance(done, EndedIntent):
                # Its intent has ended: money it never took is reported, then done.
                assert isinstance(event, ProviderTransferEvent)
                if is_money(event) and not await money_already_settled(db, done):
                    await report_unmatched(
                        db, row.provider_account_id, event, row.received_at, ended=done
                    )
                done = True
        except Exception as error:  # an outage: next round
            log.warning("provider event %s not relayed yet: %s", row.id, type(error).__name__)
            done, note = False, f"relay failed: {type(error).__name__}"
            failed = True
        else:
            note = None if done else "no intent found for it yet"
            failed = False
        now = clock()
        given_up = not done and now - row.received_at > UNMATCHED_FOR
        if (
            not done
            and not failed
            and isinstance(event, ProviderTransferEvent)
            and due_for_report(event, row.received_at, now, given_up=given_up)
        ):
            # Money no intent takes: reported as such (once per payment), then done.
            try:
                await report_unmatched(db, row.provider_account_id, event, row.received_at)
            except Exception as error:  # the database away: next round, even past a day
                log.warning("unmatched money %s not reported yet: %s", row.id,
                            type(error).__name__)  # fmt: skip
                note, given_up = f"report failed: {type(error).__name__}", False
            else:
                note, given_up = "no intent matches it: reported as unmatched money", True
        attempts = row.attempts + 1
        async with db() as session:
            # Moved on only under this relay's claim: a lapsed lease is another's now.
            await session.exec(
                update(ProviderWebhookEvent)
                .where(
                    col(ProviderWebhookEvent.id) == row.id,
                    col(ProviderWebhookEvent.lease_token) == token,
                )
                .values(
                    attempts=attempts,
                    last_error=note,
                    lease_token=None,
                    applied_at=now if done or given_up else None,
                    due_at=None if done or given_up else now + _retry_in(attempts),
                )
            )
            await session.commit()
        relayed += 1 if done else 0
    return relayed


def _received(event: ProviderTransferEvent, event_type: ProviderEventType) -> dict[str, Any]:
    """The amount received, on the deposit's event only (the workflow compares it)."""
    if event_type is not ProviderEventType.DEPOSIT_RECEIVED or event.received_amount is None:
        return {}
    return {"received_amount": event.received_amount, "received_currency": event.received_currency}


def _retry_in(attempts: int) -> timedelta:
    """When an event no intent matches is due again: 5 s doubling, at most 5 minutes."""
    doublings = min(max(attempts - 1, 0), 10)  # past the cap anyway; no overflow
    return min(RETRY_FIRST * (1 << doublings), RETRY_MAX)


async def _claim(
    db: async_sessionmaker[AsyncSession], limit: int, now: datetime
) -> tuple[list[ProviderWebhookEvent], str]:
    token = str(uuid.uuid4())
    async with db() as session:
        # A read first: most rounds find nothing due, and SQLite's write lock is the
        # whole database's (every worker relays every 5 s).
        due = await session.exec(
            select(ProviderWebhookEvent.id).where(col(ProviderWebhookEvent.due_at) <= now).limit(1)
        )
        if due.first() is None:
            return [], token
    async with db() as session:
        await begin_write(session)
        rows = (
            await session.exec(
                select(ProviderWebhookEvent)
                .where(col(ProviderWebhookEvent.due_at) <= now)
                .order_by(col(ProviderWebhookEvent.due_at))
                .limit(limit)
                .with_for_update(skip_locked=True)
            )
        ).all()
        if not rows:
            await session.rollback()
            return [], token
        await session.exec(
            update(ProviderWebhookEvent)
            .where(col(ProviderWebhookEvent.id).in_([row.id for row in rows]))
            .values(due_at=now + RELAY_LEASE, lease_token=token)
        )
        await session.commit()
    return list(rows), token


async def _signal(
    db: async_sessionmaker[AsyncSession],
    workflows: IntentWorkflowClient,
    provider_account_id: str,
    event: ProviderEvent,
) -> bool | EndedIntent:
    """True once the event's workflow has it (or it needs none), False while no intent
    is found for it, the intent when the event names one whose workflow has closed."""
    if isinstance(event, ProviderTransferEvent):
        async with db() as session:
            found = (
                await session.exec(
                    select(TransactionRow.intent_id, TransactionRow.id)
                    .join(IntentRow, col(IntentRow.id) == TransactionRow.intent_id)
                    .where(
                        TransactionRow.provider_reference == event.provider_reference,
                        IntentRow.provider_account_id == provider_account_id,
                    )
                )
            ).first()
        if found is None and event.match is not None:
            # Money without our reference: its customer, amount and payer decide.
            found = await unreferenced_intent(db, provider_account_id, event.match)
        if found is None:
            return False
        intent_id, transaction_id = found
        for event_type in event.events:
            try:
                await workflows.report_provider_event(
                    intent_id,
                    TransactionEvent(
                        event_id=provider_event_id(event.provider_reference, event_type),
                        transaction_id=transaction_id,
                        type=event_type,
                        reason=event.reason,
                        **_received(event, event_type),
                    ),
                )
            except WorkflowEnded:
                # A final intent: the projection holds its end; money it did not take
                # is the relay's to report.
                return EndedIntent(intent_id, transaction_id)
        return True
    assert isinstance(event, ProviderComplianceEvent)
    if event.outcome is None:
        return True  # nothing decided: nothing to tell
    async with db() as session:
        intents = (
            await session.exec(
                select(IntentRow.id)
                .join(ProviderCustomer, col(ProviderCustomer.customer_id) == IntentRow.customer_id)
                .where(
                    ProviderCustomer.provider_account_id == provider_account_id,
                    ProviderCustomer.provider_customer_id == event.provider_customer_id,
                    IntentRow.provider_account_id == provider_account_id,
                    IntentRow.status == IntentStatus.PENDING.value,
                )
            )
        ).all()
    for intent_id in intents:
        try:
            await workflows.update_step(
                intent_id,
                StepUpdate(step_code=event.requirement, outcome=event.outcome, reason=event.reason),
            )
        except WorkflowEnded:
            continue
    return True
