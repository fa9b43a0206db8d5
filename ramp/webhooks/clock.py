"""A sandbox intent's clock moved forward, as its webhook deliveries see it: each of its
deliveries still waiting for an attempt becomes due `seconds` sooner (due now at the
latest), so a tester sees the retry schedule run without waiting for it. A delivery
under way (leased to a dispatcher) is left to its attempt.
"""

from __future__ import annotations

from datetime import timedelta

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.db.tables import WebhookDelivery
from ramp.db.types import utcnow
from ramp.webhooks.models import DeliveryStatus

_WAITING = (DeliveryStatus.PENDING.value, DeliveryStatus.RETRYING.value)


async def advance_deliveries(
    session: AsyncSession, project_id: str, intent_id: str, seconds: float
) -> int:
    """Brings the intent's waiting deliveries `seconds` forward (caller commits);
    returns how many moved."""
    rows = (
        await session.exec(
            select(WebhookDelivery)
            .where(
                WebhookDelivery.project_id == project_id,
                WebhookDelivery.intent_id == intent_id,
                col(WebhookDelivery.status).in_(_WAITING),
                col(WebhookDelivery.due_at).is_not(None),
                col(WebhookDelivery.lease_token).is_(None),
            )
            .with_for_update()
        )
    ).all()
    now = utcnow()
    shift = timedelta(seconds=seconds)
    for row in rows:
        assert row.due_at is not None
        row.due_at = max(row.due_at - shift, now)
        if row.next_attempt_at is not None:
            row.next_attempt_at = max(row.next_attempt_at - shift, now)
        row.updated_at = now
        session.add(row)
    return len(rows)
