"""Webhook activities: handing over the deliveries of the previous design's workflows,
and the webhook log's retention. The outbox that `record_intent` stores events with
is application code, in ramp/webhooks/outbox.py."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta

from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession
from temporalio import activity

from ramp.config import DEFAULT_EVENT_RETENTION_DAYS, DEFAULT_WEBHOOK_RETENTION_DAYS
from ramp.db.engine import begin_write
from ramp.db.tables import WebhookDelivery
from ramp.db.types import utcnow
from ramp.housekeeping import WebhookLogPurge, WebhookLogPurgeResult
from ramp.webhooks import retention as retention_batches
from ramp.webhooks.models import (
    FINAL_DELIVERY_STATUSES,
    AttemptOutcome,
    DeliveryAttempt,
    DeliveryStatus,
)


def _nobody() -> None:
    """No dispatcher in this process: the dispatchers' poll finds the deliveries."""


_MISSING_ROW_RETRIES = 5


class WebhookActivities:
    """`attempt_delivery` of the delivery workflows started before the dispatcher, and
    the webhook log's retention (the housekeeping workflow's third task)."""

    def __init__(
        self,
        db: async_sessionmaker[AsyncSession],
        wake: Callable[[], None] = _nobody,
        retention: timedelta = timedelta(days=DEFAULT_WEBHOOK_RETENTION_DAYS),
        event_retention: timedelta = timedelta(days=DEFAULT_EVENT_RETENTION_DAYS),
    ) -> None:
        self._db = db
        self._wake = wake
        self._retention = retention
        self._event_retention = event_retention

    @activity.defn
    async def purge_webhook_log(self, request: WebhookLogPurge) -> WebhookLogPurgeResult:
        """Ended deliveries and events past their retention periods (the request's for
        both, else the worker's RAMP_WEBHOOK_RETENTION_DAYS and RAMP_EVENT_RETENTION_DAYS);
        an event goes only once none of its deliveries is left."""
        now = utcnow()
        if request.retention_seconds is None:
            cutoff, events_cutoff = now - self._retention, now - self._event_retention
        else:
            cutoff = events_cutoff = now - timedelta(seconds=request.retention_seconds)
        deliveries = await self._purged(retention_batches.purge_deliveries, cutoff)
        events = await self._purged(retention_batches.purge_events, events_cutoff)
        return WebhookLogPurgeResult(deliveries=deliveries, events=events)

    async def _purged(
        self, purge: Callable[[AsyncSession, datetime], Awaitable[int]], cutoff: datetime
    ) -> int:
        total = 0
        while True:
            async with self._db() as session:
                count = await purge(session, cutoff)
            total += count
            activity.heartbeat(total)
            if count == 0:
                return total

    @activity.defn
    async def attempt_delivery(self, attempt: DeliveryAttempt) -> AttemptOutcome:
        """Hands the delivery to the dispatchers (due now, unless it is due already or
        final) and ends its workflow: the workflow goes on only on RETRYING, which this
        never returns. A PENDING result means handed over."""
        async with self._db() as session:
            await begin_write(session)
            delivery = (
                await session.exec(
                    select(WebhookDelivery)
                    .where(WebhookDelivery.id == attempt.delivery_id)
                    .with_for_update()
                )
            ).first()
            if delivery is None:
                if activity.info().attempt < _MISSING_ROW_RETRIES:
                    # A redelivery's workflow was started just before its row was committed.
                    raise LookupError(f"delivery {attempt.delivery_id} is not stored (yet)")
                activity.logger.warning("delivery %s does not exist", attempt.delivery_id)
                return AttemptOutcome(
                    delivery_id=attempt.delivery_id, status=DeliveryStatus.CANCELLED
                )
            status = DeliveryStatus(delivery.status)
            if status in FINAL_DELIVERY_STATUSES:
                return AttemptOutcome(
                    delivery_id=delivery.id,
                    status=status,
                    status_code=delivery.last_status_code,
                )
            if delivery.due_at is None:
                delivery.due_at = utcnow()
                session.add(delivery)
                await session.commit()
                self._wake()
        return AttemptOutcome(delivery_id=attempt.delivery_id, status=DeliveryStatus.PENDING)
