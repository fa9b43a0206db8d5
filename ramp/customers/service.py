"""Customer use cases: create or retrieve a customer, link a verified identity to it.

What `POST /customers` does, and what the dashboard will call: plain inputs, our own
errors (ramp/errors.py), no HTTP. Wallet sign-in, which produces one kind of subject
token, is in ramp/customers/wallet.py.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from anyio import to_thread
from sqlalchemy import bindparam
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.db.tables import Customer, CustomerIdentity, Project, TrustedIssuer
from ramp.errors import Conflict, InvalidInput
from ramp.identity import oidc
from ramp.security import network
from ramp.security.encryption import SecretBox
from ramp.security.tokens import CustomerClaims, InvalidToken, TokenService


@dataclass(frozen=True)
class Identity:
    """A verified (issuer, subject) pair: who signed the customer in."""

    issuer: str
    subject: str


@dataclass(frozen=True)
class CustomerAccess:
    customer: Customer
    created: bool
    # A customer access token for the customer's project and environment.
    token: str


async def create_or_retrieve_customer(
    db: async_sessionmaker[AsyncSession],
    *,
    project: Project,
    external_id: str,
    metadata: dict[str, Any] | None,
    subject_token: str | None,
    tokens: TokenService,
    verifier: oidc.OidcVerifier,
    secret_box: SecretBox,
) -> CustomerAccess:
    """The project's customer with this external id (created with `metadata` if new),
    with the identity of `subject_token` linked to it, and a fresh access token.

    Raises InvalidInput (subject token not valid, or from an untrusted issuer) and
    Conflict (the identity is linked to another customer of the project)."""
    identity = (
        await verified_identity(db, project.id, subject_token, tokens, verifier)
        if subject_token
        else None
    )
    try:
        customer, created = await _create_or_retrieve(
            db, project.id, external_id, metadata, identity, secret_box
        )
    except IntegrityError:
        # A concurrent request created the same customer first: this one retrieves it.
        customer, created = await _create_or_retrieve(
            db, project.id, external_id, metadata, identity, secret_box
        )
    token = tokens.issue_customer_token(
        CustomerClaims(
            customer_id=customer.id,
            project_id=project.id,
            organization_id=project.organization_id,
            environment=project.environment,
        )
    )
    return CustomerAccess(customer=customer, created=created, token=token)


# Built once, with its cache key (making it per request cost about what running it does).
_BY_EXTERNAL_ID = select(Customer).where(
    col(Customer.project_id) == bindparam("project_id"),
    col(Customer.external_id) == bindparam("external_id"),
)


async def _create_or_retrieve(
    db: async_sessionmaker[AsyncSession],
    project_id: str,
    external_id: str,
    metadata: dict[str, Any] | None,
    identity: Identity | None,
    box: SecretBox,
) -> tuple[Customer, bool]:
    async with db() as session:
        found = await session.exec(
            _BY_EXTERNAL_ID, params={"project_id": project_id, "external_id": external_id}
        )
        customer = found.first()
        created = customer is None
        if customer is None:
            customer = Customer(
                id=str(uuid.uuid4()),
                project_id=project_id,
                external_id=external_id,
                customer_metadata=metadata,
            )
            session.add(customer)
        if identity is not None:
            await _link_identity(session, project_id, customer.id, identity, box)
        await session.commit()
        return customer, created


async def _link_identity(
    session: AsyncSession, project_id: str, customer_id: str, identity: Identity, box: SecretBox
) -> None:
    """Links the identity to the customer (caller commits); Conflict if another customer
    of the project holds it. The subject is stored as a keyed hash only."""
    linked = (
        await session.exec(
            select(CustomerIdentity).where(
                CustomerIdentity.project_id == project_id,
                CustomerIdentity.issuer == identity.issuer,
                # Stored under the current key, maybe under an older one.
                col(CustomerIdentity.subject_hash).in_(box.keyed_hashes(identity.subject)),
            )
        )
    ).first()
    if linked is not None and linked.customer_id != customer_id:
        raise Conflict(
            "IDENTITY_ALREADY_LINKED",
            "this identity is already linked to another customer of the project",
        )
    if linked is None:
        session.add(
            CustomerIdentity(
                id=str(uuid.uuid4()),
                project_id=project_id,
                customer_id=customer_id,
                issuer=identity.issuer,
                subject_hash=box.keyed_hash(identity.subject),
            )
        )


async def verified_identity(
    db: async_sessionmaker[AsyncSession],
    project_id: str,
    token: str,
    tokens: TokenService,
    verifier: oidc.OidcVerifier,
) -> Identity:
    """Who `token` says the customer is: one of our wallet tokens, or an ID token of an
    issuer the project trusts. InvalidInput otherwise."""
    try:
        issuer = oidc.unverified_issuer(token)
    except oidc.IdentityTokenError as error:
        raise _invalid_subject_token(error.code, error.message) from error
    if tokens.is_wallet_token_issuer(issuer):
        try:
            wallet = tokens.verify_wallet_token(token)
        except InvalidToken as error:
            raise _invalid_subject_token("WALLET_TOKEN_INVALID", error.reason) from error
        return Identity(issuer=wallet.issuer, subject=wallet.subject)
    # The session closes before the keys are fetched: no connection held over the network.
    async with db() as session:
        found = (
            await session.exec(
                select(TrustedIssuer, Project.environment)
                .join(Project, col(Project.id) == TrustedIssuer.project_id)
                .where(TrustedIssuer.project_id == project_id, TrustedIssuer.issuer == issuer)
            )
        ).first()
    if found is None:
        raise InvalidInput(
            "UNTRUSTED_ISSUER",
            "subject_token comes from an issuer this project does not trust",
            {"issuer": issuer},
        )
    trusted, environment = found
    config = oidc.TrustedIssuer(
        issuer=trusted.issuer,
        audiences=tuple(trusted.audiences),
        jwks_url=trusted.jwks_url,
        # Keys are fetched from inside our network: where the project's environment
        # lets them be fetched from, checked at each fetch.
        network=network.for_project(environment),
    )
    try:
        # PyJWKClient fetches keys with blocking I/O (cached after the first call).
        verified = await to_thread.run_sync(verifier.verify, token, config)
    except oidc.IdentityTokenError as error:
        raise _invalid_subject_token(error.code, error.message) from error
    return Identity(issuer=verified.issuer, subject=verified.subject)


def _invalid_subject_token(reason_code: str, reason: str) -> InvalidInput:
    return InvalidInput(
        "INVALID_SUBJECT_TOKEN", f"subject_token is not valid: {reason}", {"reason": reason_code}
    )
