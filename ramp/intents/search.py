"""A project's intents, searched: the reconciliation list of the API (`GET /v1/intents`)
and the dashboard's intent list, one use case for both.

Filters narrow by status, customer, provider and created/updated ranges (from
inclusive, to exclusive); pages are newest first by (created_at, id), as every list of
the API. Reads the projection, one snapshot per page.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.db.engine import read_snapshot
from ramp.db.keyset import Page, PageRequest
from ramp.errors import InvalidInput, RequestError
from ramp.intents.states import IntentStatus
from ramp.intents.views import INTENT, IntentView, page_of_views


@dataclass(frozen=True)
class IntentFilters:
    """Each set field narrows the search; ranges are [from, to)."""

    statuses: tuple[IntentStatus, ...] = ()
    customer_id: str | None = None
    provider_id: str | None = None
    created_from: datetime | None = None
    created_to: datetime | None = None
    updated_from: datetime | None = None
    updated_to: datetime | None = None


async def search_intents(
    db: async_sessionmaker[AsyncSession],
    project_id: str,
    filters: IntentFilters,
    page: PageRequest,
) -> Page[IntentView]:
    """A page of the project's intents that match `filters`, newest first."""
    for name, start, end in (
        ("created", filters.created_from, filters.created_to),
        ("updated", filters.updated_from, filters.updated_to),
    ):
        if start is not None and end is not None and start >= end:
            raise InvalidInput(
                RequestError.VALIDATION_ERROR,
                f"the {name} range is empty: its start must be before its end",
            )
    conditions = [INTENT.project_id == project_id]
    if filters.statuses:
        conditions.append(INTENT.status.in_([s.value for s in filters.statuses]))
    if filters.customer_id is not None:
        conditions.append(INTENT.customer_id == filters.customer_id)
    if filters.provider_id is not None:
        conditions.append(INTENT.provider_id == filters.provider_id)
    if filters.created_from is not None:
        conditions.append(INTENT.created_at >= filters.created_from)
    if filters.created_to is not None:
        conditions.append(INTENT.created_at < filters.created_to)
    if filters.updated_from is not None:
        conditions.append(INTENT.updated_at >= filters.updated_from)
    if filters.updated_to is not None:
        conditions.append(INTENT.updated_at < filters.updated_to)
    async with db() as session:
        await read_snapshot(session)
        return await page_of_views(await session.connection(), conditions, page)
