"""The backlogs operators watch, sampled from the database every few seconds by each
worker and dispatcher that serves metrics: webhook deliveries due and not yet attempted
(and how long the oldest has waited), provider events not yet relayed to their intents,
and the health of the projects' provider accounts. The first two read indexed columns
(`due_at`, `applied_at`); the accounts are few."""

from __future__ import annotations

import asyncio
import contextlib
import logging

from sqlalchemy import func
from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.db.tables import ProviderAccount, ProviderWebhookEvent, WebhookDelivery
from ramp.db.types import utcnow
from ramp.observability import metrics

SAMPLE_SECONDS = 10.0
logger = logging.getLogger(__name__)


async def sample_backlogs(db: async_sessionmaker[AsyncSession]) -> None:
    now = utcnow()
    async with db() as session:
        due, oldest = (
            await session.exec(
                select(func.count(), func.min(col(WebhookDelivery.due_at))).where(
                    col(WebhookDelivery.due_at) <= now
                )
            )
        ).one()
        unrelayed = (
            await session.exec(
                select(func.count()).where(col(ProviderWebhookEvent.applied_at).is_(None))
            )
        ).one()
        accounts = (
            await session.exec(
                select(
                    ProviderAccount.provider_code, ProviderAccount.status, func.count()
                ).group_by(col(ProviderAccount.provider_code), col(ProviderAccount.status))
            )
        ).all()
    metrics.WEBHOOK_OUTBOX_DUE.set(due)
    metrics.WEBHOOK_OUTBOX_OLDEST_DUE_AGE.set(
        0.0 if oldest is None else max((now - oldest).total_seconds(), 0.0)
    )
    metrics.PROVIDER_EVENT_RELAY_BACKLOG.set(unrelayed)
    metrics.PROVIDER_ACCOUNTS.clear()  # a provider no account uses any more leaves
    for provider, status, count in accounts:
        metrics.PROVIDER_ACCOUNTS.labels(provider, status).set(count)


async def sample_backlogs_until(
    db: async_sessionmaker[AsyncSession], stop: asyncio.Event, every: float = SAMPLE_SECONDS
) -> None:
    while not stop.is_set():
        try:
            await sample_backlogs(db)
        except Exception as error:  # the database away: the next round
            logger.warning("sampling the backlogs failed: %s", type(error).__name__)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), timeout=every)
