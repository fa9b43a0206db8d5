"""Authentication: project client credentials (Basic) and customer tokens (Bearer)."""

from __future__ import annotations

import base64
import binascii

from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request

from api.errors import unauthorized
from api.services import services
from api.throttling import charge_project, record_auth_failure, refuse_while_locked_out
from ramp.db.tables import Customer, Project
from ramp.db.types import utcnow
from ramp.projects import previous_secret_valid
from ramp.security.credentials import (
    CLIENT_ID_SHAPE,
    DUMMY_SECRET_HASH,
    client_secret_matches,
)
from ramp.security.tokens import InvalidToken

BASIC_CHALLENGE = 'Basic realm="ramp", charset="UTF-8"'
BEARER_CHALLENGE = 'Bearer realm="ramp"'


def _authorization(request: Request, scheme: str, challenge: str) -> str:
    header = request.headers.get("authorization")
    if not header:
        raise unauthorized("MISSING_CREDENTIALS", f"{scheme} authorization is required", challenge)
    given_scheme, _, value = header.partition(" ")
    if given_scheme.lower() != scheme.lower() or not value.strip():
        raise unauthorized(
            "INVALID_AUTH_SCHEME", f"this endpoint needs {scheme} authorization", challenge
        )
    return value.strip()


async def authenticate_project(request: Request, session: AsyncSession) -> Project:
    """The project whose client credentials the request carries (looked up in `session`).

    Failed checks are counted per client id and per address (api/throttling.py); past
    the limit the secret is not even compared.
    """
    value = _authorization(request, "Basic", BASIC_CHALLENGE)
    try:
        client_id, sep, client_secret = (
            base64.b64decode(value, validate=True).decode().partition(":")
        )
    except (binascii.Error, UnicodeDecodeError):
        sep = ""
    well_formed = bool(sep) and CLIENT_ID_SHAPE.fullmatch(client_id) is not None
    throttled_id = client_id if well_formed else None
    await refuse_while_locked_out(request, throttled_id)
    if not well_formed:
        # A client id we could never have issued is not worth a database query.
        await record_auth_failure(request, None)
        raise unauthorized("INVALID_CREDENTIALS", "invalid client credentials", BASIC_CHALLENGE)
    project = (await session.exec(select(Project).where(Project.client_id == client_id))).first()
    # An unknown client id is compared against a dummy hash so that it costs what a
    # wrong secret costs: response time does not reveal which client ids exist.
    matches = client_secret_matches(
        client_secret, project.client_secret_hash if project else DUMMY_SECRET_HASH
    )
    if project is not None and not matches and previous_secret_valid(project, utcnow()):
        # A rotated secret keeps working for its grace period.
        assert project.previous_client_secret_hash is not None
        matches = client_secret_matches(client_secret, project.previous_client_secret_hash)
    if project is None or not matches or project.environment != services(request).settings.ramp_env:
        # Unknown ids are counted like known ones: the lockout does not tell them apart.
        await record_auth_failure(request, throttled_id)
        raise unauthorized("INVALID_CREDENTIALS", "invalid client credentials", BASIC_CHALLENGE)
    await charge_project(request, project.id)
    return project


async def authenticate_customer(request: Request, session: AsyncSession) -> Customer:
    """The customer whose access token the request carries (looked up in `session`)."""
    token = _authorization(request, "Bearer", BEARER_CHALLENGE)
    app = services(request)
    try:
        claims = app.tokens.verify_customer_token(token)
    except InvalidToken as error:
        code = "TOKEN_EXPIRED" if error.expired else "INVALID_TOKEN"
        raise unauthorized(
            code, f"{error.reason}: obtain a new one with POST /customers", BEARER_CHALLENGE
        ) from error
    customer = await session.get(Customer, claims.customer_id)
    if (
        customer is None
        or customer.project_id != claims.project_id
        or claims.environment != app.settings.ramp_env
    ):
        raise unauthorized("INVALID_TOKEN", "token is invalid", BEARER_CHALLENGE)
    await charge_project(request, customer.project_id)
    return customer
