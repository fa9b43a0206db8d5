"""A provider account's health, computed from its own calls and shared by every API and
worker process (the database: `provider_account_health`).

What counts: every provider call the activities make (activities/providers.py records
each attempt at the activity boundary) and every quote asked (ramp/quotes/service.py:
a failed or late quote is a failure). A call fails for the provider's own reasons when
it ends in `ProviderUnavailable` (a 5xx or 429 after the connector's own retries, a
timeout, a connection error; the sandbox's `DOWN` and `REFUSE_TRANSFERS`) or outlives
its activity's timeout. A refusal of one customer or one transfer (`ProviderRefused`,
`NotSupported`) is an answer: the provider is up. Credentials the provider refuses are
the account's `status` (UNHEALTHY), not its health.

States, from the last `WINDOW` calls and the failures in a row:
- `DOWN` after `DOWN_AFTER` failures in a row, or when half the window failed: out of
  routing. After `PROBE_DELAY` one caller (the first to claim it, `claim_probe`) may
  route one payment through it (half-open); that probe's success brings it back
  HEALTHY with a clean window, its failure keeps it DOWN until the next probe. Other
  calls (in flight from before) decide nothing while it is DOWN.
- `DEGRADED` while the last call failed or a fifth of the window did: still routed,
  ranked after healthy accounts on ties.
- `HEALTHY` otherwise. An account with no row has never failed: HEALTHY.

A success on an account with nothing to forget writes nothing: the common case costs
one primary-key read.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum

from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel import col, select, update
from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.catalog import Provider
from ramp.db.engine import begin_write
from ramp.db.routing_tables import ProviderAccountHealth
from ramp.db.types import utcnow
from ramp.projects import RoutingAccount, routing_candidates
from ramp.timestamps import format_timestamp

# The sliding window of the error rate, in calls.
WINDOW = 20
# Failures in a row that take an account DOWN.
DOWN_AFTER = 3
# Share of the window failed that takes an account DOWN, and DEGRADED.
DOWN_RATE = 0.5
DEGRADED_RATE = 0.2
# How long a DOWN account stays out of routing before one payment probes it.
PROBE_DELAY = timedelta(seconds=30)

_OK, _FAILED = ".", "x"


class Health(StrEnum):
    HEALTHY = "HEALTHY"
    DEGRADED = "DEGRADED"
    DOWN = "DOWN"


# Ranking on ties: healthy first.
HEALTH_ORDER = {Health.HEALTHY: 0, Health.DEGRADED: 1, Health.DOWN: 2}


@dataclass(frozen=True)
class AccountHealth:
    provider_account_id: str
    state: Health
    consecutive_failures: int = 0
    error_rate: float = 0.0
    last_failure: str | None = None
    last_failure_at: datetime | None = None
    probe_at: datetime | None = None

    def probe_due(self, now: datetime) -> bool:
        """A DOWN account whose probe may be claimed."""
        return self.state is Health.DOWN and (self.probe_at is None or self.probe_at <= now)

    def reason(self) -> str:
        """Why a DOWN account is out of routing, as a client reads it."""
        why = f"DOWN: {self.consecutive_failures} failed calls in a row"
        if self.last_failure:
            why += f", last: {self.last_failure}"
        if self.probe_at is not None:
            why += f" (probed again from {format_timestamp(self.probe_at)})"
        return why

    def as_json(self) -> dict[str, object]:
        return {
            "status": self.state.value,
            "consecutiveFailures": self.consecutive_failures,
            "errorRate": round(self.error_rate, 3),
            "lastFailure": self.last_failure,
            "lastFailureAt": format_timestamp(self.last_failure_at)
            if self.last_failure_at
            else None,
            "probeAt": format_timestamp(self.probe_at) if self.probe_at else None,
        }


def healthy(account_id: str) -> AccountHealth:
    return AccountHealth(provider_account_id=account_id, state=Health.HEALTHY)


def _rate(recent: str) -> float:
    return recent.count(_FAILED) / WINDOW


def health_view(row: ProviderAccountHealth) -> AccountHealth:
    return AccountHealth(
        provider_account_id=row.provider_account_id,
        state=Health(row.state),
        consecutive_failures=row.consecutive_failures,
        error_rate=_rate(row.recent_calls),
        last_failure=row.last_failure,
        last_failure_at=row.last_failure_at,
        probe_at=row.probe_at,
    )


def _pristine(row: ProviderAccountHealth | None) -> bool:
    """Nothing a success would change: no failure to forget."""
    return row is None or (
        row.state == Health.HEALTHY
        and row.consecutive_failures == 0
        and _FAILED not in row.recent_calls
    )


def apply_call(
    row: ProviderAccountHealth | None, account_id: str, failure: str | None, now: datetime
) -> ProviderAccountHealth:
    """The health after one call (`failure`: why it failed, None when it did not). Pure:
    the window before the first failure counts as all successes."""
    if row is None:
        row = ProviderAccountHealth(
            provider_account_id=account_id,
            state=Health.HEALTHY,
            recent_calls=_OK * WINDOW,
            updated_at=now,
        )
    row.updated_at = now
    if failure is None:
        row.consecutive_failures = 0
        if row.state == Health.DOWN and row.probing_since is None:
            # A call from before it went DOWN: only the probe decides.
            row.recent_calls = (row.recent_calls + _OK)[-WINDOW:]
            return row
        if row.state == Health.DOWN:
            # The probe succeeded: back, with a clean window.
            row.recent_calls = _OK * WINDOW
            row.probe_at = row.probing_since = None
        else:
            row.recent_calls = (row.recent_calls + _OK)[-WINDOW:]
        row.state = Health.DEGRADED if _rate(row.recent_calls) >= DEGRADED_RATE else Health.HEALTHY
        return row
    row.recent_calls = (row.recent_calls + _FAILED)[-WINDOW:]
    row.consecutive_failures += 1
    row.last_failure = failure[:500]
    row.last_failure_at = now
    if row.state == Health.DOWN:
        if row.probing_since is not None:
            # The probe failed: DOWN until the next one.
            row.probing_since = None
            row.probe_at = now + PROBE_DELAY
        row.probe_at = row.probe_at or now + PROBE_DELAY
    elif row.consecutive_failures >= DOWN_AFTER or _rate(row.recent_calls) >= DOWN_RATE:
        row.state = Health.DOWN
        row.probe_at = now + PROBE_DELAY
    else:
        row.state = Health.DEGRADED
    return row


async def record_call(
    db: async_sessionmaker[AsyncSession], provider_account_id: str, failure: str | None
) -> None:
    """Counts one call of the account: a success, or a failure of the provider's own
    (`failure` says why). One read when nothing changes; else one write transaction."""
    async with db() as session:
        row = await session.get(ProviderAccountHealth, provider_account_id)
        if failure is None and _pristine(row):
            return
    async with db() as session:
        await begin_write(session)
        row = (
            await session.exec(
                select(ProviderAccountHealth)
                .where(ProviderAccountHealth.provider_account_id == provider_account_id)
                .with_for_update()
            )
        ).first()
        if failure is None and _pristine(row):
            return
        session.add(apply_call(row, provider_account_id, failure, utcnow()))
        await session.commit()


async def account_health(
    session: AsyncSession, provider_account_ids: Iterable[str]
) -> dict[str, AccountHealth]:
    """The health of each account (HEALTHY where no call ever failed)."""
    ids = list(provider_account_ids)
    found: dict[str, AccountHealth] = {i: healthy(i) for i in ids}
    if not ids:
        return found
    rows = (
        await session.exec(
            select(ProviderAccountHealth).where(
                col(ProviderAccountHealth.provider_account_id).in_(ids)
            )
        )
    ).all()
    found.update((row.provider_account_id, health_view(row)) for row in rows)
    return found


async def claim_probe(session: AsyncSession, provider_account_id: str, now: datetime) -> bool:
    """Claims a DOWN account's due probe for one payment: True for the one caller whose
    statement moved `probe_at` on; every other caller sees it DOWN until the next."""
    result = await session.exec(
        update(ProviderAccountHealth)
        .where(
            col(ProviderAccountHealth.provider_account_id) == provider_account_id,
            col(ProviderAccountHealth.state) == Health.DOWN.value,
            col(ProviderAccountHealth.probe_at) <= now,
        )
        .values(probe_at=now + PROBE_DELAY, probing_since=now)
    )
    await session.commit()
    return bool(result.rowcount)


async def routable(
    session: AsyncSession, provider_account_ids: Iterable[str]
) -> tuple[dict[str, AccountHealth], dict[str, str]]:
    """The health of each account, and why each DOWN one is out of routing now (its
    probe not due, or claimed by another payment). A due probe is claimed here: this
    caller routes through it."""
    return await claim_due_probes(session, await account_health(session, provider_account_ids))


async def claim_due_probes(
    session: AsyncSession, healths: dict[str, AccountHealth]
) -> tuple[dict[str, AccountHealth], dict[str, str]]:
    """`routable` for accounts whose health was read already (ramp/routing/candidates.py)."""
    now = utcnow()
    down: dict[str, str] = {}
    for account_id, health in healths.items():
        if health.state is not Health.DOWN:
            continue
        if health.probe_due(now) and await claim_probe(session, account_id, now):
            continue
        down[account_id] = health.reason()
    return healths, down


async def candidate_health(
    session: AsyncSession, project_id: str
) -> list[tuple[RoutingAccount, AccountHealth]]:
    """Every account the project routes through (selection order), with its health: the
    admin API's and the dashboard's routing view."""
    routing = await routing_candidates(session, project_id)
    healths = await account_health(session, [a.account_id for a in routing])
    return [(account, healths[account.account_id]) for account in routing]


async def provider_health(
    session: AsyncSession, project_id: str
) -> list[tuple[Provider, AccountHealth]]:
    """The providers the project routes through (catalog order), each with the health of
    its healthiest account (the first by priority among equals): GET /v1/providers'
    `status`. A provider is DOWN only when every account of it is."""
    best: dict[str, tuple[Provider, AccountHealth]] = {}
    for account, health in await candidate_health(session, project_id):
        code = account.provider.code
        if code not in best or HEALTH_ORDER[health.state] < HEALTH_ORDER[best[code][1].state]:
            best[code] = (account.provider, health)
    return list(best.values())
