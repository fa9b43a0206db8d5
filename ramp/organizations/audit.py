"""The audit log: every change made through the dashboard or the admin API.

Entries name who (member email or API key), what (an action and its target), from which
address and when; `details` carry settings (URLs, event types, roles), never a secret.
"""

from __future__ import annotations

import uuid
from typing import Any

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

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


async def recent(
    session: AsyncSession, organization_id: str, *, project_id: str | None = None, limit: int = 200
) -> list[AuditEvent]:
    """The organization's latest entries, newest first."""
    query = select(AuditEvent).where(AuditEvent.organization_id == organization_id)
    if project_id is not None:
        query = query.where(AuditEvent.project_id == project_id)
    query = query.order_by(col(AuditEvent.created_at).desc(), col(AuditEvent.id).desc())
    return list((await session.exec(query.limit(limit))).all())
