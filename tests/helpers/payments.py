"""Helpers for tests that move money: accounts, intents, onboarding and provider events."""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Callable
from typing import Any

import httpx

from tests.helpers.polling import pauses
from tests.helpers.projects import ProjectCredentials, bearer

ACH: dict[str, Any] = {
    "rails": "ACH",
    "currency": "USD",
    "countryCode": "US",
    "institutionName": "JPMorgan Chase Bank",
    "accountIdentifier": {"routingNumber": "021000021", "accountNumber": "000123456789"},
    "beneficiary": {"name": "Alex Morgan", "taxId": "12-3456789"},
}
WIRE: dict[str, Any] = {
    **ACH,
    "rails": "WIRE",
    "beneficiaryAddress": {
        "line1": "350 Fifth Avenue",
        "city": "New York",
        "region": "NY",
        "postalCode": "10118",
        "country": "US",
    },
}
SEPA: dict[str, Any] = {
    "rails": "SEPA",
    "currency": "EUR",
    "countryCode": "DE",
    "institutionName": "Commerzbank",
    "accountIdentifier": {"iban": "DE89370400440532013000", "bic": "COBADEFFXXX"},
    "beneficiary": {"name": "Alex Morgan", "taxId": "12345678901"},
}
EVM_ADDRESS = "0x742d35Cc6634C0532925a3b844Bc454e4438f44e"
BTC_ADDRESS = "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq"

ATLAS = "sandbox_atlas"
BEACON = "sandbox_beacon"


def wallet(currency: str, address: str = EVM_ADDRESS) -> dict[str, Any]:
    return {"address": address, "currency": currency}


def bank(template: dict[str, Any], **changes: Any) -> dict[str, Any]:
    account = copy.deepcopy(template)
    account.update(changes)
    return account


async def register_accounts(
    client: httpx.AsyncClient,
    token: str,
    src: str = "USD",
    dest: str = "USDC_ETHEREUM",
    source: dict[str, Any] | None = None,
    destination: dict[str, Any] | None = None,
) -> tuple[str, str]:
    """Registers a source/destination pair; returns their ids."""
    response = await client.post(
        "/v1/customers/external-accounts",
        json={
            "src": src,
            "dest": dest,
            "source": source if source is not None else copy.deepcopy(ACH),
            "destination": destination if destination is not None else wallet(dest),
        },
        headers=bearer(token),
    )
    assert response.status_code == 201, response.text
    body = response.json()
    return body["source"]["id"], body["destination"]["id"]


async def create_intent(
    client: httpx.AsyncClient,
    token: str,
    accounts: tuple[str, str],
    amount: str = "100.00",
    headers: dict[str, str] | None = None,
    **fields: Any,
) -> httpx.Response:
    return await client.post(
        "/v1/intent",
        json={
            "srcExternalAccountId": accounts[0],
            "destExternalAccountId": accounts[1],
            "amount": amount,
            **fields,
        },
        headers={**bearer(token), **(headers or {})},
    )


async def get_intent(client: httpx.AsyncClient, token: str, intent_id: str) -> dict[str, Any]:
    response = await client.get(f"/v1/intent/{intent_id}", headers=bearer(token))
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


async def wait_for_intent(
    client: httpx.AsyncClient,
    token: str,
    intent_id: str,
    until: Callable[[dict[str, Any]], bool],
    within: float = 15.0,
) -> dict[str, Any]:
    """Polls GET /intent/{id} (signals are asynchronous) until `until` holds. A 404
    counts as not there yet: an intent a workflow opens by itself (its `open` update
    lost) is projected only when that workflow's task runs, late on a loaded machine.
    At growing pauses (tests/helpers/polling.py)."""
    body: dict[str, Any] = {}
    waits = pauses()
    try:
        async with asyncio.timeout(within):
            while True:
                response = await client.get(f"/v1/intent/{intent_id}", headers=bearer(token))
                if response.status_code != 404:
                    assert response.status_code == 200, response.text
                    body = response.json()
                    if until(body):
                        return body
                await asyncio.sleep(next(waits))
    except TimeoutError:
        raise AssertionError(f"intent never reached the expected state: {body}") from None


def step_status(envelope: dict[str, Any], code: str) -> str:
    steps = envelope["intent"]["compliancePlan"]["steps"]
    return str(next(step["status"] for step in steps if step["code"] == code))


async def step_outcome(
    client: httpx.AsyncClient,
    project: ProjectCredentials,
    intent_id: str,
    code: str,
    outcome: str,
    reason: str | None = None,
) -> httpx.Response:
    body: dict[str, Any] = {"outcome": outcome}
    if reason is not None:
        body["reason"] = reason
    return await client.post(
        f"/v1/sandbox/intents/{intent_id}/compliance-steps/{code}",
        json=body,
        headers=project.basic,
    )


async def complete_onboarding(
    client: httpx.AsyncClient, project: ProjectCredentials, token: str, intent_id: str
) -> dict[str, Any]:
    """Verifies every open step, in the plan's order; returns the final envelope."""
    envelope = await get_intent(client, token, intent_id)
    while envelope["intent"]["compliancePlan"]["currentStepCode"] is not None:
        code = envelope["intent"]["compliancePlan"]["currentStepCode"]
        response = await step_outcome(client, project, intent_id, code, "VERIFIED")
        assert response.status_code == 202, response.text
        envelope = await wait_for_intent(
            client,
            token,
            intent_id,
            lambda body, code=code: step_status(body, code) == "COMPLETED",  # type: ignore[misc]
        )
    return envelope


async def provider_event(
    client: httpx.AsyncClient,
    project: ProjectCredentials,
    transaction_id: str,
    event: str,
    reason: str | None = None,
) -> httpx.Response:
    body: dict[str, Any] = {"type": event}
    if reason is not None:
        body["reason"] = reason
    return await client.post(
        f"/v1/sandbox/transactions/{transaction_id}/events", json=body, headers=project.basic
    )


def onramp(**changes: Any) -> dict[str, Any]:
    body = {
        "src": "USD",
        "dest": "USDC_ETHEREUM",
        "source": copy.deepcopy(ACH),
        "destination": wallet("USDC_ETHEREUM"),
    }
    body.update(changes)
    return body
