"""Who a request is: the project of a pair of client credentials, the customer of a
verified token. The lookups behind the API's authentication (api/auth.py), which keeps
the HTTP side: reading the header, throttling failures, the 401 and its challenge."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import and_, bindparam
from sqlalchemy import select as select_columns
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlmodel import col

from ramp.catalog import Provider, providers_for
from ramp.db.rows import ModelColumns, slices
from ramp.db.tables import Customer, Project, ProviderAccount
from ramp.projects import IN_ROUTING, previous_secret_valid
from ramp.security.credentials import DUMMY_SECRET_HASH, client_secret_matches
from ramp.security.tokens import CustomerClaims


@dataclass(frozen=True)
class RoutedProject:
    """A project with the providers it routes through (ramp/projects.py), in catalog
    order: what the catalog's reads need, found with the credentials."""

    project: Project
    providers: tuple[Provider, ...]


# Statements built once, with their cache keys: every authenticated request runs one,
# and making it costs about what running it does. Both read Core rows: the project is a
# read-only copy (ramp/db/rows.py), to check the credentials and scope the request; a
# use case that changes a project loads it again by its id.
_PROJECT = ModelColumns(Project)
_PROJECT_BY_CLIENT_ID = select_columns(*_PROJECT.columns).where(
    _PROJECT.table.c.client_id == bindparam("client_id")
)


async def project_by_client_credentials(
    connection: AsyncConnection,
    client_id: str,
    client_secret: str,
    *,
    environment: str,
    now: datetime,
) -> Project | None:
    """The project these credentials authenticate in this environment, or None."""
    row = (await connection.execute(_PROJECT_BY_CLIENT_ID, {"client_id": client_id})).first()
    project = _PROJECT.load(row, connection.dialect) if row is not None else None
    return project if _authenticates(project, client_secret, environment, now) else None


# The project of a client id, a row per provider account in its routing (its provider's
# code; one row with none when it has none).
_ROUTED_PROJECT = (
    select_columns(*_PROJECT.columns, col(ProviderAccount.provider_code))
    .select_from(
        _PROJECT.table.outerjoin(
            ProviderAccount, and_(col(ProviderAccount.project_id) == Project.id, *IN_ROUTING)
        )
    )
    .where(_PROJECT.table.c.client_id == bindparam("client_id"))
)
(_AT_PROJECT,) = slices(_PROJECT)
_AT_CODE = len(_PROJECT)  # the provider code, after the project's columns


async def routed_project_by_client_credentials(
    connection: AsyncConnection,
    client_id: str,
    client_secret: str,
    *,
    environment: str,
    now: datetime,
) -> RoutedProject | None:
    """As `project_by_client_credentials`, with the project's providers, in one
    statement (the catalog's reads: one round trip where two were)."""
    rows = (await connection.execute(_ROUTED_PROJECT, {"client_id": client_id})).all()
    project = _PROJECT.load(rows[0][_AT_PROJECT], connection.dialect) if rows else None
    if not _authenticates(project, client_secret, environment, now):
        return None
    assert project is not None
    codes = {row[_AT_CODE] for row in rows if row[_AT_CODE] is not None}
    routing = tuple(p for p in providers_for(project.environment) if p.code in codes)
    return RoutedProject(project, routing)


def _authenticates(
    project: Project | None, client_secret: str, environment: str, now: datetime
) -> bool:
    # An unknown client id is compared against a dummy hash so that it costs what a
    # wrong secret costs: response time does not reveal which client ids exist.
    matches = client_secret_matches(
        client_secret, project.client_secret_hash if project else DUMMY_SECRET_HASH
    )
    if project is not None and not matches and previous_secret_valid(project, now):
        # A rotated secret keeps working for its grace period.
        assert project.previous_client_secret_hash is not None
        matches = client_secret_matches(client_secret, project.previous_client_secret_hash)
    return project is not None and matches and project.environment == environment


_CUSTOMER = ModelColumns(Customer)
_CUSTOMER_BY_ID = select_columns(*_CUSTOMER.columns).where(
    _CUSTOMER.table.c.id == bindparam("customer_id")
)


async def customer_by_claims(
    connection: AsyncConnection, claims: CustomerClaims, *, environment: str
) -> Customer | None:
    """The customer a verified customer token names, if it still belongs to the token's
    project and the token was issued in this environment. Read as a Core row (every
    customer-authenticated request runs it: the ORM's loading cost more than the read)."""
    params = {"customer_id": claims.customer_id}
    row = (await connection.execute(_CUSTOMER_BY_ID, params)).first()
    customer = _CUSTOMER.load(row, connection.dialect) if row is not None else None
    return claimed_customer(customer, claims, environment=environment)


def claimed_customer(
    customer: Customer | None, claims: CustomerClaims, *, environment: str
) -> Customer | None:
    """`customer` (the row of the token's customer id, if any) if the token may act as
    it: it still belongs to the token's project, and the token was issued in this
    environment."""
    if (
        customer is None
        or customer.project_id != claims.project_id
        or claims.environment != environment
    ):
        return None
    return customer
