"""The project setting of the hosted onboarding: which origins may embed the page.

Shared by the `ramp project allow-origin` commands and `PUT /v1/project/onboarding-origins`.
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.config import Environment
from ramp.db.tables import Project
from ramp.db.types import utcnow
from ramp.onboarding.origins import normalize_origins


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


async def load_project(session: AsyncSession, project_id: str) -> Project:
    project = await session.get(Project, project_id)
    if project is None:
        raise LookupError(f"no project {project_id}")
    return project
