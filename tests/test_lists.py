"""GET /v1/customers, /v1/customers/external-accounts and /v1/intents: filters,
pagination, errors and the authorization matrix, through HTTP."""

from __future__ import annotations

import base64
import json
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.catalog import provider_by_code
from ramp.config import Settings
from tests.helpers.payments import ATLAS, BEACON, create_intent, register_accounts
from tests.helpers.projects import ProjectCredentials, bearer, make_customer, make_project


def next_link(response: httpx.Response) -> str | None:
    link = response.headers.get("link")
    if link is None:
        return None
    return str(link).split(";")[0].strip("<>")


async def test_customers_newest_first_filtered_and_paginated(
    client: httpx.AsyncClient, project: ProjectCredentials, db: AsyncSession, migrated: Settings
) -> None:
    made = [await make_customer(client, project, f"user-{n}") for n in range(3)]
    listed = await client.get("/v1/customers", headers=project.basic)
    assert listed.status_code == 200, listed.text
    assert [c["id"] for c in listed.json()] == [c["id"] for c in reversed(made)]
    assert all(c["access_token"] is None for c in listed.json())
    assert listed.json()[0]["projectId"] == project.project_id

    one = await client.get("/v1/customers", params={"id": "user-1"}, headers=project.basic)
    assert [c["id"] for c in one.json()] == [made[1]["id"]]
    none = await client.get("/v1/customers", params={"id": "nobody"}, headers=project.basic)
    assert none.json() == []

    first = await client.get("/v1/customers", params={"limit": "2"}, headers=project.basic)
    assert len(first.json()) == 2
    link = next_link(first)
    assert link is not None
    assert link.startswith("/v1/customers?")
    second = await client.get(link, headers=project.basic)
    assert [c["id"] for c in second.json()] == [made[0]["id"]]
    assert next_link(second) is None

    # The filter is carried into the next page's link.
    await make_customer(client, project, "user-1")  # a retrieve: no second customer
    filtered = await client.get(
        "/v1/customers", params={"id": "user-1", "limit": "1"}, headers=project.basic
    )
    assert len(filtered.json()) == 1
    assert next_link(filtered) is None

    # Another project's customers are not listed.
    other = await make_project(db, migrated, "Other")
    assert (await client.get("/v1/customers", headers=other.basic)).json() == []


async def test_customer_list_errors(
    client: httpx.AsyncClient, project: ProjectCredentials, customer: dict[str, Any]
) -> None:
    assert (await client.get("/v1/customers")).status_code == 401
    wrong = await client.get("/v1/customers", headers=bearer(customer["access_token"]))
    assert wrong.status_code == 401
    assert wrong.json()["code"] == "INVALID_AUTH_SCHEME"
    for params, code in (
        ({"limit": "0"}, "VALIDATION_ERROR"),
        ({"cursor": "nope"}, "INVALID_CURSOR"),
        ({"id": "x" * 201}, "VALIDATION_ERROR"),
    ):
        answer = await client.get("/v1/customers", params=params, headers=project.basic)
        assert answer.status_code == 400, params
        assert answer.json()["code"] == code


async def test_external_accounts_of_the_customer_only(
    client: httpx.AsyncClient, project: ProjectCredentials, customer: dict[str, Any]
) -> None:
    token = customer["access_token"]
    first = await register_accounts(client, token)
    second = await register_accounts(client, token)
    neighbour = await make_customer(client, project, "neighbour")
    await register_accounts(client, neighbour["access_token"])
    listed = await client.get("/v1/customers/external-accounts", headers=bearer(token))
    assert listed.status_code == 200, listed.text
    ids = [account["id"] for account in listed.json()]
    assert sorted(ids) == sorted([*first, *second])
    assert all(a["customerId"] == customer["id"] for a in listed.json())
    assert listed.json()[0]["metadata"]  # the account as registered

    paged = await client.get(
        "/v1/customers/external-accounts", params={"limit": "3"}, headers=bearer(token)
    )
    assert len(paged.json()) == 3
    link = next_link(paged)
    assert link is not None
    rest = await client.get(link, headers=bearer(token))
    assert len(rest.json()) == 1
    assert {a["id"] for a in paged.json()} | {a["id"] for a in rest.json()} == set(ids)

    assert (await client.get("/v1/customers/external-accounts")).status_code == 401
    basic = await client.get("/v1/customers/external-accounts", headers=project.basic)
    assert basic.status_code == 401
    bad = await client.get(
        "/v1/customers/external-accounts", params={"limit": "101"}, headers=bearer(token)
    )
    assert bad.status_code == 400


@pytest.mark.usefixtures("worker")
async def test_intent_search_filters_and_pages(
    client: httpx.AsyncClient,
    project: ProjectCredentials,
    customer: dict[str, Any],
    db: AsyncSession,
    migrated: Settings,
) -> None:
    token = customer["access_token"]
    accounts = await register_accounts(client, token)
    atlas = provider_by_code(ATLAS)
    beacon = provider_by_code(BEACON)
    assert atlas is not None
    assert beacon is not None
    mine = [
        (await create_intent(client, token, accounts, providerId=p.id)).json()["intent"]
        for p in (atlas, beacon, atlas)
    ]
    neighbour = await make_customer(client, project, "neighbour")
    theirs = (
        await create_intent(
            client,
            neighbour["access_token"],
            await register_accounts(client, neighbour["access_token"]),
        )
    ).json()["intent"]

    everything = await client.get("/v1/intents", headers=project.basic)
    assert everything.status_code == 200, everything.text
    assert [e["intent"]["id"] for e in everything.json()] == [
        theirs["id"],
        *[i["id"] for i in reversed(mine)],
    ]

    async def ids(**params: str) -> list[str]:
        answer = await client.get("/v1/intents", params=params, headers=project.basic)
        assert answer.status_code == 200, answer.text
        return [e["intent"]["id"] for e in answer.json()]

    assert await ids(customerId=customer["id"]) == [i["id"] for i in reversed(mine)]
    assert await ids(providerId=beacon.id) == [mine[1]["id"]]
    assert await ids(status="PENDING", customerId=neighbour["id"]) == [theirs["id"]]
    assert await ids(status="COMPLETED,FAILED") == []
    assert await ids(createdFrom=mine[1]["createdAt"], createdTo=theirs["createdAt"]) == [
        mine[2]["id"],
        mine[1]["id"],
    ]
    assert await ids(updatedFrom=theirs["updatedAt"]) == [theirs["id"]]

    first = await client.get(
        "/v1/intents", params={"customerId": customer["id"], "limit": "2"}, headers=project.basic
    )
    link = next_link(first)
    assert link is not None
    assert parse_qs(urlsplit(link).query)["customerId"] == [customer["id"]]
    second = await client.get(link, headers=project.basic)
    assert [e["intent"]["id"] for e in second.json()] == [mine[0]["id"]]

    # Another project sees none of them.
    other = await make_project(db, migrated, "Other")
    assert (await client.get("/v1/intents", headers=other.basic)).json() == []


async def test_intent_search_errors(
    client: httpx.AsyncClient, project: ProjectCredentials, customer: dict[str, Any]
) -> None:
    assert (await client.get("/v1/intents")).status_code == 401
    wrong = await client.get("/v1/intents", headers=bearer(customer["access_token"]))
    assert wrong.status_code == 401
    for params in (
        {"status": "DONE"},
        {"status": "PENDING,"},
        {"createdFrom": "yesterday"},
        {"createdFrom": "2026-03-29T10:05:00"},  # no time zone
        {"createdFrom": "2026-03-29T10:05:00Z", "createdTo": "2026-03-29T10:05:00Z"},
        {"limit": "1000"},
        {"cursor": "abc"},
    ):
        answer = await client.get("/v1/intents", params=params, headers=project.basic)
        assert answer.status_code == 400, (params, answer.text)
        assert answer.json()["statusCode"] == 400


def _cursor_of(response: httpx.Response) -> str:
    link = next_link(response)
    assert link is not None, response.text
    return parse_qs(urlsplit(link).query)["cursor"][0]


async def test_cursors_are_signed_and_bound_to_their_list(
    client: httpx.AsyncClient, project: ProjectCredentials, db: AsyncSession, migrated: Settings
) -> None:
    """Issue 23: cursors were unsigned base64 JSON; a crafted one was accepted, and a
    /customers cursor paged /intents."""
    customers = [await make_customer(client, project, f"cursor-{n}") for n in range(3)]
    first = await client.get("/v1/customers", params={"limit": "1"}, headers=project.basic)
    cursor = _cursor_of(first)
    second = await client.get(
        "/v1/customers", params={"limit": "1", "cursor": cursor}, headers=project.basic
    )
    assert second.status_code == 200, second.text
    assert [c["id"] for c in second.json()] == [customers[1]["id"]]

    position, _, signature = cursor.partition(".")
    crafted = base64.urlsafe_b64encode(
        json.dumps(["9999-12-31T23:59:59+14:00", customers[0]["id"]]).encode()
    )
    other = await make_project(db, migrated, "Cursor thief")
    for path, params, headers in (
        # The position is its own, the signature not.
        ("/v1/customers", {"cursor": crafted.decode().rstrip("=")}, project.basic),
        ("/v1/customers", {"cursor": f"{crafted.decode().rstrip('=')}.{signature}"}, project.basic),
        ("/v1/customers", {"cursor": position}, project.basic),
        ("/v1/customers", {"cursor": f"{position}.{'0' * 64}"}, project.basic),
        # Another list of the same project, and the same list of another project.
        ("/v1/intents", {"cursor": cursor}, project.basic),
        ("/v1/webhooks/deliveries", {"cursor": cursor}, project.basic),
        ("/v1/customers", {"cursor": cursor}, other.basic),
        (
            "/v1/intent",
            {"cursor": cursor},
            bearer(customers[0]["access_token"]),
        ),
    ):
        refused = await client.get(path, params=params, headers=headers)
        assert refused.status_code == 400, (path, params, refused.text)
        assert refused.json()["code"] == "INVALID_CURSOR", (path, params)
