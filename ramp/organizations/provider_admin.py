"""A project's providers in the dashboard: production projects connect real providers
with credentials entered in a form generated from the provider's credential schema
(owners only; with TOTP once the organization requires it), test the connection, see
HEALTHY/UNHEALTHY with the reason and a masked hint, disable; sandbox projects show
their mock providers. The provider accounts service (ramp/provider_accounts) does the
work, as for `ramp provider-account`; the credentials never come back, nor into the
audit log (its hint only)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.adapters.contract import CredentialsRejected, ProviderRefused, ProviderUnavailable
from ramp.adapters.registry import Connectors
from ramp.catalog import providers_for, supported_routes
from ramp.config import Environment
from ramp.db.tables import ProviderAccount
from ramp.db.types import utcnow
from ramp.errors import NotFound, ProviderAccountError, Unavailable
from ramp.organizations import audit
from ramp.organizations.access import Principal, Role, organization_project
from ramp.organizations.second_factor import require_second_factor
from ramp.provider_accounts import service
from ramp.provider_accounts.naming import DEFAULT_NAME
from ramp.provider_accounts.service import AccountStatus
from ramp.security.encryption import SecretBox


@dataclass(frozen=True)
class ProviderEntry:
    """One provider as the project's page shows it."""

    code: str
    name: str
    mock: bool
    # HEALTHY, UNHEALTHY, DISABLED, or NOT_CONNECTED.
    status: str
    reason: str | None
    hint: str | None
    account_id: str | None
    schema: Mapping[str, Any] | None
    routing: bool


async def project_providers(
    session: AsyncSession, principal: Principal, project_id: str, public_url: str
) -> list[ProviderEntry]:
    project = await organization_project(session, principal, project_id)
    accounts = (
        await session.exec(select(ProviderAccount).where(ProviderAccount.project_id == project.id))
    ).all()
    # A provider's card shows its primary account (several: provider_account_admin.py).
    rows: dict[str, ProviderAccount] = {}
    for code in {row.provider_code for row in accounts}:
        found = primary(accounts, code)
        if found is not None:
            rows[code] = found
    routing_codes = {
        row.provider_code
        for row in accounts
        if row.active and row.status == AccountStatus.HEALTHY and row.credentials_encrypted
    }
    if project.environment == Environment.SANDBOX:
        return [
            ProviderEntry(
                code=p.code,
                name=p.name,
                mock=True,
                status="HEALTHY" if rows.get(p.code) and rows[p.code].active else "DISABLED",
                reason="a mock provider of the sandbox: no credentials needed",
                hint=None,
                account_id=rows[p.code].id if p.code in rows else None,
                schema=None,
                routing=bool(rows.get(p.code) and rows[p.code].active),
            )
            for p in providers_for(project.environment)
        ]
    names = {p.code: p.name for p in providers_for(project.environment)}
    entries = []
    for code in service.provider_codes():
        row = rows.get(code)
        connected = row is not None and row.credentials_encrypted is not None
        assert row is not None or not connected
        status = row.status if connected and row is not None else "NOT_CONNECTED"
        reason = (
            row.status_reason
            if connected and row is not None
            else "no credentials: this provider takes no part in routing until they are set"
        )
        entries.append(
            ProviderEntry(
                code=code,
                name=names.get(code, code.title()),
                mock=False,
                status=status,
                reason=reason,
                hint=row.credentials_hint if connected and row is not None else None,
                account_id=row.id if row is not None else None,
                schema=service.credentials_schema(code),
                # Any of its accounts routing (a project may hold several).
                routing=code in routing_codes,
            )
        )
    return entries


async def connect(
    session: AsyncSession,
    principal: Principal,
    project_id: str,
    *,
    provider_code: str,
    credentials: Mapping[str, Any],
    secret_box: SecretBox,
    public_url: str,
    totp_code: str | None = None,
    connectors: Connectors | None = None,
    name: str | None = None,
    priority: int | None = None,
) -> service.ProviderAccountView:
    """Sets the credentials of the project's account `name` at the provider (created if
    new; DEFAULT_NAME without one), and its priority when given."""
    principal.require(Role.OWNER)
    project = await organization_project(session, principal, project_id)
    await require_second_factor(session, principal, totp_code, secret_box)
    account = await service.set_provider_account(
        session,
        project_id=project.id,
        provider_code=provider_code,
        credentials=credentials,
        secret_box=secret_box,
        public_url=public_url,
        connectors=connectors,
        name=name,
        priority=priority,
    )
    audit.record(
        session,
        principal,
        "provider.connected",
        account.provider_code,
        project_id=project.id,
        details={
            "hint": account.credentials_hint or "",
            "status": account.status,
            "name": account.name,
            "priority": account.priority,
        },
    )
    await session.commit()
    return account


async def test_connection(
    session: AsyncSession,
    principal: Principal,
    project_id: str,
    *,
    provider_code: str,
    secret_box: SecretBox,
    public_url: str,
    connectors: Connectors | None,
) -> service.ProviderAccountView:
    """Checks the stored credentials with the provider now: a refusal marks the account
    UNHEALTHY with the provider's reason; success makes an unhealthy one HEALTHY."""
    principal.require(Role.OWNER)
    account = await _account(session, principal, project_id, provider_code)
    if account.credentials_encrypted is None:
        raise NotFound("provider account")
    _, connector, ctx = await service.provider_context(
        session, provider_account_id=account.id, secret_box=secret_box, connectors=connectors
    )
    try:
        await connector.verify_credentials(ctx)
    except (CredentialsRejected, ProviderRefused) as refused:
        await service.mark_unhealthy(session, provider_account_id=account.id, reason=str(refused))
    except ProviderUnavailable as unavailable:
        raise Unavailable(
            ProviderAccountError.PROVIDER_UNREACHABLE,
            f"{connector.code} did not answer the check; try again ({unavailable})",
        ) from None
    else:
        fresh = await session.get(ProviderAccount, account.id)
        if fresh is not None and fresh.status == AccountStatus.UNHEALTHY:
            fresh.status, fresh.status_reason = AccountStatus.HEALTHY, None
            fresh.updated_at = utcnow()
            session.add(fresh)
    checked = await session.get(ProviderAccount, account.id)
    assert checked is not None
    audit.record(
        session,
        principal,
        "provider.tested",
        account.provider_code,
        project_id=account.project_id,
        details={"status": checked.status},
    )
    await session.commit()
    await session.refresh(checked)
    return service.view(checked, public_url)


async def disable(
    session: AsyncSession,
    principal: Principal,
    project_id: str,
    *,
    provider_code: str,
    public_url: str,
) -> service.ProviderAccountView:
    principal.require(Role.OWNER)
    account = await _account(session, principal, project_id, provider_code)
    audit.record(
        session,
        principal,
        "provider.disabled",
        account.provider_code,
        project_id=account.project_id,
    )
    return await service.disable_provider_account(
        session,
        project_id=account.project_id,
        public_url=public_url,
        provider_account_id=account.id,
    )


def primary(accounts: Sequence[ProviderAccount], provider_code: str) -> ProviderAccount | None:
    """The account a provider's card (and its test/disable by provider code) acts on:
    the one named DEFAULT_NAME, else the first by priority and name."""
    mine = sorted(
        (a for a in accounts if a.provider_code == provider_code),
        key=lambda a: (a.name != DEFAULT_NAME, a.priority, a.name),
    )
    return mine[0] if mine else None


async def _account(
    session: AsyncSession, principal: Principal, project_id: str, provider_code: str
) -> ProviderAccount:
    project = await organization_project(session, principal, project_id)
    account = primary(
        (
            await session.exec(
                select(ProviderAccount).where(
                    ProviderAccount.project_id == project.id,
                    ProviderAccount.provider_code == provider_code.upper(),
                )
            )
        ).all(),
        provider_code.upper(),
    )
    if account is None or project.environment != Environment.PRODUCTION:
        raise NotFound("provider account")
    return account


@dataclass(frozen=True)
class RouteAvailability:
    from_code: str
    to_code: str
    available: bool
    # The providers of the catalog that serve it, and why each is not routing.
    providers: tuple[str, ...]
    reason: str | None


def route_availability(environment: str, entries: list[ProviderEntry]) -> list[RouteAvailability]:
    """Every route the catalog offers in the project's environment, available when one
    of its providers takes part in routing; otherwise why not, provider by provider."""
    by_code = {entry.code: entry for entry in entries}
    catalog = providers_for(environment)
    codes = {provider.id: provider.code for provider in catalog}
    found = []
    for route in supported_routes(catalog):
        serving = tuple(codes[i] for i in route.provider_ids)
        routing = [c for c in serving if c in by_code and by_code[c].routing]
        reason = None
        if not routing:
            reason = "; ".join(
                f"{code}: {by_code[code].status.lower().replace('_', ' ')}"
                + (f" ({by_code[code].reason})" if by_code[code].reason else "")
                if code in by_code
                else f"{code}: not offered"
                for code in serving
            )
        found.append(
            RouteAvailability(route.from_code, route.to_code, bool(routing), serving, reason)
        )
    return found
