"""Project-scoped catalog endpoints over HTTP."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from jsonschema import Draft202012Validator
from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.catalog import provider_by_code
from ramp.db.tables import ProviderAccount
from tests.helpers.projects import ProjectCredentials

# About the catalog endpoints, not the database: one of the two passes runs it.
pytestmark = pytest.mark.either_database

ATLAS = provider_by_code("sandbox_atlas")
BEACON = provider_by_code("sandbox_beacon")


async def test_supported_routes_are_a_bare_array(
    client: httpx.AsyncClient, project: ProjectCredentials
) -> None:
    response = await client.get("/v1/currencies/supported", headers=project.basic)
    assert response.status_code == 200
    routes = response.json()
    assert isinstance(routes, list)
    assert all(set(route) == {"from", "to", "providerIds"} for route in routes)
    assert routes == sorted(routes, key=lambda r: (r["from"], r["to"]))
    by_pair = {(r["from"], r["to"]): r["providerIds"] for r in routes}
    assert ATLAS is not None
    assert BEACON is not None
    # Two providers serve this route, in catalog order (the selection order).
    assert by_pair[("USD", "USDC_ETHEREUM")] == [ATLAS.id, BEACON.id]
    assert by_pair[("USD", "BTC_BITCOIN")] == [BEACON.id]


async def test_providers_list_ids_matching_the_routes(
    client: httpx.AsyncClient, project: ProjectCredentials
) -> None:
    providers = (await client.get("/v1/providers", headers=project.basic)).json()
    routes = (await client.get("/v1/currencies/supported", headers=project.basic)).json()
    ids = {provider["id"] for provider in providers}
    assert {pid for route in routes for pid in route["providerIds"]} == ids
    atlas = next(p for p in providers if p["code"] == "sandbox_atlas")
    assert set(atlas) == {
        "id",
        "code",
        "name",
        "environment",
        "corridors",
        "requirements",
        "status",
    }
    # No call of the project's Atlas account failed (issue 26: its health).
    assert atlas["status"] == "HEALTHY"
    corridor = atlas["corridors"][0]
    assert set(corridor) == {"type", "source", "destination", "limits"}
    assert set(corridor["source"]) == {"currencies", "accountType", "rails", "countries"}
    assert corridor["limits"][0]["minimum"] == "10.00"
    assert [r["code"] for r in atlas["requirements"]] == [
        "TERMS_OF_SERVICE",
        "KYC_BASIC",
        "SOURCE_OF_FUNDS",
    ]


async def test_a_deactivated_provider_leaves_routing(
    client: httpx.AsyncClient, project: ProjectCredentials, db: AsyncSession
) -> None:
    account = (
        await db.exec(
            select(ProviderAccount).where(
                ProviderAccount.project_id == project.project_id,
                ProviderAccount.provider_code == "sandbox_beacon",
            )
        )
    ).one()
    account.active = False
    db.add(account)
    await db.commit()
    routes = (await client.get("/v1/currencies/supported", headers=project.basic)).json()
    by_pair = {(r["from"], r["to"]): r["providerIds"] for r in routes}
    assert ("USD", "BTC_BITCOIN") not in by_pair
    assert ATLAS is not None
    assert by_pair[("USD", "USDC_ETHEREUM")] == [ATLAS.id]
    providers = (await client.get("/v1/providers", headers=project.basic)).json()
    assert "sandbox_beacon" not in {p["code"] for p in providers}


async def test_requirements_envelope_and_valid_examples(
    client: httpx.AsyncClient, project: ProjectCredentials
) -> None:
    routes = (await client.get("/v1/currencies/supported", headers=project.basic)).json()
    for route in routes:
        response = await client.get(
            "/v1/external-accounts/requirements",
            params={"src": route["from"], "dest": route["to"]},
            headers=project.basic,
        )
        assert response.status_code == 200, response.text
        body: dict[str, Any] = response.json()
        assert set(body) == {"src", "dest", "source", "destination"}
        assert (body["src"], body["dest"]) == (route["from"], route["to"])
        for side in ("source", "destination"):
            schema = body[side]
            Draft202012Validator.check_schema(schema)
            assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
            assert schema["examples"]
            validator = Draft202012Validator(schema)
            for example in schema["examples"]:
                assert list(validator.iter_errors(example)) == []


async def test_requirements_refuse_unknown_or_unserved_pairs(
    client: httpx.AsyncClient, project: ProjectCredentials
) -> None:
    for params in ({"src": "XYZ", "dest": "USD"}, {"src": "BRL", "dest": "BTC_BITCOIN"}):
        response = await client.get(
            "/v1/external-accounts/requirements", params=params, headers=project.basic
        )
        assert response.status_code == 400
        body = response.json()
        assert body["code"] == "UNSUPPORTED_ROUTE"
        assert params["src"] in body["message"]
        assert params["dest"] in body["message"]
        assert body["details"] == params
    missing = await client.get(
        "/v1/external-accounts/requirements", params={"src": "USD"}, headers=project.basic
    )
    assert missing.status_code == 400
    assert missing.json()["details"]["fields"] == [{"pointer": "/dest", "reason": "is required"}]
