"""The project setting of the hosted onboarding: which origins may embed the page.

Shared by the `ramp project allow-origin` commands, `PUT /v1/project/onboarding-origins`
and the page itself (its content security policy).
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.config import Environment
from ramp.db.tables import IntentRow, Project
from ramp.db.types import utcnow
from ramp.errors import InvalidInput
from ramp.origins import InvalidOrigin, normalize_origin, normalize_origins


async def set_onboarding_origins(
    session: AsyncSession, project: Project, origins: Iterable[str]
) -> list[str]:
    """Replaces the project's list (validated, normalised); InvalidOrigin if one is bad."""
    normalized = normalize_origins(
        origins, production=project.environment == Environment.PRODUCTION
    )
    project.onboarding_origins = normalized
    project.updated_at = utcnow()
    session.add(project)
    await session.commit()
    return normalized


async def change_onboarding_origins(
    session: AsyncSession, project_id: str, origins: list[str]
) -> list[str]:
    """Replaces the project's list, as `PUT /v1/project/onboarding-origins` does: every
    bad origin is named (pointer `/origins/<index>`) in one InvalidInput."""
    project = await load_project(session, project_id)
    production = project.environment == Environment.PRODUCTION
    problems = []
    for index, origin in enumerate(origins):
        try:
            normalize_origin(origin, production=production)
        except InvalidOrigin as error:
            problems.append({"pointer": f"/origins/{index}", "reason": str(error)})
    if problems:
        raise InvalidInput("VALIDATION_ERROR", "request body is invalid", {"fields": problems})
    return await set_onboarding_origins(session, project, origins)


async def page_embed_origins(
    session: AsyncSession, intent_id: str, customer_id: str
) -> list[str] | None:
    """The origins that may embed the onboarding page of the customer's intent: its
    project's list. None if the customer has no such intent, or it has no onboarding."""
    intent = await session.get(IntentRow, intent_id)
    owner = await session.get(Project, intent.project_id) if intent is not None else None
    if owner is None or intent is None or customer_id != intent.customer_id:
        return None
    if not intent.onboarding:
        return None
    return list(owner.onboarding_origins)


async def load_project(session: AsyncSession, project_id: str) -> Project:
    project = await session.get(Project, project_id)
    if project is None:
        raise LookupError(f"no project {project_id}")
    return project
