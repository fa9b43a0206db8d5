"""Who acts (a member through a session, or an organization API key), with which role,
and what each role may do. A principal only ever sees its own organization."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.db.tables import Project
from ramp.errors import DashboardError, Forbidden, NotFound


class Role(StrEnum):
    # Ordered by what they may do: each may do all that the ones before it may.
    VIEWER = "viewer"
    DEVELOPER = "developer"
    OWNER = "owner"

    @property
    def rank(self) -> int:
        return list(Role).index(self)


@dataclass(frozen=True)
class Principal:
    organization_id: str
    role: Role
    # What the audit log names: the member's email, or `api key <name>`.
    actor: str
    member_id: str | None = None
    api_key_id: str | None = None
    # Where the request came from (the audit log's address).
    ip: str = ""

    def require(self, needed: Role) -> None:
        if self.role.rank < needed.rank:
            raise Forbidden(DashboardError.FORBIDDEN, f"this needs the {needed.value} role")

    def may(self, needed: Role) -> bool:
        return self.role.rank >= needed.rank


async def organization_project(
    session: AsyncSession, principal: Principal, project_id: str
) -> Project:
    """The principal's organization's project; NotFound for any other (another
    organization's projects do not exist for it)."""
    project = await session.get(Project, project_id)
    if project is None or project.organization_id != principal.organization_id:
        raise NotFound("project")
    return project
