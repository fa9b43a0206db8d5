"""Who a request is: the project of a pair of client credentials, the customer of a
verified token. The lookups behind the API's authentication (api/auth.py), which keeps
the HTTP side: reading the header, throttling failures, the 401 and its challenge."""

from __future__ import annotations

from datetime import datetime

from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.db.tables import Customer, Project
from ramp.projects import previous_secret_valid
from ramp.security.credentials import DUMMY_SECRET_HASH, client_secret_matches
from ramp.security.tokens import CustomerClaims


async def project_by_client_credentials(
    session: AsyncSession, client_id: str, client_secret: str, *, environment: str, now: datetime
) -> Project | None:
    """The project these credentials authenticate in this environment, or None."""
    project = (await session.exec(select(Project).where(Project.client_id == client_id))).first()
    # An unknown client id is compared against a dummy hash so that it costs what a
    # wrong secret costs: response time does not reveal which client ids exist.
    matches = client_secret_matches(
        client_secret, project.client_secret_hash if project else DUMMY_SECRET_HASH
    )
    if project is not None and not matches and previous_secret_valid(project, now):
        # A rotated secret keeps working for its grace period.
        assert project.previous_client_secret_hash is not None
        matches = client_secret_matches(client_secret, project.previous_client_secret_hash)
    if project is None or not matches or project.environment != environment:
        return None
    return project


async def customer_by_claims(
    session: AsyncSession, claims: CustomerClaims, *, environment: str
) -> Customer | None:
    """The customer a verified customer token names, if it still belongs to the token's
    project and the token was issued in this environment."""
    customer = await session.get(Customer, claims.customer_id)
    if (
        customer is None
        or customer.project_id != claims.project_id
        or claims.environment != environment
    ):
        return None
    return customer
