"""`POST /v1/provider-webhooks/{providerAccountId}`: verify, store, answer; then relay.

Receiving stores first and signals after, so the provider gets its 2xx within its
deadline even when workers or Temporal are down: `receive` verifies the signature
(401 and a log line for a forged or stale request, nothing stored), maps the body to
provider-neutral events and stores each under the provider's event id (a replay is
found stored and ignored). `relay` then signals the intent workflows, found by the
transfer's provider reference or, for compliance, by the provider's customer; the API
relays right after answering and every worker relays what is still pending (a crash in
between loses nothing).
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import timedelta

from pydantic import TypeAdapter
from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.adapters.contract import (
    ProviderComplianceEvent,
    ProviderEvent,
    ProviderTransferEvent,
    WebhookRejected,
)
from ramp.adapters.registry import Connectors
from ramp.db.tables import IntentRow, ProviderCustomer, ProviderWebhookEvent, TransactionRow
from ramp.db.types import utcnow
from ramp.db.upsert import insert_missing
from ramp.errors import NotAuthenticated, NotFound
from ramp.intents.models import ProviderEvent as TransactionEvent
from ramp.intents.models import StepUpdate
from ramp.intents.provider_calls import provider_event_id
from ramp.intents.states import IntentStatus
from ramp.intents.workflow_client import IntentWorkflowClient, WorkflowEnded
from ramp.provider_accounts.service import provider_context
from ramp.security.encryption import SecretBox

log = logging.getLogger(__name__)

INVALID_WEBHOOK_SIGNATURE = "INVALID_WEBHOOK_SIGNATURE"
# A transfer event can arrive before the workflow recorded the transfer it names: kept
# pending and relayed again, for this long.
UNMATCHED_FOR = timedelta(days=1)
RELAY_BATCH = 100

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
            INVALID_WEBHOOK_SIGNATURE, "the webhook signature does not verify", "Signature"
        ) from None
    now = utcnow()
    rows = [
        ProviderWebhookEvent(
            id=str(uuid.uuid4()),
            provider_account_id=provider_account_id,
            provider_event_id=event.provider_event_id[:200],
            events_encrypted=secret_box.encrypt(_EVENT.dump_json(event).decode()),
            received_at=now,
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
) -> int:
    """Signals the workflows of the stored events not relayed yet; returns how many were
    relayed. An event whose intent cannot be found yet stays pending (for a while)."""
    async with db() as session:
        pending = (
            await session.exec(
                select(ProviderWebhookEvent)
                .where(col(ProviderWebhookEvent.applied_at).is_(None))
                .order_by(col(ProviderWebhookEvent.received_at))
                .limit(limit)
            )
        ).all()
    relayed = 0
    for row in pending:
        event = _EVENT.validate_json(secret_box.decrypt(row.events_encrypted))
        note: str | None
        try:
            done = await _signal(db, workflows, row.provider_account_id, event)
        except Exception as error:  # an outage: next round
            log.warning("provider event %s not relayed yet: %s", row.id, type(error).__name__)
            done, note = False, f"relay failed: {type(error).__name__}"
        else:
            note = None if done else "no intent found for it yet"
        async with db() as session:
            stored = await session.get(ProviderWebhookEvent, row.id)
            if stored is None:
                continue
            stored.attempts += 1
            stored.last_error = note
            if done or utcnow() - stored.received_at > UNMATCHED_FOR:
                stored.applied_at = utcnow()
                relayed += 1 if done else 0
            session.add(stored)
            await session.commit()
    return relayed


async def _signal(
    db: async_sessionmaker[AsyncSession],
    workflows: IntentWorkflowClient,
    provider_account_id: str,
    event: ProviderEvent,
) -> bool:
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
                    ),
                )
            except WorkflowEnded:
                return True  # a final intent: the projection holds its end
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
