"""One-call intents: `POST /intent` with its source and destination accounts inline.

Over HTTP against the app, with the session's real Temporal and worker and the real
database: the pair is registered as `POST /customers/external-accounts` registers it,
a retry with the same Idempotency-Key makes no second pair nor intent, and errors point
into the inline accounts.
"""

from __future__ import annotations

import asyncio
import copy
from typing import Any

import httpx
import pytest
from sqlmodel import col, func, select
from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.db.tables import ExternalAccount, IntentRow
from tests.helpers.openapi import conforms
from tests.helpers.payments import ACH, bank, wallet
from tests.helpers.projects import bearer

pytestmark = pytest.mark.usefixtures("worker")


def one_call(**changes: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "src": "USD",
        "dest": "USDC_ETHEREUM",
        "source": copy.deepcopy(ACH),
        "destination": wallet("USDC_ETHEREUM"),
        "amount": "100.00",
    }
    body.update(changes)
    return body


async def _post(
    client: httpx.AsyncClient, token: str, body: dict[str, Any], key: str | None = None
) -> httpx.Response:
    headers = {**bearer(token), **({"Idempotency-Key": key} if key else {})}
    return await client.post("/v1/intent", json=body, headers=headers)


async def _count(db: AsyncSession, table: Any, customer_id: str) -> int:
    query = select(func.count()).select_from(table).where(col(table.customer_id) == customer_id)
    return int((await db.exec(query)).one())


async def test_an_intent_with_its_accounts_inline_registers_the_pair_and_answers_as_by_id(
    client: httpx.AsyncClient, customer: dict[str, Any], db: AsyncSession
) -> None:
    token = customer["access_token"]
    response = await _post(client, token, one_call(label="order-7"))
    assert response.status_code == 201, response.text
    envelope = response.json()
    conforms((await client.get("/v1/openapi.json")).json(), "IntentEnvelope", envelope)
    intent = envelope["intent"]
    assert intent["src"]["metadata"] == ACH
    assert intent["dest"]["metadata"] == wallet("USDC_ETHEREUM")
    assert intent["src"]["currency"]["code"] == "USD"
    assert intent["transferAmount"]["amount"] == "100.00"
    assert intent["label"] == "order-7"
    # The pair is the customer's, as if registered by POST /customers/external-accounts.
    listed = await client.get("/v1/customers/external-accounts", headers=bearer(token))
    assert {account["id"] for account in listed.json()} == {
        intent["src"]["id"],
        intent["dest"]["id"],
    }
    # It can be used by id afterwards, as any registered pair.
    again = await client.post(
        "/v1/intent",
        json={
            "srcExternalAccountId": intent["src"]["id"],
            "destExternalAccountId": intent["dest"]["id"],
            "amount": "50.00",
        },
        headers=bearer(token),
    )
    assert again.status_code == 201, again.text
    assert await _count(db, ExternalAccount, customer["id"]) == 2


async def test_a_retry_with_the_same_key_makes_one_pair_and_one_intent(
    client: httpx.AsyncClient, customer: dict[str, Any], db: AsyncSession
) -> None:
    token = customer["access_token"]
    answers = await asyncio.gather(
        *(_post(client, token, one_call(), "one-call-1") for _ in range(3))
    )
    assert [answer.status_code for answer in answers] == [201, 201, 201], answers[0].text
    assert len({answer.json()["intent"]["id"] for answer in answers}) == 1
    assert sorted(answer.headers.get("Idempotent-Replayed") or "" for answer in answers) == [
        "",
        "true",
        "true",
    ]
    later = await _post(client, token, one_call(), "one-call-1")
    assert later.status_code == 201
    assert later.headers["Idempotent-Replayed"] == "true"
    assert await _count(db, ExternalAccount, customer["id"]) == 2
    assert await _count(db, IntentRow, customer["id"]) == 1
    # The same key with other accounts, or another amount, is another request: refused
    # before anything is stored.
    other_account = one_call(source=bank(ACH, institutionName="Other Bank"))
    for body in (other_account, one_call(amount="200.00")):
        refused = await _post(client, token, body, "one-call-1")
        assert refused.status_code == 422, refused.text
        assert refused.json()["code"] == "IDEMPOTENCY_KEY_REUSED"
    assert await _count(db, ExternalAccount, customer["id"]) == 2
    # Another key, the same accounts: a second pair, as two registrations would make.
    assert (await _post(client, token, one_call(), "one-call-2")).status_code == 201
    assert await _count(db, ExternalAccount, customer["id"]) == 4


async def test_errors_name_the_inline_field_and_store_nothing(
    client: httpx.AsyncClient, customer: dict[str, Any], db: AsyncSession
) -> None:
    token = customer["access_token"]
    source = bank(ACH, accountIdentifier={"routingNumber": "12", "accountNumber": "000123456789"})
    refused = await _post(client, token, one_call(source=source))
    assert refused.status_code == 400, refused.text
    error = refused.json()
    assert error["code"] == "SCHEMA_VALIDATION_FAILED"
    pointers = [field["pointer"] for field in error["details"]["fields"]]
    assert pointers == ["/source/accountIdentifier/routingNumber"]
    # The same body to POST /customers/external-accounts says the same.
    registered = await client.post(
        "/v1/customers/external-accounts",
        json={
            key: one_call(source=source)[key] for key in ("src", "dest", "source", "destination")
        },
        headers=bearer(token),
    )
    assert registered.json()["details"] == error["details"]
    # Form errors point into the inline body too; mixing both forms names the stray field.
    missing = await _post(client, token, one_call(destination="0xabc"))
    assert missing.status_code == 400
    assert missing.json()["details"]["fields"][0]["pointer"] == "/destination"
    mixed = await _post(client, token, one_call(srcExternalAccountId="x"))
    assert mixed.status_code == 400
    assert [f["pointer"] for f in mixed.json()["details"]["fields"]] == ["/srcExternalAccountId"]
    unsupported = await _post(client, token, one_call(dest="USD"))
    assert unsupported.json()["code"] == "UNSUPPORTED_ROUTE"
    off_origin = await _post(client, token, one_call(onboardingRedirectUrl="https://evil.test/"))
    assert off_origin.json()["code"] == "REDIRECT_URL_NOT_ALLOWED"
    not_an_amount = await _post(client, token, one_call(amount="ten"))
    assert not_an_amount.json()["code"] == "AMOUNT_VALIDATION_ERROR"
    assert await _count(db, ExternalAccount, customer["id"]) == 0
    assert await _count(db, IntentRow, customer["id"]) == 0
    # Refused by the intent itself (too many decimals for USD): the pair stays registered,
    # as after POST /customers/external-accounts, and a retry with the key reuses it.
    for _ in range(2):
        bad_amount = await _post(client, token, one_call(amount="1.234"), "one-call-fix")
        assert bad_amount.json()["code"] == "AMOUNT_VALIDATION_ERROR"
    assert await _count(db, ExternalAccount, customer["id"]) == 2
    assert await _count(db, IntentRow, customer["id"]) == 0
