"""A project's provider accounts, one by one, as members and API keys see and change
them (issue 26: several accounts of one provider per project). Each account: its name,
routing priority (lower first among its provider's accounts), status (HEALTHY,
UNHEALTHY: credentials refused, DISABLED), health (HEALTHY, DEGRADED, DOWN: from its
calls) and whether it routes now. Owners change the priority and disable an account,
like its credentials (provider_admin.py); both are audited."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.config import Environment
from ramp.db.tables import ProviderAccount
from ramp.errors import NotFound
from ramp.organizations import audit
from ramp.organizations.access import Principal, Role, organization_project
from ramp.provider_accounts import service
from ramp.provider_accounts.service import AccountStatus
from ramp.routing.health import account_health


@dataclass(frozen=True)
class AccountEntry:
    account_id: str
    provider_code: str
    name: str
    priority: int
    # HEALTHY, UNHEALTHY (credentials refused) or DISABLED.
    status: str
    reason: str | None
    hint: str | None
    # From its calls: HEALTHY, DEGRADED or DOWN (ramp/routing/health.py).
    health: str
    routing: bool

    def as_json(self) -> dict[str, Any]:
        return {
            "providerAccountId": self.account_id,
            "provider": self.provider_code,
            "name": self.name,
            "priority": self.priority,
            "status": self.status,
            "statusReason": self.reason,
            "credentialsHint": self.hint,
            "health": self.health,
            "routing": self.routing,
        }


async def _entries(session: AsyncSession, rows: list[ProviderAccount]) -> list[AccountEntry]:
    healths = await account_health(session, [row.id for row in rows])
    return [
        AccountEntry(
            account_id=row.id,
            provider_code=row.provider_code,
            name=row.name,
            priority=row.priority,
            status=row.status,
            reason=row.status_reason,
            hint=row.credentials_hint,
            health=healths[row.id].state.value,
            routing=row.active
            and row.status == AccountStatus.HEALTHY
            and healths[row.id].state.value != "DOWN",
        )
        for row in rows
    ]


async def provider_accounts(
    session: AsyncSession, principal: Principal, project_id: str
) -> list[AccountEntry]:
    """The project's provider accounts (a production project's: with credentials set),
    by provider code, then priority, then name."""
    project = await organization_project(session, principal, project_id)
    rows = (
        await session.exec(
            select(ProviderAccount)
            .where(ProviderAccount.project_id == project.id)
            .order_by(
                col(ProviderAccount.provider_code),
                col(ProviderAccount.priority),
                col(ProviderAccount.name),
            )
        )
    ).all()
    if project.environment == Environment.PRODUCTION:
        rows = [row for row in rows if row.credentials_encrypted is not None]
    return await _entries(session, list(rows))


async def _owned(
    session: AsyncSession, principal: Principal, project_id: str, account_id: str
) -> ProviderAccount:
    principal.require(Role.OWNER)
    project = await organization_project(session, principal, project_id)
    account = await session.get(ProviderAccount, account_id)
    if (
        account is None
        or account.project_id != project.id
        or project.environment != Environment.PRODUCTION
    ):
        raise NotFound("provider account")
    return account


async def set_priority(
    session: AsyncSession, principal: Principal, project_id: str, account_id: str, priority: int
) -> AccountEntry:
    """Sets the account's routing priority (owner)."""
    account = await _owned(session, principal, project_id, account_id)
    audit.record(
        session,
        principal,
        "provider.priority",
        account.provider_code,
        project_id=account.project_id,
        details={"name": account.name, "priority": priority},
    )
    await service.set_priority(
        session,
        project_id=account.project_id,
        provider_account_id=account.id,
        priority=priority,
        public_url="",
    )
    return (await _entries(session, [account]))[0]


async def disable(
    session: AsyncSession, principal: Principal, project_id: str, account_id: str
) -> AccountEntry:
    """Takes the account out of routing (owner); `set` with credentials brings it back."""
    account = await _owned(session, principal, project_id, account_id)
    audit.record(
        session,
        principal,
        "provider.disabled",
        account.provider_code,
        project_id=account.project_id,
        details={"name": account.name},
    )
    await service.disable_provider_account(
        session, project_id=account.project_id, public_url="", provider_account_id=account.id
    )
    return (await _entries(session, [account]))[0]
