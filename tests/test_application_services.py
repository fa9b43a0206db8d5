"""The application services answer without HTTP: what the CLI and the dashboard call is
what the API calls, and their refusals are our own errors (ramp/errors.py), which the API
alone turns into the envelope."""

from __future__ import annotations

import copy
from datetime import timedelta

import pytest
from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.authentication import project_by_client_credentials
from ramp.config import Settings
from ramp.customers.service import CustomerAccess, create_or_retrieve_customer
from ramp.db.tables import Project
from ramp.db.types import utcnow
from ramp.errors import Conflict, InvalidInput, NotFound
from ramp.external_accounts.service import register_account_pair
from ramp.identity.oidc import OidcVerifier
from ramp.onboarding.projects import change_onboarding_origins
from ramp.security.encryption import SecretBox
from ramp.security.tokens import TokenService
from ramp.webhooks import delivery_log, endpoints
from tests.helpers.payments import ACH, wallet
from tests.helpers.projects import ProjectCredentials

SIGNER = "0x" + "ab" * 20


async def _project(db: AsyncSession, credentials: ProjectCredentials) -> Project:
    found = await db.get(Project, credentials.project_id)
    assert found is not None
    return found


async def _customer(
    sessions: async_sessionmaker[AsyncSession],
    settings: Settings,
    project: Project,
    external_id: str,
    subject_token: str | None = None,
) -> CustomerAccess:
    return await create_or_retrieve_customer(
        sessions,
        project=project,
        external_id=external_id,
        metadata={"plan": "pro"},
        subject_token=subject_token,
        tokens=TokenService.from_settings(settings),
        verifier=OidcVerifier(),
        secret_box=SecretBox.from_settings(settings),
    )


async def test_customers_are_created_retrieved_and_identities_linked_once(
    sessions: async_sessionmaker[AsyncSession],
    db: AsyncSession,
    migrated: Settings,
    project: ProjectCredentials,
) -> None:
    owner = await _project(db, project)
    wallet_token = TokenService.from_settings(migrated).issue_wallet_token(
        SIGNER, 100, timedelta(minutes=5)
    )
    first = await _customer(sessions, migrated, owner, "user-1", wallet_token)
    again = await _customer(sessions, migrated, owner, "user-1", wallet_token)
    assert (first.created, again.created) == (True, False)
    assert first.customer.id == again.customer.id
    assert TokenService.from_settings(migrated).verify_customer_token(again.token).customer_id == (
        first.customer.id
    )
    with pytest.raises(Conflict) as linked:
        await _customer(sessions, migrated, owner, "user-2", wallet_token)
    assert linked.value.code == "IDENTITY_ALREADY_LINKED"
    with pytest.raises(InvalidInput) as invalid:
        await _customer(sessions, migrated, owner, "user-3", "not.a.token")
    assert invalid.value.code == "INVALID_SUBJECT_TOKEN"


async def test_an_account_pair_is_validated_against_the_route(
    sessions: async_sessionmaker[AsyncSession],
    db: AsyncSession,
    migrated: Settings,
    project: ProjectCredentials,
) -> None:
    access = await _customer(sessions, migrated, await _project(db, project), "user-1")
    broken = {**copy.deepcopy(ACH), "rails": "CARRIER_PIGEON"}
    async with sessions() as session:
        with pytest.raises(InvalidInput) as refused:
            await register_account_pair(
                session,
                access.customer,
                src="USD",
                dest="USDC_ETHEREUM",
                source=broken,
                destination=wallet("USDC_ETHEREUM"),
            )
    assert refused.value.code == "SCHEMA_VALIDATION_FAILED"
    assert [f["pointer"] for f in refused.value.details["fields"]] == ["/source/rails"]
    async with sessions() as session:
        with pytest.raises(InvalidInput) as unsupported:
            await register_account_pair(
                session, access.customer, src="USD", dest="XYZ", source=ACH, destination={}
            )
    assert unsupported.value.code == "UNSUPPORTED_ROUTE"
    async with sessions() as session:
        pair = await register_account_pair(
            session,
            access.customer,
            src="USD",
            dest="USDC_ETHEREUM",
            source=copy.deepcopy(ACH),
            destination=wallet("USDC_ETHEREUM"),
        )
    assert (pair.source.type, pair.destination.type) == ("BANK_ACCOUNT", "CRYPTO_ADDRESS")


async def test_project_lookups_and_settings(
    sessions: async_sessionmaker[AsyncSession],
    migrated: Settings,
    project: ProjectCredentials,
) -> None:
    async with sessions() as session:
        connection = await session.connection()
        found = await project_by_client_credentials(
            connection,
            project.client_id,
            project.client_secret,
            environment="sandbox",
            now=utcnow(),
        )
        assert found is not None
        assert found.id == project.project_id
        wrong_secret = (project.client_secret + "x", "sandbox")
        wrong_environment = (project.client_secret, "production")
        for secret, environment in (wrong_secret, wrong_environment):
            assert (
                await project_by_client_credentials(
                    connection, project.client_id, secret, environment=environment, now=utcnow()
                )
                is None
            )
    async with sessions() as session:
        with pytest.raises(InvalidInput) as bad_origin:
            await change_onboarding_origins(
                session, project.project_id, ["https://ok.example", "ftp://no"]
            )
    assert [f["pointer"] for f in bad_origin.value.details["fields"]] == ["/origins/1"]
    async with sessions() as session:
        with pytest.raises(NotFound):
            await endpoints.owned_endpoint(session, project.project_id, "no-such-endpoint")
    with pytest.raises(NotFound):
        await delivery_log.logged_delivery(sessions, project.project_id, "no-such-delivery")
