"""Sandbox and production deployments keep their projects apart."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
from sqlmodel.ext.asyncio.session import AsyncSession

from api.app import create_app
from ramp import projects
from ramp.config import Environment, Settings
from ramp.security.encryption import SecretBox
from tests.helpers.projects import ProjectCredentials, bearer
from tests.helpers.servers import derive_settings, serve

# About which projects a deployment serves, not the database: one of the two passes runs it.
pytestmark = pytest.mark.either_database


@pytest.fixture
async def production_client(migrated: Settings) -> AsyncIterator[httpx.AsyncClient]:
    async with serve(create_app(derive_settings(migrated, RAMP_ENV="production"))) as http:
        yield http


async def production_project(db: AsyncSession, settings: Settings) -> ProjectCredentials:
    created = await projects.create_project(
        db,
        name="Live",
        environment=Environment.PRODUCTION,
        secret_box=SecretBox.from_settings(settings),
    )
    assert created.clientSecret.startswith("sk_live_")
    return ProjectCredentials(
        created.organizationId, created.projectId, created.clientId, created.clientSecret
    )


async def test_production_project_routes_only_through_configured_providers(
    production_client: httpx.AsyncClient, db: AsyncSession, migrated: Settings
) -> None:
    live = await production_project(db, migrated)
    routes = await production_client.get("/v1/currencies/supported", headers=live.basic)
    assert routes.status_code == 200
    # No provider account connected: nothing to route through. The lists keep the
    # specification's shape (empty arrays); a header says why, and what to do.
    assert routes.json() == []
    providers = await production_client.get("/v1/providers", headers=live.basic)
    assert providers.json() == []
    for answer in (routes, providers):
        assert "no provider account" in answer.headers["Ramp-Hint"]
        assert "ramp provider-account set" in answer.headers["Ramp-Hint"]
    # ... and the OpenAPI document says so.
    document = (await production_client.get("/v1/openapi.json")).json()
    for path in ("/providers", "/currencies/supported"):
        assert "Ramp-Hint" in document["paths"][path]["get"]["responses"]["200"]["headers"]
    requirements = await production_client.get(
        "/v1/external-accounts/requirements",
        params={"src": "USD", "dest": "USDC_ETHEREUM"},
        headers=live.basic,
    )
    assert requirements.status_code == 400
    assert requirements.json()["code"] == "UNSUPPORTED_ROUTE"
    assert "no provider account" in requirements.json()["message"]
    assert "ramp provider-account set" in requirements.json()["message"]
    quote = await production_client.get(
        "/v1/intent/quote",
        params={"srcCurrencyCode": "USD", "destCurrencyCode": "USDC_ETHEREUM", "srcAmount": "10"},
        headers=live.basic,
    )
    assert quote.status_code == 400, quote.text
    assert "no provider account" in quote.json()["message"]


async def test_credentials_and_tokens_work_only_in_their_environment(
    client: httpx.AsyncClient,
    production_client: httpx.AsyncClient,
    project: ProjectCredentials,
    db: AsyncSession,
    migrated: Settings,
) -> None:
    live = await production_project(db, migrated)
    # Sandbox credentials against production, and production credentials against sandbox.
    refused = await production_client.get("/v1/providers", headers=project.basic)
    assert refused.status_code == 401
    assert refused.json()["code"] == "INVALID_CREDENTIALS"
    assert (await client.get("/v1/providers", headers=live.basic)).status_code == 401
    # A sandbox project has its mock providers: no hint.
    mocks = await client.get("/v1/providers", headers=project.basic)
    assert mocks.json()
    assert "Ramp-Hint" not in mocks.headers
    sandbox_customer = await client.post("/v1/customers", json={"id": "c"}, headers=project.basic)
    token = sandbox_customer.json()["access_token"]
    response = await production_client.post(
        "/v1/customers/external-accounts", json={}, headers=bearer(token)
    )
    assert response.status_code == 401
    assert response.json()["code"] == "INVALID_TOKEN"


async def test_production_jwks_must_be_on_a_public_host(
    db: AsyncSession, migrated: Settings
) -> None:
    live = await production_project(db, migrated)
    for url in (
        "http://127.0.0.1:8233/jwks",
        "https://localhost/jwks",
        "https://10.0.0.7/jwks",
        "https://169.254.169.254/latest",
        "https://[::1]/jwks",
    ):
        with pytest.raises(ValueError, match=r"public host|https|loopback|never reaches"):
            await projects.trust_issuer(
                db, project_id=live.project_id, issuer="https://i", audiences=["a"], jwks_url=url
            )
    trusted = await projects.trust_issuer(
        db,
        project_id=live.project_id,
        issuer="https://i",
        audiences=["a"],
        jwks_url="https://login.example/jwks",
    )
    assert trusted.jwks_url == "https://login.example/jwks"


async def test_sandbox_endpoints_do_not_exist_in_production(
    production_client: httpx.AsyncClient, db: AsyncSession, migrated: Settings
) -> None:
    live = await production_project(db, migrated)
    for path, body in (
        ("/v1/sandbox/transactions/t/events", {"type": "SETTLED"}),
        ("/v1/sandbox/intents/i/compliance-steps/KYC_BASIC", {"outcome": "VERIFIED"}),
        ("/v1/sandbox/intents/i/advance", {"seconds": 60}),
    ):
        response = await production_client.post(path, json=body, headers=live.basic)
        assert response.status_code == 404, path
        assert response.json()["code"] == "NOT_FOUND"
