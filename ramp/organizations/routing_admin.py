"""A project's routing as members and API keys see and set it (issue 26): the strategy
(a developer sets it, like the partner fee; audited) and each provider account's
health (several accounts of one provider: each, in routing order), for the dashboard's
project page and the admin API alike."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.organizations import audit
from ramp.organizations.access import Principal, Role, organization_project
from ramp.routing.health import candidate_health
from ramp.routing.strategy import Strategy, routing_strategy, set_routing_strategy


@dataclass(frozen=True)
class RoutingView:
    strategy: Strategy
    providers: list[dict[str, Any]]

    def as_json(self) -> dict[str, Any]:
        return {"strategy": self.strategy.value, "providers": self.providers}


async def _view(session: AsyncSession, project_id: str) -> RoutingView:
    found = await candidate_health(session, project_id)
    return RoutingView(
        strategy=await routing_strategy(session, project_id),
        providers=[
            {
                "providerId": account.provider.id,
                "providerCode": account.provider.code,
                "providerAccountId": health.provider_account_id,
                "name": account.name,
                "priority": account.priority,
                **health.as_json(),
            }
            for account, health in found
        ],
    )


async def routing(session: AsyncSession, principal: Principal, project_id: str) -> RoutingView:
    found = await organization_project(session, principal, project_id)
    return await _view(session, found.id)


async def set_routing(
    session: AsyncSession, principal: Principal, project_id: str, strategy: str
) -> RoutingView:
    principal.require(Role.DEVELOPER)
    found = await organization_project(session, principal, project_id)
    audit.record(
        session,
        principal,
        "routing.set",
        found.name,
        project_id=found.id,
        details={"strategy": strategy},
    )
    await set_routing_strategy(session, found.id, strategy)
    return await _view(session, found.id)
