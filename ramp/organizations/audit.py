"""The audit log: every change made through the dashboard or the admin API.

Entries name who (member email or API key), what (an action and its target), from which
address and when; `details` carry settings (URLs, event types, roles), never a secret.
Entries are kept RAMP_AUDIT_RETENTION_DAYS (365 by default), then purged by housekeeping.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from sqlalchemy import delete
from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.db import keyset
from ramp.db.keyset import Page, PageRequest
from ramp.db.tables import AuditEvent
from ramp.organizations.access import Principal


def record(
    session: AsyncSession,
    principal: Principal,
    action: str,
    target: str,
    *,
    project_id: str | None = None,
    details: dict[str, Any] | None = None,
) -> AuditEvent:
    """Adds an entry to the session (the caller's commit stores it with the change)."""
    event = AuditEvent(
        id=str(uuid.uuid4()),
        organization_id=principal.organization_id,
        project_id=project_id,
        actor=principal.actor,
        action=action,
        target=target,
        details=details or {},
        ip=principal.ip,
    )
    session.add(event)
    return event


async def page(
    db: async_sessionmaker[AsyncSession],
    organization_id: str,
    request: PageRequest,
    *,
    project_id: str | None = None,
) -> Page[AuditEvent]:
    """A page of the organization's entries, newest first (optionally one project's)."""
    query = select(AuditEvent).where(AuditEvent.organization_id == organization_id)
    if project_id is not None:
        query = query.where(AuditEvent.project_id == project_id)
    async with db() as session:
        rows = list(
            (
                await session.exec(
                    keyset.newest_first(
                        query, col(AuditEvent.created_at), col(AuditEvent.id), request
                    )
                )
            ).all()
        )
    items = rows[: request.limit]
    after = (items[-1].created_at, items[-1].id) if len(rows) > request.limit else None
    return Page(items=items, after=after)


async def purge_expired(session: AsyncSession, cutoff: datetime) -> int:
    """Deletes the entries made before `cutoff` (RAMP_AUDIT_RETENTION_DAYS ago: the
    housekeeping workflow's run); the caller commits. Returns how many."""
    result = await session.exec(delete(AuditEvent).where(col(AuditEvent.created_at) < cutoff))
    return int(result.rowcount)
