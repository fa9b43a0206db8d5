"""Reading a project's webhook delivery log, and redelivering a logged event.

What `GET /webhooks/deliveries[/{id}]`, `POST /webhooks/deliveries/{id}/redeliver` and
`POST /webhooks/endpoints/{id}/recover` do, and what the dashboard will call. Delivering
is the dispatchers' business (ramp/webhooks/dispatcher.py): a redelivery is stored due
now, and they take it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.db.engine import read_snapshot
from ramp.db.keyset import Page, PageRequest, newest_first
from ramp.db.tables import WebhookAttempt, WebhookDelivery, WebhookEndpoint
from ramp.errors import Conflict, NotFound, WebhookError
from ramp.webhooks.endpoints import owned_endpoint, redelivery
from ramp.webhooks.models import DeliveryStatus


@dataclass(frozen=True)
class DeliveryFilters:
    """Each set field narrows the log to deliveries with that value."""

    status: str | None = None
    event_type: str | None = None
    endpoint_id: str | None = None
    intent_id: str | None = None
    event_id: str | None = None


@dataclass(frozen=True)
class LoggedDelivery:
    delivery: WebhookDelivery
    # Oldest first.
    attempts: list[WebhookAttempt]


_FILTER_COLUMNS = {
    "status": WebhookDelivery.status,
    "event_type": WebhookDelivery.event_type,
    "endpoint_id": WebhookDelivery.endpoint_id,
    "intent_id": WebhookDelivery.intent_id,
    "event_id": WebhookDelivery.event_id,
}


async def delivery_page(
    db: async_sessionmaker[AsyncSession],
    project_id: str,
    filters: DeliveryFilters,
    page: PageRequest,
) -> Page[LoggedDelivery]:
    """A page of the project's deliveries, newest first, with their attempts; read from
    one snapshot, so a delivery and its attempts agree."""
    async with db() as session:
        await read_snapshot(session)
        query = select(WebhookDelivery).where(WebhookDelivery.project_id == project_id)
        for name, column in _FILTER_COLUMNS.items():
            value = getattr(filters, name)
            if value is not None:
                query = query.where(column == value)
        rows = list(
            (
                await session.exec(
                    newest_first(
                        query, col(WebhookDelivery.created_at), col(WebhookDelivery.id), page
                    )
                )
            ).all()
        )
        found = rows[: page.limit]
        attempts = await _attempts(session, [delivery.id for delivery in found])
    last = found[-1] if len(rows) > page.limit else None
    return Page(
        items=[LoggedDelivery(d, attempts.get(d.id, [])) for d in found],
        after=(last.created_at, last.id) if last is not None else None,
    )


async def logged_delivery(
    db: async_sessionmaker[AsyncSession], project_id: str, delivery_id: str
) -> LoggedDelivery:
    """One of the project's deliveries with its attempts; NotFound otherwise."""
    async with db() as session:
        await read_snapshot(session)
        delivery = await _owned_delivery(session, project_id, delivery_id)
        attempts = await _attempts(session, [delivery.id])
    return LoggedDelivery(delivery, attempts.get(delivery.id, []))


async def redeliver(session: AsyncSession, project_id: str, delivery_id: str) -> WebhookDelivery:
    """Sends a logged delivery's event again, once, as a new delivery to its endpoint's
    current URL (due now: the dispatchers are woken on PostgreSQL, else their next poll
    takes it). NotFound for another project's delivery; Conflict if the endpoint was
    removed or is disabled."""
    original = await _owned_delivery(session, project_id, delivery_id)
    endpoint = await session.get(WebhookEndpoint, original.endpoint_id)
    if endpoint is None or not endpoint.enabled:
        raise _endpoint_disabled(original.endpoint_id)
    again = redelivery(original, endpoint)
    session.add(again)
    await session.commit()
    await session.refresh(again)
    return again


# Deliveries that ended without an acknowledgement.
_UNDELIVERED = (DeliveryStatus.EXHAUSTED, DeliveryStatus.GONE, DeliveryStatus.CANCELLED)
# Events re-sent per recovery; a second call goes on with the rest (those re-sent by
# the first are on their way, so it skips them).
RECOVERY_BATCH = 10_000


async def recover(
    session: AsyncSession,
    project_id: str,
    endpoint_id: str,
    since: datetime,
    *,
    max_attempts: int,
) -> list[WebhookDelivery]:
    """Sends again, as new deliveries on the full retry schedule, every event whose
    deliveries to the endpoint since `since` all ended unacknowledged (exhausted, gone
    or cancelled); oldest first, up to RECOVERY_BATCH events. NotFound for another
    project's endpoint; Conflict if it is disabled."""
    endpoint = await owned_endpoint(session, project_id, endpoint_id)
    if not endpoint.enabled:
        raise _endpoint_disabled(endpoint.id)
    rows = (
        await session.exec(
            select(WebhookDelivery)
            .where(
                WebhookDelivery.endpoint_id == endpoint.id,
                col(WebhookDelivery.created_at) >= since,
            )
            .order_by(col(WebhookDelivery.created_at), col(WebhookDelivery.id))
        )
    ).all()
    by_event: dict[str, list[WebhookDelivery]] = {}
    for row in rows:
        by_event.setdefault(row.event_id, []).append(row)
    again = [
        redelivery(deliveries[-1], endpoint, max_attempts)
        for deliveries in by_event.values()
        # Not one acknowledged or still on its way.
        if all(DeliveryStatus(d.status) in _UNDELIVERED for d in deliveries)
    ][:RECOVERY_BATCH]
    session.add_all(again)
    await session.commit()
    return again


def _endpoint_disabled(endpoint_id: str) -> Conflict:
    return Conflict(
        WebhookError.ENDPOINT_DISABLED,
        "the delivery's endpoint was removed or is disabled; enable it first",
        {"endpointId": endpoint_id},
    )


async def _owned_delivery(
    session: AsyncSession, project_id: str, delivery_id: str
) -> WebhookDelivery:
    delivery = await session.get(WebhookDelivery, delivery_id)
    if delivery is None or delivery.project_id != project_id:
        raise NotFound("webhook delivery")
    return delivery


async def _attempts(
    session: AsyncSession, delivery_ids: Sequence[str]
) -> dict[str, list[WebhookAttempt]]:
    if not delivery_ids:
        return {}
    found: dict[str, list[WebhookAttempt]] = {}
    rows = await session.exec(
        select(WebhookAttempt)
        .where(col(WebhookAttempt.delivery_id).in_(delivery_ids))
        .order_by(col(WebhookAttempt.attempted_at), col(WebhookAttempt.number))
    )
    for attempt in rows.all():
        found.setdefault(attempt.delivery_id, []).append(attempt)
    return found
