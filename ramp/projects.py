"""Project administration: what the dashboard and the `ramp project` commands do."""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.catalog import Provider, providers_for
from ramp.config import Environment
from ramp.db.tables import Organization, Project, ProviderAccount, TrustedIssuer
from ramp.db.types import utcnow
from ramp.identity import oidc
from ramp.security import network
from ramp.security.credentials import generate_client_credentials, hash_client_secret
from ramp.security.encryption import SecretBox
from ramp.timestamps import format_timestamp


@dataclass(frozen=True)
class NewProject:
    organizationId: str
    projectId: str
    clientId: str
    clientSecret: str

    def as_json(self) -> dict[str, str]:
        return asdict(self)


async def create_project(
    session: AsyncSession,
    *,
    name: str,
    environment: Environment,
    secret_box: SecretBox,
    organization_id: str | None = None,
) -> NewProject:
    """Creates a project (and its organization unless given) with fresh credentials.

    A sandbox project routes through every mock provider from the start; a production
    project routes through the providers whose credentials its owner configures.
    """
    if organization_id is None:
        organization = Organization(id=str(uuid.uuid4()), name=name)
        session.add(organization)
        organization_id = organization.id
    credentials = generate_client_credentials(sandbox=environment is Environment.SANDBOX)
    project = Project(
        id=str(uuid.uuid4()),
        organization_id=organization_id,
        name=name,
        environment=environment.value,
        client_id=credentials.client_id,
        client_secret_hash=hash_client_secret(credentials.client_secret),
        client_secret_encrypted=secret_box.encrypt(credentials.client_secret),
    )
    session.add(project)
    if environment is Environment.SANDBOX:
        for provider in providers_for(environment.value):
            session.add(
                ProviderAccount(
                    id=str(uuid.uuid4()), project_id=project.id, provider_code=provider.code
                )
            )
    created = NewProject(
        organizationId=organization_id,
        projectId=project.id,
        clientId=credentials.client_id,
        clientSecret=credentials.client_secret,
    )
    # Read before the commit: a session that expires on commit would reload them.
    await session.commit()
    return created


async def trust_issuer(
    session: AsyncSession, *, project_id: str, issuer: str, audiences: list[str], jwks_url: str
) -> TrustedIssuer:
    """Trusts (or re-configures) an OIDC issuer for a project's `subject_token`s.

    Raises ValueError for a configuration the verifier would refuse (no audience, a
    JWKS URL that is not https), so that it is refused here rather than at sign-in.
    """
    oidc.TrustedIssuer(issuer=issuer, audiences=tuple(audiences), jwks_url=jwks_url)
    project = await session.get(Project, project_id)
    if project is None:
        raise LookupError(f"no project {project_id}")
    # Keys are fetched from inside our network: a production project may not point us
    # at our own services (the sandbox may, for a local identity provider); checked
    # again, on the addresses connected to, at each fetch.
    network.for_project(project.environment).check_url(jwks_url, field="jwksUrl")
    existing = (
        await session.exec(
            select(TrustedIssuer).where(
                TrustedIssuer.project_id == project_id, TrustedIssuer.issuer == issuer
            )
        )
    ).first()
    trusted = existing or TrustedIssuer(
        id=str(uuid.uuid4()), project_id=project_id, issuer=issuer, audiences=[], jwks_url=""
    )
    trusted.audiences = list(audiences)
    trusted.jwks_url = jwks_url
    session.add(trusted)
    await session.commit()
    await session.refresh(trusted)
    return trusted


# What a project with no provider in routing is told wherever that leaves it without
# routes (empty catalog lists, an unsupported route): what is missing, and what to do. A
# production project starts so; a sandbox project has its mock providers.
NO_PROVIDER_ACCOUNT = (
    "the project has no provider account in routing (none connected, or none healthy): "
    "connect one with `ramp provider-account set --project-id ID --provider BRIDGE "
    "--credentials-file FILE` or on the dashboard's Providers page"
)


async def project_providers(session: AsyncSession, project: Project) -> tuple[Provider, ...]:
    """The providers that take part in this project's routing, in catalog order."""
    return tuple(provider for provider, _ in await routing_accounts(session, project.id))


# What takes part in a project's routing: its active provider accounts that the
# provider has not refused. Also joined to the credentials' lookup (ramp/authentication.py).
IN_ROUTING = (
    col(ProviderAccount.active) == True,  # noqa: E712  (SQL expression)
    # An account whose credentials the provider refused is out of routing.
    col(ProviderAccount.status) == "HEALTHY",
)


@dataclass(frozen=True)
class RoutingAccount:
    """One provider account a project routes through: a routing candidate."""

    provider: Provider
    account_id: str
    name: str
    priority: int


async def routing_candidates(session: AsyncSession, project_id: str) -> tuple[RoutingAccount, ...]:
    """Every account the project routes through (enabled, credentials not refused), in
    selection order: the provider's catalog order, then the account's priority (lower
    first), then its name. A project may hold several accounts of one provider. One
    query."""
    rows = (
        await session.exec(
            select(Project.environment, ProviderAccount)
            .join(ProviderAccount, col(ProviderAccount.project_id) == Project.id)
            .where(Project.id == project_id, *IN_ROUTING)
        )
    ).all()
    if not rows:
        return ()
    return in_selection_order(rows[0][0], [account for _, account in rows])


def in_selection_order(
    environment: str, accounts: Iterable[ProviderAccount]
) -> tuple[RoutingAccount, ...]:
    """`accounts` as routing candidates, in selection order: the provider's catalog order
    in `environment`, then the account's priority (lower first), then its name."""
    by_code: dict[str, list[tuple[int, str, str]]] = {}
    for account in accounts:
        by_code.setdefault(account.provider_code, []).append(
            (account.priority, account.name, account.id)
        )
    return tuple(
        RoutingAccount(provider, account_id, name, priority)
        for provider in providers_for(environment)
        for priority, name, account_id in sorted(by_code.get(provider.code, ()))
    )


async def routing_accounts(
    session: AsyncSession, project_id: str
) -> tuple[tuple[Provider, str], ...]:
    """Each provider the project routes through, with its first account (priority, then
    name), in catalog order: what is asked per provider (quotes, the providers list)."""
    first: dict[str, tuple[Provider, str]] = {}
    for candidate in await routing_candidates(session, project_id):
        first.setdefault(candidate.provider.code, (candidate.provider, candidate.account_id))
    return tuple(first.values())


# --- client secret rotation -------------------------------------------------------


@dataclass(frozen=True)
class RotatedSecret:
    projectId: str
    clientId: str
    clientSecret: str
    # Until then the previous secret still authenticates and still signs webhooks.
    previousSecretValidUntil: str | None

    def as_json(self) -> dict[str, str | None]:
        return asdict(self)


async def rotate_client_secret(
    session: AsyncSession,
    *,
    project_id: str,
    secret_box: SecretBox,
    grace: timedelta,
    force: bool = False,
) -> RotatedSecret:
    """Issues a new client secret. The current one keeps working for `grace` (zero: it
    stops at once), so deployed clients and webhook receivers can switch over.

    Refused while an earlier rotation's grace period runs, unless `force`: a second
    rotation would end the oldest secret at once."""
    project = await session.get(Project, project_id)
    if project is None:
        raise LookupError(f"no project {project_id}")
    if grace < timedelta(0):
        raise ValueError("the grace period cannot be negative")
    now = utcnow()
    if previous_secret_valid(project, now) and not force:
        assert project.previous_secret_expires_at is not None
        raise ValueError(
            "the secret replaced by the last rotation still works until "
            f"{format_timestamp(project.previous_secret_expires_at)}; rotating again would "
            "revoke it now (use --force to do so)"
        )
    new = generate_client_credentials(sandbox=project.environment == Environment.SANDBOX)
    keep = grace > timedelta(0)
    project.previous_client_secret_hash = project.client_secret_hash if keep else None
    project.previous_client_secret_encrypted = project.client_secret_encrypted if keep else None
    project.previous_secret_expires_at = now + grace if keep else None
    project.client_secret_hash = hash_client_secret(new.client_secret)
    project.client_secret_encrypted = secret_box.encrypt(new.client_secret)
    project.updated_at = now
    session.add(project)
    rotated = RotatedSecret(
        projectId=project.id,
        clientId=project.client_id,
        clientSecret=new.client_secret,
        previousSecretValidUntil=format_timestamp(now + grace) if keep else None,
    )
    await session.commit()
    return rotated


def previous_secret_valid(project: Project, now: datetime) -> bool:
    return (
        project.previous_client_secret_hash is not None
        and project.previous_secret_expires_at is not None
        and now < project.previous_secret_expires_at
    )


def signing_secrets(project: Project, secret_box: SecretBox, now: datetime) -> list[str]:
    """The secrets a webhook is signed with: the current one, and the previous one
    during its grace period."""
    secrets = [secret_box.decrypt(project.client_secret_encrypted)]
    if previous_secret_valid(project, now) and project.previous_client_secret_encrypted:
        secrets.append(secret_box.decrypt(project.previous_client_secret_encrypted))
    return secrets
