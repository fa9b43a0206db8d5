"""Idempotency-Key on every creating POST: replays, another body, concurrency, scope,
refusals that store nothing, and the 24-hour purge. Through HTTP and the database."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

import httpx
import pytest
from sqlalchemy import update
from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from activities.housekeeping import HousekeepingActivities
from ramp.db.tables import ExternalAccount, IdempotencyRecord, WebhookEndpoint
from ramp.db.types import utcnow
from ramp.housekeeping import NoncePurge
from ramp.security.encryption import SecretBox
from tests.helpers.payments import ACH, create_intent, register_accounts, wallet
from tests.helpers.projects import ProjectCredentials, bearer, make_customer, make_project

pytestmark = pytest.mark.usefixtures("worker")

REPLAYED = ("Idempotent-Replayed", "X-Idempotency-Replayed")


def is_replay(response: httpx.Response) -> bool:
    marks = {response.headers.get(name) for name in REPLAYED}
    assert len(marks) == 1, response.headers  # both headers, or neither
    return marks == {"true"}


def pair(dest: str = "USDC_ETHEREUM") -> dict[str, Any]:
    return {"src": "USD", "dest": dest, "source": ACH, "destination": wallet(dest)}


async def post_accounts(
    client: httpx.AsyncClient, token: str, key: str | None, body: dict[str, Any]
) -> httpx.Response:
    headers = {**bearer(token), **({"Idempotency-Key": key} if key else {})}
    return await client.post("/v1/customers/external-accounts", json=body, headers=headers)


async def test_a_retry_replays_the_stored_response_and_creates_nothing(
    client: httpx.AsyncClient, customer: dict[str, Any], db: AsyncSession
) -> None:
    token = customer["access_token"]
    first = await post_accounts(client, token, "accounts-1", pair())
    assert first.status_code == 201, first.text
    assert not is_replay(first)
    again = await post_accounts(client, token, "accounts-1", pair())
    assert again.status_code == 201
    assert is_replay(again)
    assert again.json() == first.json()
    assert again.headers["content-type"] == first.headers["content-type"]
    # Key order and spacing are not another request.
    reordered = await client.post(
        "/v1/customers/external-accounts",
        content=b'{"destination": {"currency": "USDC_ETHEREUM", "address": "'
        + wallet("USDC_ETHEREUM")["address"].encode()
        + b'"}, "dest": "USDC_ETHEREUM", "source": '
        + httpx.Response(200, json=ACH).content
        + b', "src": "USD"}',
        headers={
            **bearer(token),
            "Idempotency-Key": "accounts-1",
            "Content-Type": "application/json",
        },
    )
    assert reordered.status_code == 201, reordered.text
    assert is_replay(reordered)
    rows = (await db.exec(select(ExternalAccount))).all()
    assert len(rows) == 2
    # Without a key every request creates.
    assert (await post_accounts(client, token, None, pair())).status_code == 201
    assert len((await db.exec(select(ExternalAccount))).all()) == 4


async def test_the_same_key_with_another_request_is_422(
    client: httpx.AsyncClient, customer: dict[str, Any], project: ProjectCredentials
) -> None:
    token = customer["access_token"]
    assert (await post_accounts(client, token, "k", pair())).status_code == 201
    other = await post_accounts(client, token, "k", pair("USDC_POLYGON"))
    assert other.status_code == 422
    assert other.json()["code"] == "IDEMPOTENCY_KEY_REUSED"
    assert other.json()["statusCode"] == 422
    # Another endpoint with the same key is another request too.
    customers = await client.post(
        "/v1/webhooks/endpoints",
        json={"url": "https://example.com/hook"},
        headers={**project.basic, "Idempotency-Key": "k"},
    )
    assert customers.status_code == 201  # another scope (the project): a new key there


async def test_keys_are_scoped_to_the_caller(
    client: httpx.AsyncClient,
    customer: dict[str, Any],
    project: ProjectCredentials,
    db: AsyncSession,
    migrated: Any,
) -> None:
    other_customer = await make_customer(client, project, "user-2")
    one = await post_accounts(client, customer["access_token"], "shared", pair())
    two = await post_accounts(client, other_customer["access_token"], "shared", pair())
    assert one.status_code == two.status_code == 201
    assert not is_replay(two)
    assert one.json()["source"]["id"] != two.json()["source"]["id"]
    # Projects too.
    stranger = await make_project(db, migrated, "Another project")
    body = {"url": "https://example.com/a"}
    mine = await client.post(
        "/v1/webhooks/endpoints", json=body, headers={**project.basic, "Idempotency-Key": "e"}
    )
    theirs = await client.post(
        "/v1/webhooks/endpoints", json=body, headers={**stranger.basic, "Idempotency-Key": "e"}
    )
    assert mine.status_code == theirs.status_code == 201
    assert not is_replay(theirs)
    assert mine.json()["id"] != theirs.json()["id"]


async def test_concurrent_requests_with_one_key_execute_once(
    client: httpx.AsyncClient, project: ProjectCredentials, db: AsyncSession
) -> None:
    answers = await asyncio.gather(
        *(
            client.post(
                "/v1/webhooks/endpoints",
                json={"url": "https://example.com/burst"},
                headers={**project.basic, "Idempotency-Key": "burst"},
            )
            for _ in range(8)
        )
    )
    assert [a.status_code for a in answers] == [201] * 8, [a.text for a in answers]
    assert sorted(is_replay(a) for a in answers) == [False] + [True] * 7
    assert len({a.json()["id"] for a in answers}) == 1
    assert len((await db.exec(select(WebhookEndpoint))).all()) == 1


async def test_a_refusal_stores_nothing_and_the_retry_runs_again(
    client: httpx.AsyncClient, project: ProjectCredentials, db: AsyncSession
) -> None:
    headers = {**project.basic, "Idempotency-Key": "refused"}
    bad = await client.post(
        "/v1/webhooks/endpoints", json={"url": "ftp://example.com"}, headers=headers
    )
    assert bad.status_code == 400
    assert (await db.exec(select(IdempotencyRecord))).all() == []
    good = await client.post(
        "/v1/webhooks/endpoints", json={"url": "ftp://example.com"}, headers=headers
    )
    assert good.status_code == 400  # the same request is refused again, not replayed
    assert not is_replay(good)


async def test_customers_and_transactions_replay(
    client: httpx.AsyncClient, project: ProjectCredentials, customer: dict[str, Any]
) -> None:
    headers = {**project.basic, "Idempotency-Key": "customer-7"}
    created = await client.post("/v1/customers", json={"id": "user-7"}, headers=headers)
    replayed = await client.post("/v1/customers", json={"id": "user-7"}, headers=headers)
    assert created.status_code == replayed.status_code == 201
    assert is_replay(replayed)
    assert replayed.json() == created.json()

    token = customer["access_token"]
    accounts = await register_accounts(client, token)
    intent = await create_intent(client, token, accounts)
    intent_id = intent.json()["intent"]["id"]
    # Compliance is not complete: a refusal, stored nowhere; a retry is refused again.
    path = f"/v1/intent/{intent_id}/transaction"
    key = {**bearer(token), "Idempotency-Key": "execute-1"}
    refused = await client.post(path, headers=key)
    assert refused.status_code == 400
    assert refused.json()["code"] == "COMPLIANCE_NOT_COMPLETE"
    assert not is_replay(await client.post(path, headers=key))


async def test_post_intent_answers_422_for_another_body_and_marks_replays(
    client: httpx.AsyncClient, customer: dict[str, Any]
) -> None:
    token = customer["access_token"]
    accounts = await register_accounts(client, token)
    key = {"Idempotency-Key": "intent-1"}
    first = await create_intent(client, token, accounts, headers=key)
    again = await create_intent(client, token, accounts, headers=key)
    assert first.status_code == again.status_code == 201
    assert not is_replay(first)
    assert is_replay(again)
    other = await create_intent(client, token, accounts, amount="7.00", headers=key)
    assert other.status_code == 422
    assert other.json()["code"] == "IDEMPOTENCY_KEY_REUSED"


async def test_a_bad_key_is_400(client: httpx.AsyncClient, project: ProjectCredentials) -> None:
    answer = await client.post(
        "/v1/webhooks/endpoints",
        json={"url": "https://example.com/x"},
        headers={**project.basic, "Idempotency-Key": "x" * 256},
    )
    assert answer.status_code == 400
    assert answer.json()["code"] == "INVALID_IDEMPOTENCY_KEY"


async def test_a_key_needs_authentication_first(client: httpx.AsyncClient) -> None:
    answer = await client.post(
        "/v1/webhooks/endpoints",
        json={"url": "https://example.com/x"},
        headers={"Idempotency-Key": "anonymous"},
    )
    assert answer.status_code == 401


async def test_a_dead_claim_is_taken_over_after_its_lease(
    client: httpx.AsyncClient, project: ProjectCredentials, db: AsyncSession
) -> None:
    headers = {**project.basic, "Idempotency-Key": "orphan"}
    body = {"url": "https://example.com/orphan"}
    first = await client.post("/v1/webhooks/endpoints", json=body, headers=headers)
    assert first.status_code == 201
    # As a request that died mid-way leaves it: claimed, no response, lease run out.
    await db.exec(
        update(IdempotencyRecord)
        .where(col(IdempotencyRecord.key) == "orphan")
        .values(
            {
                col(IdempotencyRecord.response_status): None,
                col(IdempotencyRecord.locked_until): utcnow() - timedelta(seconds=1),
            }
        )
    )
    await db.commit()
    taken = await client.post("/v1/webhooks/endpoints", json=body, headers=headers)
    assert taken.status_code == 201
    assert not is_replay(taken)


async def test_records_are_purged_after_24_hours_by_housekeeping(
    client: httpx.AsyncClient,
    project: ProjectCredentials,
    db: AsyncSession,
    sessions: async_sessionmaker[AsyncSession],
    secret_box: SecretBox,
) -> None:
    for key in ("old", "new"):
        answer = await client.post(
            "/v1/webhooks/endpoints",
            json={"url": f"https://example.com/{key}"},
            headers={**project.basic, "Idempotency-Key": key},
        )
        assert answer.status_code == 201
    await db.exec(
        update(IdempotencyRecord)
        .where(col(IdempotencyRecord.key) == "old")
        .values({col(IdempotencyRecord.created_at): utcnow() - timedelta(hours=24, seconds=1)})
    )
    await db.commit()
    await HousekeepingActivities(sessions, secret_box).purge_expired_nonces(NoncePurge())
    db.expire_all()
    left = (await db.exec(select(IdempotencyRecord.key))).all()
    assert left == ["new"]
