"""POST /customers/external-accounts: both accounts of a route, validated, together."""

from __future__ import annotations

import copy
import re
from typing import Any

import httpx
from sqlmodel import func, select
from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.catalog import currency_by_code
from ramp.db.tables import ExternalAccount
from tests.helpers.payments import ACH, onramp, wallet
from tests.helpers.projects import ProjectCredentials, bearer, make_customer

TIMESTAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")


async def count_accounts(db: AsyncSession) -> int:
    return (await db.exec(select(func.count()).select_from(ExternalAccount))).one()


async def test_creates_both_accounts(client: httpx.AsyncClient, customer: dict[str, Any]) -> None:
    response = await client.post(
        "/v1/customers/external-accounts",
        json=onramp(),
        headers=bearer(customer["access_token"]),
    )
    assert response.status_code == 201, response.text
    body = response.json()
    assert set(body) == {"source", "destination"}
    source, destination = body["source"], body["destination"]
    usd = currency_by_code("USD")
    assert usd is not None
    assert source["type"] == "BANK_ACCOUNT"
    assert destination["type"] == "CRYPTO_ADDRESS"
    assert source["metadata"] == ACH
    assert destination["metadata"] == wallet("USDC_ETHEREUM")
    assert source["currencyId"] == usd.id == source["currency"]["id"]
    assert source["currency"] == {
        "id": usd.id,
        "code": "USD",
        "ticker": "USD",
        "name": usd.name,
        "decimals": 2,
        "type": "FIAT",
        "createdAt": source["currency"]["createdAt"],
        "updatedAt": source["currency"]["updatedAt"],
    }
    assert destination["currency"]["decimals"] == 6
    assert source["customerId"] == destination["customerId"] == customer["id"]
    assert source["label"] is None
    assert source["id"] != destination["id"]
    for account in (source, destination):
        assert set(account) == {
            "id",
            "type",
            "label",
            "metadata",
            "currencyId",
            "currency",
            "customerId",
            "createdAt",
            "updatedAt",
        }
        assert TIMESTAMP.match(account["createdAt"])


async def test_schema_failures_name_every_field_and_store_nothing(
    client: httpx.AsyncClient, customer: dict[str, Any], db: AsyncSession
) -> None:
    source = copy.deepcopy(ACH)
    source["accountIdentifier"]["routingNumber"] = "12AB"
    source["beneficiary"].pop("taxId")
    destination = {**wallet("USDC_ETHEREUM"), "address": "0xnothex"}
    response = await client.post(
        "/v1/customers/external-accounts",
        json=onramp(source=source, destination=destination),
        headers=bearer(customer["access_token"]),
    )
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "SCHEMA_VALIDATION_FAILED"
    pointers = {field["pointer"] for field in body["details"]["fields"]}
    assert pointers == {
        "/source/accountIdentifier/routingNumber",
        "/source/beneficiary/taxId",
        "/destination/address",
    }
    rail = await client.post(
        "/v1/customers/external-accounts",
        json=onramp(source={**ACH, "rails": "CARRIER_PIGEON"}),
        headers=bearer(customer["access_token"]),
    )
    assert [f["pointer"] for f in rail.json()["details"]["fields"]] == ["/source/rails"]
    # A valid destination is not stored alone when the source fails.
    half = await client.post(
        "/v1/customers/external-accounts",
        json=onramp(source={**ACH, "countryCode": "CA"}),
        headers=bearer(customer["access_token"]),
    )
    assert half.status_code == 400
    assert await count_accounts(db) == 0


async def test_currency_must_match_the_route(
    client: httpx.AsyncClient, customer: dict[str, Any]
) -> None:
    response = await client.post(
        "/v1/customers/external-accounts",
        json=onramp(destination={**wallet("USDC_ETHEREUM"), "currency": "USDC_POLYGON"}),
        headers=bearer(customer["access_token"]),
    )
    assert response.status_code == 400
    pointers = [field["pointer"] for field in response.json()["details"]["fields"]]
    assert pointers == ["/destination/currency"]


async def test_unsupported_route_and_bad_body(
    client: httpx.AsyncClient, customer: dict[str, Any]
) -> None:
    headers = bearer(customer["access_token"])
    unsupported = await client.post(
        "/v1/customers/external-accounts", json=onramp(dest="BTC_LIGHTNING"), headers=headers
    )
    assert unsupported.status_code == 400
    assert unsupported.json()["code"] == "UNSUPPORTED_ROUTE"
    missing = await client.post(
        "/v1/customers/external-accounts", json={"src": "USD"}, headers=headers
    )
    assert missing.status_code == 400
    pointers = sorted(f["pointer"] for f in missing.json()["details"]["fields"])
    assert pointers == ["/dest", "/destination", "/source"]


async def test_each_customer_owns_its_accounts(
    client: httpx.AsyncClient, project: ProjectCredentials, db: AsyncSession
) -> None:
    alice = await make_customer(client, project, "alice")
    bob = await make_customer(client, project, "bob")
    for person in (alice, bob):
        response = await client.post(
            "/v1/customers/external-accounts",
            json=onramp(),
            headers=bearer(person["access_token"]),
        )
        assert response.json()["source"]["customerId"] == person["id"]
    owners = (await db.exec(select(ExternalAccount.customer_id))).all()
    assert sorted(owners) == sorted([alice["id"]] * 2 + [bob["id"]] * 2)
