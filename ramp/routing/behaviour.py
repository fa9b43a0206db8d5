"""The sandbox's provider behaviours: a sandbox project makes one of its mock providers
misbehave (`DOWN`, `SLOW`, `REFUSE_TRANSFERS`), for itself only, for a while or until set
back `UP`. Stored per provider account, so the worker's calls (activities/providers.py)
and the API's quotes (ramp/quotes/service.py) see it in every process."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel import col, delete, select
from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.adapters.contract import (
    Connector,
    ProviderOutOfService,
    ProviderQuote,
    Quoter,
    RailQuoteRequest,
)
from ramp.adapters.sandbox.behaviour import SLOW_SECONDS, Behaviour, MisbehavingConnector
from ramp.catalog import provider_by_id
from ramp.config import Environment
from ramp.db.routing_tables import SandboxProviderBehaviour
from ramp.db.tables import Project, ProviderAccount
from ramp.db.types import utcnow
from ramp.errors import InvalidInput, NotFound, RequestError
from ramp.timestamps import format_timestamp

# A behaviour lasts at most a day: a forgotten DOWN heals by itself.
MAX_SECONDS = 86_400


@dataclass(frozen=True)
class BehaviourView:
    provider_id: str
    provider_code: str
    mode: Behaviour
    until: datetime | None

    def as_json(self) -> dict[str, str | None]:
        return {
            "providerId": self.provider_id,
            "providerCode": self.provider_code,
            "mode": self.mode.value,
            "until": format_timestamp(self.until) if self.until else None,
        }


async def set_behaviour(
    session: AsyncSession, project: Project, provider_id: str, mode: str, seconds: int | None
) -> BehaviourView:
    """Sets how the project's mock provider behaves, from now (for `seconds`, or until
    set back `UP`). Sandbox projects only; a provider the project does not route
    through is NotFound."""
    if project.environment != Environment.SANDBOX:
        raise NotFound("provider")
    try:
        behaviour = Behaviour(mode)
    except ValueError:
        raise InvalidInput(
            RequestError.VALIDATION_ERROR,
            f"mode is one of {', '.join(b.value for b in Behaviour)}",
            {"fields": [{"pointer": "/mode", "reason": "is not one of the allowed values"}]},
        ) from None
    if seconds is not None and not 1 <= seconds <= MAX_SECONDS:
        raise InvalidInput(
            RequestError.VALIDATION_ERROR,
            f"seconds is 1 to {MAX_SECONDS}",
            {"fields": [{"pointer": "/seconds", "reason": "is out of range"}]},
        )
    provider = provider_by_id(provider_id)
    account = None
    if provider is not None:
        account = (
            await session.exec(
                select(ProviderAccount).where(
                    ProviderAccount.project_id == project.id,
                    ProviderAccount.provider_code == provider.code,
                )
            )
        ).first()
    if provider is None or account is None:
        raise NotFound("provider")
    now = utcnow()
    until = now + timedelta(seconds=seconds) if seconds is not None else None
    if behaviour is Behaviour.UP:
        await session.exec(
            delete(SandboxProviderBehaviour).where(
                col(SandboxProviderBehaviour.provider_account_id) == account.id
            )
        )
        until = None
    else:
        row = await session.get(SandboxProviderBehaviour, account.id)
        row = row or SandboxProviderBehaviour(
            provider_account_id=account.id, mode=behaviour.value, updated_at=now
        )
        row.mode, row.until, row.updated_at = behaviour.value, until, now
        session.add(row)
    await session.commit()
    return BehaviourView(provider.id, provider.code, behaviour, until)


def _live(row: SandboxProviderBehaviour | None, now: datetime) -> Behaviour:
    return Behaviour.UP if row is None else live_mode(row.mode, row.until, now)


def live_mode(mode: str | None, until: datetime | None, now: datetime) -> Behaviour:
    """A stored behaviour (`mode` None: no row) as it is `now`: UP once `until` passed."""
    if mode is None or (until is not None and until <= now):
        return Behaviour.UP
    return Behaviour(mode)


async def behaviour_of(session: AsyncSession, provider_account_id: str) -> Behaviour:
    return _live(await session.get(SandboxProviderBehaviour, provider_account_id), utcnow())


async def as_set(
    db: async_sessionmaker[AsyncSession], connector: Connector, provider_account_id: str
) -> Connector:
    """The mock provider `connector` as its project set it to behave, for one call."""
    async with db() as session:
        mode = await behaviour_of(session, provider_account_id)
    return behaving(connector, mode)


def behaving(connector: Connector, mode: Behaviour) -> Connector:
    """The mock provider `connector` behaving as `mode` says, for one call."""
    return connector if mode is Behaviour.UP else MisbehavingConnector(connector, mode)


async def project_behaviours(session: AsyncSession, project_id: str) -> dict[str, Behaviour]:
    """How each of the project's mock providers behaves now, by provider code (UP ones
    left out)."""
    rows = (
        await session.exec(
            select(ProviderAccount.provider_code, SandboxProviderBehaviour)
            .join(
                SandboxProviderBehaviour,
                col(SandboxProviderBehaviour.provider_account_id) == ProviderAccount.id,
            )
            .where(ProviderAccount.project_id == project_id)
        )
    ).all()
    now = utcnow()
    found = {code: _live(row, now) for code, row in rows}
    return {code: mode for code, mode in found.items() if mode is not Behaviour.UP}


class MisbehavingQuoter:
    """A mock provider's quotes as its project set it to behave (`Quoter`)."""

    def __init__(self, quoter: Quoter, provider_code: str, mode: Behaviour) -> None:
        self._quoter, self._code, self._mode = quoter, provider_code, mode

    async def quote(self, request: RailQuoteRequest) -> ProviderQuote:
        if self._mode is Behaviour.DOWN:
            raise ProviderOutOfService(f"connection refused: {self._code} is down")
        if self._mode is Behaviour.SLOW:
            await asyncio.sleep(SLOW_SECONDS)
        return await self._quoter.quote(request)


def quoters_as_set(
    quoters: Mapping[str, Quoter], modes: Mapping[str, Behaviour]
) -> dict[str, Quoter]:
    """The sandbox's quoters (by provider code) as `modes` set them."""
    return {
        code: MisbehavingQuoter(quoter, code, modes[code]) if code in modes else quoter
        for code, quoter in quoters.items()
    }
