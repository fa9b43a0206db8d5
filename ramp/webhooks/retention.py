"""The webhook log's retention: ended deliveries (with their attempts) and events older
than the retention period are deleted by the housekeeping workflow, in batches, each
committed, so a retry after a crash resumes where it stopped.

A delivery still on its way is kept whatever its age; an event is deleted once none of
its deliveries is left.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import delete, exists
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.db.tables import WebhookAttempt, WebhookDelivery, WebhookEventRow
from ramp.webhooks.models import FINAL_DELIVERY_STATUSES

BATCH = 1000


async def purge_deliveries(session: AsyncSession, cutoff: datetime) -> int:
    """Deletes up to BATCH ended deliveries created before `cutoff`, with their attempts;
    returns how many."""
    ids = (
        await session.exec(
            select(WebhookDelivery.id)
            .where(
                col(WebhookDelivery.created_at) < cutoff,
                col(WebhookDelivery.status).in_(FINAL_DELIVERY_STATUSES),
            )
            .limit(BATCH)
        )
    ).all()
    if not ids:
        return 0
    await session.exec(delete(WebhookAttempt).where(col(WebhookAttempt.delivery_id).in_(ids)))
    await session.exec(delete(WebhookDelivery).where(col(WebhookDelivery.id).in_(ids)))
    await session.commit()
    return len(ids)


async def purge_events(session: AsyncSession, cutoff: datetime) -> int:
    """Deletes up to BATCH events that occurred before `cutoff` and have no delivery
    left; returns how many."""
    ids = (
        await session.exec(
            select(WebhookEventRow.id)
            .where(
                col(WebhookEventRow.occurred_at) < cutoff,
                ~exists().where(col(WebhookDelivery.event_id) == WebhookEventRow.id),
            )
            .limit(BATCH)
        )
    ).all()
    if not ids:
        return 0
    await session.exec(delete(WebhookEventRow).where(col(WebhookEventRow.id).in_(ids)))
    await session.commit()
    return len(ids)
