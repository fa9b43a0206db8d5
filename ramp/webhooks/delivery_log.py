"""Reading a project's webhook delivery log, and redelivering a logged event.

What `GET /webhooks/deliveries[/{id}]` and `POST /webhooks/deliveries/{id}/redeliver`
do, and what the dashboard will call. Delivering is the delivery workflows' business
(workflows/webhooks.py); a redelivery is handed to one through `start`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.db.engine import read_snapshot
from ramp.db.keyset import Page, PageRequest, newest_first
from ramp.db.tables import WebhookAttempt, WebhookDelivery, WebhookEndpoint
from ramp.errors import Conflict, NotFound
from ramp.webhooks.endpoints import redelivery
from ramp.webhooks.models import REDELIVERY_POLICY_DELAYS, DeliveryOrder, DeliveryPolicy


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


async def redeliver(
    session: AsyncSession,
    project_id: str,
    delivery_id: str,
    *,
    timeout_seconds: float,
    start: Callable[[DeliveryOrder], Awaitable[None]],
) -> WebhookDelivery:
    """Sends a logged delivery's event again, once, as a new delivery to its endpoint's
    current URL. NotFound for another project's delivery; Conflict if the endpoint was
    removed or is disabled."""
    original = await _owned_delivery(session, project_id, delivery_id)
    endpoint = await session.get(WebhookEndpoint, original.endpoint_id)
    if endpoint is None or not endpoint.enabled:
        raise Conflict(
            "ENDPOINT_DISABLED",
            "the delivery's endpoint was removed or is disabled; enable it first",
            {"endpointId": original.endpoint_id},
        )
    policy = DeliveryPolicy(
        retry_delays_seconds=REDELIVERY_POLICY_DELAYS, timeout_seconds=timeout_seconds
    )
    again = redelivery(original, endpoint, policy)
    session.add(again)
    await session.flush()
    # Started before the commit: if the workflow cannot be started, nothing is stored;
    # the first attempt waits for the row if it runs before the commit.
    await start(DeliveryOrder(delivery_id=again.id, policy=policy))
    await session.commit()
    await session.refresh(again)
    return again


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
