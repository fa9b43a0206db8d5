"""The events store, read: what `GET /v1/events[/{id}]` answers.

Every event the service emits is stored by the outbox (ramp/webhooks/outbox.py) in the
transaction of the projection write that emitted it, whether or not an endpoint
subscribes, exactly as a webhook carries it; kept RAMP_EVENT_RETENTION_DAYS (and as
long as a delivery of it is logged), then purged by the housekeeping workflow
(ramp/webhooks/retention.py). A client that missed webhooks reconciles from here.

Pages are newest first by (occurred_at, id), as every list of the API; the bodies are
returned as stored, byte for byte what was (or would have been) signed and sent.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.db import keyset
from ramp.db.engine import read_snapshot
from ramp.db.keyset import Page, PageRequest
from ramp.db.tables import WebhookEventRow
from ramp.errors import InvalidInput, NotFound, RequestError
from ramp.intents.events import WebhookEventType


@dataclass(frozen=True)
class EventFilters:
    """Each set field narrows the list; the range is [from, to) over when the event
    occurred."""

    event_types: tuple[WebhookEventType, ...] = ()
    intent_id: str | None = None
    customer_id: str | None = None
    created_from: datetime | None = None
    created_to: datetime | None = None


@dataclass(frozen=True)
class StoredEvent:
    id: str
    occurred_at: datetime
    # The JSON envelope, as stored and signed.
    body: str


async def event_page(
    db: async_sessionmaker[AsyncSession],
    project_id: str,
    filters: EventFilters,
    page: PageRequest,
) -> Page[StoredEvent]:
    """A page of the project's events that match `filters`, newest first."""
    if (
        filters.created_from is not None
        and filters.created_to is not None
        and filters.created_from >= filters.created_to
    ):
        raise InvalidInput(
            RequestError.VALIDATION_ERROR,
            "the created range is empty: its start must be before its end",
        )
    query = select(WebhookEventRow).where(WebhookEventRow.project_id == project_id)
    if filters.event_types:
        query = query.where(
            col(WebhookEventRow.event_type).in_([t.value for t in filters.event_types])
        )
    if filters.intent_id is not None:
        query = query.where(WebhookEventRow.intent_id == filters.intent_id)
    if filters.customer_id is not None:
        query = query.where(WebhookEventRow.customer_id == filters.customer_id)
    if filters.created_from is not None:
        query = query.where(col(WebhookEventRow.occurred_at) >= filters.created_from)
    if filters.created_to is not None:
        query = query.where(col(WebhookEventRow.occurred_at) < filters.created_to)
    async with db() as session:
        await read_snapshot(session)
        rows = list(
            (
                await session.exec(
                    keyset.newest_first(
                        query, col(WebhookEventRow.occurred_at), col(WebhookEventRow.id), page
                    )
                )
            ).all()
        )
    found = [StoredEvent(row.id, row.occurred_at, row.body) for row in rows[: page.limit]]
    last = found[-1] if len(rows) > page.limit else None
    return Page(items=found, after=(last.occurred_at, last.id) if last is not None else None)


async def stored_event(
    db: async_sessionmaker[AsyncSession], project_id: str, event_id: str
) -> StoredEvent:
    """One of the project's events; NotFound for another project's or an unknown id."""
    async with db() as session:
        row = await session.get(WebhookEventRow, event_id)
    if row is None or row.project_id != project_id:
        raise NotFound("event")
    return StoredEvent(row.id, row.occurred_at, row.body)
