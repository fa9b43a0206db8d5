"""What `select_provider` reads of a project to route a payment, in one statement: the
accounts it routes through (as `ramp.projects.routing_candidates` gives them), each
with its health (`ramp/routing/health.py`), and the project's routing strategy
(`ramp/routing/strategy.py`).

One statement instead of three (accounts, strategy, health) because it runs in every
intent, where each round trip to the database costs the worker about half a
millisecond of CPU (docs/performance.md, "Fewer round trips"). The functions it stands
in for remain the API's and the dashboard's reads.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import and_
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.db.routing_tables import ProjectRouting, ProviderAccountHealth
from ramp.db.tables import Project, ProviderAccount
from ramp.projects import IN_ROUTING, RoutingAccount, in_selection_order
from ramp.routing.health import AccountHealth, health_view, healthy
from ramp.routing.strategy import Strategy


@dataclass(frozen=True)
class ProjectRoute:
    """A project's routing candidates (selection order: the provider's catalog order,
    then the account's priority, then its name), their health and its strategy."""

    accounts: tuple[RoutingAccount, ...] = ()
    health: dict[str, AccountHealth] = field(default_factory=dict)
    strategy: Strategy = Strategy.FIRST_ELIGIBLE


async def project_route(session: AsyncSession, project_id: str) -> ProjectRoute:
    """The project's routing candidates (enabled, credentials not refused) with their
    health, and its strategy: one statement (LEFT JOINs: no strategy row is
    FIRST_ELIGIBLE, no health row HEALTHY, no account an empty route)."""
    rows = (
        await session.exec(
            select(
                Project.environment, ProjectRouting.strategy, ProviderAccount, ProviderAccountHealth
            )
            .select_from(Project)
            .outerjoin(ProjectRouting, col(ProjectRouting.project_id) == Project.id)
            .outerjoin(
                ProviderAccount,
                and_(col(ProviderAccount.project_id) == Project.id, *IN_ROUTING),
            )
            .outerjoin(
                ProviderAccountHealth,
                col(ProviderAccountHealth.provider_account_id) == ProviderAccount.id,
            )
            .where(Project.id == project_id)
        )
    ).all()
    if not rows:
        return ProjectRoute()
    environment, strategy = rows[0][0], rows[0][1]
    health: dict[str, AccountHealth] = {
        account.id: healthy(account.id) if row is None else health_view(row)
        for _, _, account, row in rows
        if account is not None
    }
    accounts = in_selection_order(
        environment, [account for _, _, account, _ in rows if account is not None]
    )
    return ProjectRoute(
        accounts=accounts,
        health={a.account_id: health[a.account_id] for a in accounts},
        strategy=Strategy.FIRST_ELIGIBLE if strategy is None else Strategy(strategy),
    )
