"""Authentication: project client credentials (Basic) and customer tokens (Bearer)."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Protocol, TypeVar

from sqlalchemy.ext.asyncio import AsyncConnection
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request

from api.errors import unauthorized
from api.services import services
from api.throttling import charge_project, record_auth_failure, refuse_while_throttled
from ramp.authentication import (
    claimed_customer,
    customer_by_claims,
    project_by_client_credentials,
    routed_project_by_client_credentials,
)
from ramp.catalog import Provider
from ramp.db.tables import Customer, Project
from ramp.db.types import utcnow
from ramp.observability import context
from ramp.projects import project_providers
from ramp.security.credentials import CLIENT_ID_SHAPE
from ramp.security.tokens import CustomerClaims, InvalidToken

BASIC_CHALLENGE = 'Basic realm="ramp", charset="UTF-8"'
BEARER_CHALLENGE = 'Bearer realm="ramp"'

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)
# Where a request keeps the caller once authenticated: authentication runs (and is
# charged to the project's budget) once per request, however many layers ask. In the
# request's own scope: `request.state` may be shared with the lifespan's state.
_PROJECT = "ramp.authenticated_project"
_CUSTOMER = "ramp.authenticated_customer"


async def _on_connection(
    request: Request,
    connection: AsyncConnection | None,
    lookup: Callable[[AsyncConnection], Awaitable[T]],
) -> T:
    if connection is not None:
        return await lookup(connection)
    # A connection of its own, closed before the handler goes on (to read the body, say).
    async with services(request).engine.connect() as own:
        return await lookup(own)


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


async def authenticate_project(request: Request, session: AsyncSession | None = None) -> Project:
    """The project whose client credentials the request carries, looked up on the
    connection of `session` or, without one, on a connection of its own that is closed
    before this returns.

    Failed checks are counted per (client id, address) and per address
    (api/throttling.py); past either limit the secret is not even compared.
    """
    cached: Project | None = request.scope.get(_PROJECT)
    if cached is not None:
        # Already authenticated (and counted) for this request: by api/idempotency.py.
        return cached
    return await _authenticated(request, session, project_by_client_credentials, lambda p: p)


async def authenticate_routed_project(request: Request) -> tuple[Project, tuple[Provider, ...]]:
    """As `authenticate_project`, with the providers the project routes through, found
    by the same statement (the catalog's reads), on a connection of its own."""
    cached: Project | None = request.scope.get(_PROJECT)
    if cached is not None:
        async with services(request).db() as session:
            return cached, await project_providers(session, cached)
    routed = await _authenticated(
        request, None, routed_project_by_client_credentials, lambda r: r.project
    )
    return routed.project, routed.providers


class _CredentialsLookup(Protocol[T_co]):
    def __call__(
        self,
        connection: AsyncConnection,
        client_id: str,
        client_secret: str,
        *,
        environment: str,
        now: datetime,
    ) -> Awaitable[T_co | None]: ...


async def _authenticated(
    request: Request,
    session: AsyncSession | None,
    lookup: _CredentialsLookup[T],
    project_of: Callable[[T], Project],
) -> T:
    app = services(request)
    value = _authorization(request, "Basic", BASIC_CHALLENGE)
    try:
        client_id, sep, client_secret = (
            base64.b64decode(value, validate=True).decode().partition(":")
        )
    except (binascii.Error, UnicodeDecodeError):
        sep = ""
    well_formed = bool(sep) and CLIENT_ID_SHAPE.fullmatch(client_id) is not None
    throttled_id = client_id if well_formed else None
    await refuse_while_throttled(request, throttled_id)
    if not well_formed:
        # A client id we could never have issued is not worth a database query.
        await record_auth_failure(request, None)
        raise unauthorized("INVALID_CREDENTIALS", "invalid client credentials", BASIC_CHALLENGE)
    found = await _on_connection(
        request,
        await session.connection() if session is not None else None,
        lambda db: lookup(
            db, client_id, client_secret, environment=app.settings.ramp_env, now=utcnow()
        ),
    )
    if found is None:
        # Unknown ids are counted like known ones: the throttle does not tell them apart.
        await record_auth_failure(request, throttled_id)
        raise unauthorized("INVALID_CREDENTIALS", "invalid client credentials", BASIC_CHALLENGE)
    project = project_of(found)
    await charge_project(request, project.id)
    context.project_id.set(project.id)  # for the log lines of the rest of the request
    request.scope[_PROJECT] = project
    return found


async def authenticate_customer(
    request: Request, connection: AsyncConnection | None = None
) -> Customer:
    """The customer whose access token the request carries, looked up on `connection`
    or, without one, on a connection of its own that is closed before this returns."""
    cached: Customer | None = request.scope.get(_CUSTOMER)
    if cached is not None:
        return cached
    claims = customer_claims(request)
    environment = services(request).settings.ramp_env
    customer = await _on_connection(
        request, connection, lambda db: customer_by_claims(db, claims, environment=environment)
    )
    return await admit_customer(request, claims, customer)


def customer_claims(request: Request) -> CustomerClaims:
    """The verified claims of the request's customer token (401 without a valid one):
    no database is read to check them."""
    token = _authorization(request, "Bearer", BEARER_CHALLENGE)
    try:
        return services(request).tokens.verify_customer_token(token)
    except InvalidToken as error:
        code = "TOKEN_EXPIRED" if error.expired else "INVALID_TOKEN"
        raise unauthorized(
            code, f"{error.reason}: obtain a new one with POST /customers", BEARER_CHALLENGE
        ) from error


async def admit_customer(
    request: Request, claims: CustomerClaims, found: Customer | None
) -> Customer:
    """The customer of `claims`, given the row read for its id (`found`, None if there
    is none): 401 unless the token may act as it, then charged to its project's rate."""
    customer = claimed_customer(found, claims, environment=services(request).settings.ramp_env)
    if customer is None:
        raise unauthorized("INVALID_TOKEN", "token is invalid", BEARER_CHALLENGE)
    await charge_project(request, customer.project_id)
    context.project_id.set(customer.project_id)
    request.scope[_CUSTOMER] = customer
    return customer
