"""The webhook outbox: an intent's events stored (every one, subscribed or not: the
events store that `GET /v1/events` reads, ramp/webhooks/events_store.py) with one
delivery per subscribed endpoint, in the same database transaction as the projection
write (`record_intent`),
leased to the process's dispatcher when it has room, else due now; then handed to the
dispatcher (ramp/webhooks/dispatcher.py). Ids are derived from the event and the
endpoint, so a retried write stores nothing twice.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

from sqlmodel import col
from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.db.tables import Project, WebhookDelivery, WebhookEndpoint, WebhookEventRow
from ramp.db.types import utcnow
from ramp.db.upsert import insert_missing_values
from ramp.intents.events import WebhookEvent
from ramp.webhooks.dispatcher import DeliveryDispatcher
from ramp.webhooks.keys import project_keys, with_keys
from ramp.webhooks.ledger import Claimed, retry_in
from ramp.webhooks.models import DeliveryPolicy, DeliveryStatus
from ramp.webhooks.sending import Outgoing

_DELIVERY_NAMESPACE = uuid.UUID("0b7f6a52-9a0e-5d3c-8f61-4c2e9d7b1a38")


def event_row(event: WebhookEvent, body: bytes) -> dict[str, Any]:
    """The stored event: its body exactly as a webhook carries it (`body`), and what the
    events list filters on."""
    return {
        "id": event.event_id,
        "project_id": event.project_id,
        "intent_id": event.data.intent_id,
        "customer_id": event.data.customer_id,
        "event_type": event.event_type.value,
        "body": body.decode(),
        "occurred_at": event.timestamp,
    }


def delivery_id(event_id: str, endpoint_id: str) -> str:
    return str(uuid.uuid5(_DELIVERY_NAMESPACE, f"{event_id}/{endpoint_id}"))


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
        """Stores every event, and the deliveries of those with subscribers (caller
        commits): leased to this process's dispatcher if it has room, due now otherwise.
        Plain rows and Core statements: this runs in every `record_intent`."""
        if not events:
            return Outbound()
        project_id = events[0].project_id
        bodies = [event.body() for event in events]
        await insert_missing_values(
            session,
            WebhookEventRow,
            [event_row(event, body) for event, body in zip(events, bodies, strict=True)],
            ["id"],
        )
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
        deliveries: list[dict[str, Any]] = []
        claims: dict[str, Claimed] = {}
        now = utcnow()
        for event, body in zip(events, bodies, strict=True):
            subscribed = [e for e in endpoints if event.event_type in e[2]]
            if not subscribed:
                continue
            intent_id = event.data.intent_id
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
