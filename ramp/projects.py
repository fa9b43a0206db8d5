"""Project administration: what the dashboard and the `ramp project` commands do."""

from __future__ import annotations

import ipaddress
import uuid
from dataclasses import asdict, dataclass
from urllib.parse import urlsplit

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.catalog import Provider, providers_for
from ramp.config import Environment
from ramp.db.tables import Organization, Project, ProviderAccount, TrustedIssuer
from ramp.identity import oidc
from ramp.security.credentials import generate_client_credentials, hash_client_secret
from ramp.security.encryption import SecretBox


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
    if project.environment == Environment.PRODUCTION and not _public_host(jwks_url):
        # Keys are fetched from inside our network: a production project may not point
        # us at our own services (the sandbox may, for a local identity provider).
        raise ValueError("a production project's JWKS URL must name a public host")
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


def _public_host(url: str) -> bool:
    host = urlsplit(url).hostname or ""
    if host == "localhost" or host.endswith(".localhost"):
        return False
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return True  # a name; resolving it here would not stop DNS rebinding anyway
    return address.is_global


async def project_providers(session: AsyncSession, project: Project) -> tuple[Provider, ...]:
    """The providers that take part in this project's routing, in catalog order."""
    return tuple(provider for provider, _ in await routing_accounts(session, project.id))


async def routing_accounts(
    session: AsyncSession, project_id: str
) -> tuple[tuple[Provider, str], ...]:
    """Each provider the project routes through, with its provider account id, in
    catalog order (the selection order). One query."""
    rows = (
        await session.exec(
            select(Project.environment, ProviderAccount.provider_code, ProviderAccount.id)
            .join(ProviderAccount, col(ProviderAccount.project_id) == Project.id)
            .where(
                Project.id == project_id,
                ProviderAccount.active == True,  # noqa: E712  (SQL expression)
            )
        )
    ).all()
    if not rows:
        return ()
    accounts = {code: account_id for _, code, account_id in rows}
    return tuple(
        (provider, accounts[provider.code])
        for provider in providers_for(rows[0][0])
        if provider.code in accounts
    )
