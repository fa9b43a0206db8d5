"""The OpenAPI document: valid, complete, and describing what the API really returns."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from openapi_spec_validator import validate
from starlette.routing import Route

from api.openapi import OPERATIONS, openapi_document
from api.routes import V1
from ramp.catalog import Rail, all_currencies
from tests.helpers.openapi import conforms
from tests.helpers.payments import (
    complete_onboarding,
    create_intent,
    onramp,
    provider_event,
    register_accounts,
)
from tests.helpers.projects import ProjectCredentials, bearer

# About the OpenAPI document, not the database: one of the two passes runs it.
pytestmark = pytest.mark.either_database


async def test_document_is_valid_openapi(client: httpx.AsyncClient) -> None:
    response = await client.get("/v1/openapi.json")
    assert response.status_code == 200
    document = response.json()
    validate(document)
    schemas = document["components"]["schemas"]
    assert schemas["CurrencyCode"]["enum"] == [c.code for c in all_currencies()]
    assert schemas["Rail"]["enum"] == [rail.value for rail in Rail]


def test_every_route_is_documented_and_nothing_else() -> None:
    routes = {
        (method, route.path)
        for route in V1
        if isinstance(route, Route) and route.path != "/openapi.json"
        for method in (route.methods or set()) - {"HEAD"}
    }
    documented = {(operation.method, operation.path) for operation in OPERATIONS}
    assert routes == documented


async def test_responses_conform_to_the_document(
    client: httpx.AsyncClient, project: ProjectCredentials
) -> None:
    document = openapi_document()
    routes = await client.get("/v1/currencies/supported", headers=project.basic)
    for route in routes.json():
        conforms(document, "RouteResource", route)
    for provider in (await client.get("/v1/providers", headers=project.basic)).json():
        conforms(document, "ProviderResource", provider)
    requirements = await client.get(
        "/v1/external-accounts/requirements",
        params={"src": "USD", "dest": "USDC_ETHEREUM"},
        headers=project.basic,
    )
    conforms(document, "RequirementsResource", requirements.json())
    customer = await client.post("/v1/customers", json={"id": "doc"}, headers=project.basic)
    conforms(document, "CustomerResource", customer.json())
    pair = await client.post(
        "/v1/customers/external-accounts",
        json=onramp(),
        headers=bearer(customer.json()["access_token"]),
    )
    conforms(document, "ExternalAccountPair", pair.json())
    error = await client.post("/v1/customers", json={}, headers=project.basic)
    conforms(document, "ErrorEnvelope", error.json())
    conforms(document, "CreateCustomer", {"id": "x", "metadata": {"a": 1}})


@pytest.mark.usefixtures("worker")
async def test_intent_responses_conform_to_the_document(
    client: httpx.AsyncClient, project: ProjectCredentials, customer: dict[str, Any]
) -> None:
    document = openapi_document()
    token = customer["access_token"]
    accounts = await register_accounts(client, token)
    created = await create_intent(client, token, accounts, redirectUrl="https://example.com/r")
    conforms(document, "IntentEnvelope", created.json())
    intent_id = created.json()["intent"]["id"]
    completed = await complete_onboarding(client, project, token, intent_id)
    conforms(document, "IntentEnvelope", completed)
    executed = await client.post(f"/v1/intent/{intent_id}/transaction", headers=bearer(token))
    conforms(document, "IntentEnvelope", executed.json())
    event = await provider_event(
        client, project, executed.json()["transaction"]["id"], "DEPOSIT_RECEIVED"
    )
    conforms(document, "ProviderEventAccepted", event.json())
    listed = await client.get("/v1/intent", headers=bearer(token))
    for envelope in listed.json():
        conforms(document, "IntentEnvelope", envelope)
    refused = await create_intent(client, token, accounts, amount="1.001")
    conforms(document, "ErrorEnvelope", refused.json())
