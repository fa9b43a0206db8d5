"""Webhook activities: storing events for delivery, and handing over the deliveries of
the previous design's workflows.

`WebhookOutbox` is used by `record_intent`: it stores an intent's events with one
delivery per subscribed endpoint in the same database transaction as the projection
write (leased to the process's dispatcher when it has room, else due now), then hands
them to the dispatcher (ramp/webhooks/dispatcher.py). Ids are derived from the event
and the endpoint, so a retried write stores nothing twice.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from temporalio import activity

from ramp.config import DEFAULT_WEBHOOK_RETENTION_DAYS
from ramp.db.engine import begin_write
from ramp.db.tables import Project, WebhookDelivery, WebhookEndpoint, WebhookEventRow
from ramp.db.types import utcnow
from ramp.db.upsert import insert_missing_values
from ramp.housekeeping import WebhookLogPurge, WebhookLogPurgeResult
from ramp.intents.events import WebhookEvent
from ramp.webhooks import retention as retention_batches
from ramp.webhooks.dispatcher import DeliveryDispatcher
from ramp.webhooks.keys import project_keys, with_keys
from ramp.webhooks.ledger import Claimed, retry_in
from ramp.webhooks.models import (
    FINAL_DELIVERY_STATUSES,
    AttemptOutcome,
    DeliveryAttempt,
    DeliveryPolicy,
    DeliveryStatus,
)
from ramp.webhooks.sending import Outgoing

_DELIVERY_NAMESPACE = uuid.UUID("0b7f6a52-9a0e-5d3c-8f61-4c2e9d7b1a38")


def delivery_id(event_id: str, endpoint_id: str) -> str:
    return str(uuid.uuid5(_DELIVERY_NAMESPACE, f"{event_id}/{endpoint_id}"))


def _nobody() -> None:
    """No dispatcher in this process: the dispatchers' poll finds the deliveries."""


class Outbound(list[str]):
    """The ids of the deliveries stored; `claims`, those leased to this process's
    dispatcher (its to attempt once they are committed)."""

    def __init__(self, ids: Sequence[str] = (), claims: Sequence[Claimed] = ()) -> None:
        super().__init__(ids)
        self.claims = list(claims)


class WebhookOutbox:
    def __init__(
        self, policy: DeliveryPolicy, dispatcher: DeliveryDispatcher | None = None
    ) -> None:
        self._policy = policy
        self._dispatcher = dispatcher

    async def enqueue(self, session: AsyncSession, events: Sequence[WebhookEvent]) -> Outbound:
        """Stores the events that have subscribers, with their deliveries (caller
        commits): leased to this process's dispatcher if it has room, due now otherwise.
        Plain rows and Core statements: this runs in every `record_intent`."""
        if not events:
            return Outbound()
        project_id = events[0].project_id
        endpoints = (
            await session.exec(
                with_keys(
                    col(WebhookEndpoint.id),
                    col(WebhookEndpoint.url),
                    col(WebhookEndpoint.event_types),
                )
                .join(Project, col(Project.id) == col(WebhookEndpoint.project_id))
                .where(
                    col(WebhookEndpoint.project_id) == project_id,
                    col(WebhookEndpoint.enabled).is_(True),
                )
            )
        ).all()
        if not endpoints:
            return Outbound()
        keys = project_keys(endpoints[0])
        dispatcher = self._dispatcher
        reservation = dispatcher.reserve() if dispatcher is not None else None
        max_attempts = self._policy.max_attempts
        first_retry = retry_in(self._policy, 1, max_attempts)
        rows: list[dict[str, Any]] = []
        deliveries: list[dict[str, Any]] = []
        claims: dict[str, Claimed] = {}
        now = utcnow()
        for event in events:
            subscribed = [e for e in endpoints if event.event_type in e[2]]
            if not subscribed:
                continue
            body = event.body()
            text = body.decode()
            intent_id = event.data.intent_id
            rows.append(
                {
                    "id": event.event_id,
                    "project_id": project_id,
                    "intent_id": intent_id,
                    "event_type": event.event_type.value,
                    "body": text,
                    "occurred_at": event.timestamp,
                }
            )
            outgoing = Outgoing(event.event_id, event.event_type, body)
            for endpoint_id, url, *_ in subscribed:
                id_ = delivery_id(event.event_id, endpoint_id)
                delivery = {
                    "id": id_,
                    "project_id": project_id,
                    "event_id": event.event_id,
                    "endpoint_id": endpoint_id,
                    "event_type": event.event_type.value,
                    "intent_id": intent_id,
                    "url": url,
                    "status": DeliveryStatus.PENDING.value,
                    "attempt_count": 0,
                    "max_attempts": max_attempts,
                    "created_at": now,
                    "updated_at": now,
                    "due_at": now,
                    "lease_token": None,
                }
                if (
                    reservation is not None
                    and dispatcher is not None
                    and dispatcher.has_room(endpoint_id)
                ):
                    delivery["due_at"] = reservation.lease_until
                    delivery["lease_token"] = reservation.token
                    claims[id_] = Claimed(
                        delivery_id=id_,
                        endpoint_id=endpoint_id,
                        project_id=project_id,
                        number=1,
                        url=url,
                        event=outgoing,
                        token=reservation.token,
                        lease_until=reservation.lease_until,
                        keys=keys,
                        retry_in=first_retry,
                    )
                deliveries.append(delivery)
        if not deliveries:
            return Outbound()
        await insert_missing_values(session, WebhookEventRow, rows, ["id"])
        if claims:
            # A retried write finds its rows, as they are (a delivery may be under way):
            # those are not this reservation's. Only the rows inserted now are.
            inserted = set(
                await insert_missing_values(
                    session, WebhookDelivery, deliveries, ["id"], returning="id"
                )
            )
            claims = {id_: claim for id_, claim in claims.items() if id_ in inserted}
        else:
            await insert_missing_values(session, WebhookDelivery, deliveries, ["id"])
        return Outbound([delivery["id"] for delivery in deliveries], list(claims.values()))

    async def dispatch(self, outbound: Outbound) -> None:
        """Once the rows are committed: the dispatcher attempts its claims at once, and is
        woken for the rest."""
        if self._dispatcher is None or not outbound:
            return
        self._dispatcher.hand_over(outbound.claims)
        if len(outbound) > len(outbound.claims):
            self._dispatcher.wake()


_MISSING_ROW_RETRIES = 5


class WebhookActivities:
    """`attempt_delivery` of the delivery workflows started before the dispatcher, and
    the webhook log's retention (the housekeeping workflow's third task)."""

    def __init__(
        self,
        db: async_sessionmaker[AsyncSession],
        wake: Callable[[], None] = _nobody,
        retention: timedelta = timedelta(days=DEFAULT_WEBHOOK_RETENTION_DAYS),
    ) -> None:
        self._db = db
        self._wake = wake
        self._retention = retention

    @activity.defn
    async def purge_webhook_log(self, request: WebhookLogPurge) -> WebhookLogPurgeResult:
        """Ended deliveries and events past the retention period (the request's, else
        the worker's RAMP_WEBHOOK_RETENTION_DAYS)."""
        retention = (
            self._retention
            if request.retention_seconds is None
            else timedelta(seconds=request.retention_seconds)
        )
        cutoff = utcnow() - retention
        deliveries = await self._purged(retention_batches.purge_deliveries, cutoff)
        events = await self._purged(retention_batches.purge_events, cutoff)
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
