"""What members and API keys do to their organization's projects: the dashboard's and
the admin API's use cases. Each checks the role, finds the project in the principal's
organization (404 otherwise), calls the service the CLI and the public API use, and
records the change in the audit log (never a secret)."""

from __future__ import annotations

from datetime import timedelta

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from ramp import projects
from ramp.config import Environment
from ramp.db.tables import Project, TrustedIssuer, WebhookDelivery, WebhookEndpoint
from ramp.db.types import utcnow
from ramp.errors import DashboardError, InvalidInput, NotFound
from ramp.intents.events import WebhookEventType
from ramp.onboarding.projects import change_onboarding_origins
from ramp.organizations import audit
from ramp.organizations.access import Principal, Role, organization_project
from ramp.quotes import partner_fee as quotes_partner_fee
from ramp.quotes.partner_fee import partner_fee_bps
from ramp.security.encryption import SecretBox
from ramp.security.network import UrlRefused
from ramp.webhooks import delivery_log, endpoints

MAX_GRACE = timedelta(days=7)


async def list_projects(session: AsyncSession, principal: Principal) -> list[Project]:
    return list(
        (
            await session.exec(
                select(Project)
                .where(Project.organization_id == principal.organization_id)
                .order_by(col(Project.created_at), col(Project.id))
            )
        ).all()
    )


async def project(session: AsyncSession, principal: Principal, project_id: str) -> Project:
    return await organization_project(session, principal, project_id)


async def create_project(
    session: AsyncSession,
    principal: Principal,
    *,
    name: str,
    environment: Environment,
    secret_box: SecretBox,
) -> projects.NewProject:
    principal.require(Role.DEVELOPER)
    name = name.strip()
    if not name or len(name) > 200:
        raise InvalidInput("VALIDATION_ERROR", "the project name must have 1 to 200 characters")
    audit.record(session, principal, "project.created", name, details={"environment": environment})
    return await projects.create_project(
        session,
        name=name,
        environment=environment,
        secret_box=secret_box,
        organization_id=principal.organization_id,
    )


async def rotate_client_secret(
    session: AsyncSession,
    principal: Principal,
    project_id: str,
    *,
    grace: timedelta,
    secret_box: SecretBox,
    force: bool = False,
) -> projects.RotatedSecret:
    principal.require(Role.DEVELOPER)
    found = await organization_project(session, principal, project_id)
    if grace < timedelta(0) or grace > MAX_GRACE:
        raise InvalidInput("VALIDATION_ERROR", "the grace period must be between 0 and 7 days")
    audit.record(
        session,
        principal,
        "client_secret.rotated",
        found.client_id,
        project_id=found.id,
        details={"graceHours": grace.total_seconds() / 3600, "force": force},
    )
    try:
        return await projects.rotate_client_secret(
            session, project_id=found.id, secret_box=secret_box, grace=grace, force=force
        )
    except ValueError as error:
        await session.rollback()
        raise InvalidInput("ROTATION_REFUSED", str(error)) from error


async def revoke_previous_secret(
    session: AsyncSession, principal: Principal, project_id: str
) -> Project:
    """Ends the grace period of the secret the last rotation replaced, now."""
    principal.require(Role.DEVELOPER)
    found = await organization_project(session, principal, project_id)
    if found.previous_client_secret_hash is not None:
        found.previous_client_secret_hash = None
        found.previous_client_secret_encrypted = None
        found.previous_secret_expires_at = None
        found.updated_at = utcnow()
        session.add(found)
        audit.record(
            session,
            principal,
            "client_secret.previous_revoked",
            found.client_id,
            project_id=found.id,
        )
        await session.commit()
        await session.refresh(found)
    return found


# --- webhook endpoints ---------------------------------------------------------------


async def add_endpoint(
    session: AsyncSession,
    principal: Principal,
    project_id: str,
    *,
    url: str,
    event_types: list[WebhookEventType],
    description: str | None = None,
    enabled: bool = True,
) -> WebhookEndpoint:
    principal.require(Role.DEVELOPER)
    found = await organization_project(session, principal, project_id)
    details = {"url": url, "eventTypes": [t.value for t in event_types], "enabled": enabled}
    audit.record(session, principal, "webhook.added", url, project_id=found.id, details=details)
    return await endpoints.add_endpoint(
        session, found, url=url, event_types=event_types, description=description, enabled=enabled
    )


async def change_endpoint(
    session: AsyncSession,
    principal: Principal,
    project_id: str,
    endpoint_id: str,
    *,
    url: str | None = None,
    event_types: list[WebhookEventType] | None = None,
    description: str | None = None,
    enabled: bool | None = None,
) -> WebhookEndpoint:
    principal.require(Role.DEVELOPER)
    found = await organization_project(session, principal, project_id)
    endpoint = await endpoints.owned_endpoint(session, found.id, endpoint_id)
    details: dict[str, object] = {"endpointId": endpoint.id}
    if url is not None:
        details["url"] = url
    if event_types is not None:
        details["eventTypes"] = [t.value for t in event_types]
    if enabled is not None:
        details["enabled"] = enabled
    audit.record(
        session, principal, "webhook.changed", endpoint.url, project_id=found.id, details=details
    )
    return await endpoints.change_endpoint(
        session,
        found,
        endpoint,
        url=url,
        event_types=event_types,
        description=description,
        enabled=enabled,
    )


async def remove_endpoint(
    session: AsyncSession, principal: Principal, project_id: str, endpoint_id: str
) -> None:
    principal.require(Role.DEVELOPER)
    found = await organization_project(session, principal, project_id)
    endpoint = await endpoints.owned_endpoint(session, found.id, endpoint_id)
    audit.record(session, principal, "webhook.removed", endpoint.url, project_id=found.id)
    await endpoints.remove_endpoint(session, endpoint)


async def redeliver(
    session: AsyncSession,
    principal: Principal,
    project_id: str,
    delivery_id: str,
) -> WebhookDelivery:
    principal.require(Role.DEVELOPER)
    found = await organization_project(session, principal, project_id)
    audit.record(session, principal, "webhook.redelivered", delivery_id, project_id=found.id)
    return await delivery_log.redeliver(session, found.id, delivery_id)


# --- trusted issuers and onboarding origins ---------------------------------------------


async def issuers(
    session: AsyncSession, principal: Principal, project_id: str
) -> list[TrustedIssuer]:
    found = await organization_project(session, principal, project_id)
    return list(
        (
            await session.exec(
                select(TrustedIssuer)
                .where(TrustedIssuer.project_id == found.id)
                .order_by(col(TrustedIssuer.created_at))
            )
        ).all()
    )


async def trust_issuer(
    session: AsyncSession,
    principal: Principal,
    project_id: str,
    *,
    issuer: str,
    audiences: list[str],
    jwks_url: str,
) -> TrustedIssuer:
    principal.require(Role.DEVELOPER)
    found = await organization_project(session, principal, project_id)
    details = {"audiences": audiences, "jwksUrl": jwks_url}
    try:
        trusted = await projects.trust_issuer(
            session, project_id=found.id, issuer=issuer, audiences=audiences, jwks_url=jwks_url
        )
    except UrlRefused as error:
        raise InvalidInput(
            DashboardError.INVALID_ISSUER,
            str(error),
            {"fields": [{"pointer": "/jwksUrl", "reason": str(error)}]},
        ) from error
    except ValueError as error:
        raise InvalidInput(DashboardError.INVALID_ISSUER, str(error)) from error
    audit.record(session, principal, "issuer.trusted", issuer, project_id=found.id, details=details)
    await session.commit()
    await session.refresh(trusted)
    return trusted


async def remove_issuer(
    session: AsyncSession, principal: Principal, project_id: str, issuer_id: str
) -> None:
    principal.require(Role.DEVELOPER)
    found = await organization_project(session, principal, project_id)
    trusted = await session.get(TrustedIssuer, issuer_id)
    if trusted is None or trusted.project_id != found.id:
        raise NotFound("trusted issuer")
    audit.record(session, principal, "issuer.removed", trusted.issuer, project_id=found.id)
    await session.delete(trusted)
    await session.commit()


async def set_origins(
    session: AsyncSession, principal: Principal, project_id: str, origins: list[str]
) -> list[str]:
    principal.require(Role.DEVELOPER)
    found = await organization_project(session, principal, project_id)
    audit.record(
        session,
        principal,
        "origins.set",
        found.name,
        project_id=found.id,
        details={"origins": origins},
    )
    return await change_onboarding_origins(session, found.id, origins)


# --- the partner fee (issue 17's project setting) --------------------------------------


async def partner_fee(session: AsyncSession, principal: Principal, project_id: str) -> int:
    found = await organization_project(session, principal, project_id)
    return await partner_fee_bps(session, found.id)


async def set_partner_fee(
    session: AsyncSession, principal: Principal, project_id: str, bps: int
) -> int:
    principal.require(Role.DEVELOPER)
    found = await organization_project(session, principal, project_id)
    audit.record(
        session, principal, "partner_fee.set", found.name, project_id=found.id, details={"bps": bps}
    )
    return await quotes_partner_fee.set_partner_fee(session, found.id, bps)
