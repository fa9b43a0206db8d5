"""POST /customers: create or retrieve a customer and hand out its access token."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from sqlalchemy.exc import IntegrityError
from sqlmodel import col, select
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response

from api.auth import authenticate_project
from api.body import read_json
from api.errors import ApiError, bad_request
from api.render import customer_resource, json_resource
from api.schemas import CreateCustomer
from api.services import Services, services
from ramp.db.tables import Customer, CustomerIdentity, Project, TrustedIssuer
from ramp.identity import oidc
from ramp.security.encryption import cached_secret_box
from ramp.security.tokens import CustomerClaims, InvalidToken


@dataclass(frozen=True)
class Identity:
    issuer: str
    subject: str


async def create_customer(request: Request) -> Response:
    app = services(request)
    async with app.db() as session:
        project = await authenticate_project(request, session)
    body = await read_json(request, CreateCustomer)
    identity = (
        await _verify_subject_token(app, project, body.subject_token)
        if body.subject_token
        else None
    )
    try:
        customer, created = await _create_or_retrieve(app, project, body, identity)
    except IntegrityError:
        # A concurrent request created the same customer first: this one retrieves it.
        customer, created = await _create_or_retrieve(app, project, body, identity)
    token = app.tokens.issue_customer_token(
        CustomerClaims(
            customer_id=customer.id,
            project_id=project.id,
            organization_id=project.organization_id,
            environment=project.environment,
        )
    )
    return json_resource(
        customer_resource(customer, project.organization_id, token),
        status_code=201 if created else 200,
    )


async def _create_or_retrieve(
    app: Services, project: Project, body: CreateCustomer, identity: Identity | None
) -> tuple[Customer, bool]:
    box = cached_secret_box(app.settings.encryption_keys.get_secret_value())
    async with app.db() as session:
        customer = (
            await session.exec(
                select(Customer).where(
                    Customer.project_id == project.id, Customer.external_id == body.id
                )
            )
        ).first()
        created = customer is None
        if customer is None:
            customer = Customer(
                id=str(uuid.uuid4()),
                project_id=project.id,
                external_id=body.id,
                customer_metadata=body.metadata,
            )
            session.add(customer)
        if identity is not None:
            linked = (
                await session.exec(
                    select(CustomerIdentity).where(
                        CustomerIdentity.project_id == project.id,
                        CustomerIdentity.issuer == identity.issuer,
                        # Stored under the current key, maybe under an older one.
                        col(CustomerIdentity.subject_hash).in_(box.keyed_hashes(identity.subject)),
                    )
                )
            ).first()
            if linked is not None and linked.customer_id != customer.id:
                raise ApiError(
                    409,
                    "IDENTITY_ALREADY_LINKED",
                    "this identity is already linked to another customer of the project",
                )
            if linked is None:
                session.add(
                    CustomerIdentity(
                        id=str(uuid.uuid4()),
                        project_id=project.id,
                        customer_id=customer.id,
                        issuer=identity.issuer,
                        subject_hash=box.keyed_hash(identity.subject),
                    )
                )
        await session.commit()
        return customer, created


async def _verify_subject_token(app: Services, project: Project, token: str) -> Identity:
    try:
        issuer = oidc.unverified_issuer(token)
    except oidc.IdentityTokenError as error:
        raise _invalid_subject_token(error.code, error.message) from error
    if app.tokens.is_wallet_token_issuer(issuer):
        try:
            wallet = app.tokens.verify_wallet_token(token)
        except InvalidToken as error:
            raise _invalid_subject_token("WALLET_TOKEN_INVALID", error.reason) from error
        return Identity(issuer=wallet.issuer, subject=wallet.subject)
    async with app.db() as session:
        trusted = (
            await session.exec(
                select(TrustedIssuer).where(
                    TrustedIssuer.project_id == project.id, TrustedIssuer.issuer == issuer
                )
            )
        ).first()
    if trusted is None:
        raise bad_request(
            "UNTRUSTED_ISSUER",
            "subject_token comes from an issuer this project does not trust",
            {"issuer": issuer},
        )
    config = oidc.TrustedIssuer(
        issuer=trusted.issuer, audiences=tuple(trusted.audiences), jwks_url=trusted.jwks_url
    )
    try:
        # PyJWKClient fetches keys with blocking I/O (cached after the first call).
        verified = await run_in_threadpool(app.oidc.verify, token, config)
    except oidc.IdentityTokenError as error:
        raise _invalid_subject_token(error.code, error.message) from error
    return Identity(issuer=verified.issuer, subject=verified.subject)


def _invalid_subject_token(reason_code: str, reason: str) -> ApiError:
    return bad_request(
        "INVALID_SUBJECT_TOKEN", f"subject_token is not valid: {reason}", {"reason": reason_code}
    )
