"""How a project picks among the providers that can serve a payment (its routing
strategy), and the ranking both `POST /intent` (activities/intents.py) and
`GET /v1/intent/quote` (ramp/quotes/service.py) make from it.

- `FIRST_ELIGIBLE` (the default, the spec's rule): catalog order.
- `BEST_PRICE`: the largest net destination amount of the provider's quote for the
  payment's amount and route (its fees and the partner fee taken), then health
  (HEALTHY before DEGRADED), then catalog order. A provider without a quote (it failed,
  or was too slow) comes after every provider with one.

A project may hold several accounts of one provider: routing ranks accounts
(`rank_accounts`). FIRST_ELIGIBLE: catalog order of the provider, then the account's
priority (lower first), then its name. BEST_PRICE: the provider's net amount (quoted
through its first account), then the account's health, then its priority, then catalog
order and name.

Set per project like the partner fee: `PUT /v1/admin/projects/{projectId}/routing`
and the dashboard's project page. No row: FIRST_ELIGIBLE.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import Decimal
from enum import StrEnum
from typing import TypeVar

from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.db.routing_tables import ProjectRouting
from ramp.db.tables import Project
from ramp.db.types import utcnow
from ramp.errors import InvalidInput, NotFound, RequestError
from ramp.projects import RoutingAccount
from ramp.routing.health import HEALTH_ORDER, Health


class Strategy(StrEnum):
    FIRST_ELIGIBLE = "FIRST_ELIGIBLE"
    BEST_PRICE = "BEST_PRICE"


async def routing_strategy(session: AsyncSession, project_id: str) -> Strategy:
    row = await session.get(ProjectRouting, project_id)
    return Strategy.FIRST_ELIGIBLE if row is None else Strategy(row.strategy)


async def set_routing_strategy(session: AsyncSession, project_id: str, strategy: str) -> Strategy:
    """Sets how the project routes its payments from now (intents already open keep
    their provider); returns it."""
    try:
        chosen = Strategy(strategy)
    except ValueError:
        raise InvalidInput(
            RequestError.VALIDATION_ERROR,
            f"strategy is one of {', '.join(s.value for s in Strategy)}",
            {"fields": [{"pointer": "/strategy", "reason": "is not one of the allowed values"}]},
        ) from None
    if await session.get(Project, project_id) is None:
        raise NotFound("project")
    row = await session.get(ProjectRouting, project_id)
    row = row or ProjectRouting(project_id=project_id, strategy=chosen.value, updated_at=utcnow())
    row.strategy, row.updated_at = chosen.value, utcnow()
    session.add(row)
    await session.commit()
    return chosen


T = TypeVar("T")


def rank(
    strategy: Strategy,
    candidates: Sequence[T],
    *,
    catalog_order: Mapping[str, int],
    code_of: Mapping[int, str],
    net: Mapping[int, Decimal | None],
    health: Mapping[str, Health],
) -> list[T]:
    """`candidates` (providers, or quotes) in the order the project routes: `code_of`,
    `net` are by index into `candidates`; `catalog_order` and `health` by provider code."""
    indices = list(range(len(candidates)))
    if strategy is Strategy.BEST_PRICE:
        indices.sort(
            key=lambda i: (
                net[i] is None,
                -(net[i] or Decimal(0)),
                HEALTH_ORDER[health.get(code_of[i], Health.HEALTHY)],
                catalog_order[code_of[i]],
            )
        )
    else:
        indices.sort(key=lambda i: catalog_order[code_of[i]])
    return [candidates[i] for i in indices]


def rank_accounts(
    strategy: Strategy,
    accounts: Sequence[RoutingAccount],
    nets: Mapping[str, Decimal],
    health: Mapping[str, Health],
) -> list[RoutingAccount]:
    """Routing candidates (`accounts`, in selection order: catalog, priority, name)
    ranked: `nets` by provider code (missing: no quote), `health` by account id."""
    order = {account.account_id: i for i, account in enumerate(accounts)}
    if strategy is not Strategy.BEST_PRICE:
        return sorted(accounts, key=lambda a: order[a.account_id])

    def key(account: RoutingAccount) -> tuple[bool, Decimal, int, int, int]:
        net = nets.get(account.provider.code)
        return (
            net is None,
            -(net or Decimal(0)),
            HEALTH_ORDER[health.get(account.account_id, Health.HEALTHY)],
            account.priority,
            order[account.account_id],
        )

    return sorted(accounts, key=key)
