"""Production through Bridge on Temporal's time-skipping server, for what takes time:
a lost webhook recovered by the poll, a provider outage longer than the intent's
lifetime, credentials the provider stops accepting and that the owner then rotates.

The API, both workers and the Bridge connector are real; Bridge is the simulator; the
test server skips the hours in between (`env.sleep`)."""

from __future__ import annotations

import asyncio
import contextlib
import copy
from collections.abc import AsyncIterator
from datetime import timedelta
from typing import Any

import httpx
import pytest
from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel.ext.asyncio.session import AsyncSession
from temporalio.client import Client
from temporalio.service import RPCError
from temporalio.testing import WorkflowEnvironment

from ramp import temporal
from ramp.config import Settings
from ramp.db.tables import ProviderAccount
from ramp.provider_accounts import service
from ramp.security.encryption import SecretBox
from tests.helpers.payments import ACH, register_accounts, wait_for_intent, wallet
from tests.helpers.production import (
    BRIDGE_KEY,
    Merchant,
    connected_project,
    customer_token,
    fast_connectors,
    production_stack,
)
from tests.helpers.projects import bearer
from tests.helpers.servers import derive_settings, service_client, skip_time, time_skipping_server
from tests.simulators.bridge import BridgeSimulator, Fault, running

# About time: polls, an outage and refused credentials over hours the test server skips,
# not the database (its rows are those tests/test_bridge_production.py writes in both
# passes): one of the two passes runs it.
pytestmark = pytest.mark.either_database

WITHIN = 30.0


@pytest.fixture(scope="module")
async def bridge() -> AsyncIterator[BridgeSimulator]:
    async with running(BridgeSimulator(api_keys={BRIDGE_KEY})) as simulator:
        yield simulator


@pytest.fixture(autouse=True)
def _fresh(bridge: BridgeSimulator) -> None:
    bridge.reset()
    bridge.api_keys.clear()
    bridge.api_keys.add(BRIDGE_KEY)


@pytest.fixture(scope="module")
async def skipping_env() -> AsyncIterator[WorkflowEnvironment]:
    async with time_skipping_server() as env:
        yield env


@pytest.fixture(scope="module")
def production(migrated: Settings, skipping_env: WorkflowEnvironment) -> Settings:
    address = skipping_env.client.service_client.config.target_host
    # Intents live 3 hours here: long enough for the polls, short for the outage.
    return derive_settings(
        migrated, RAMP_ENV="production", TEMPORAL_ADDRESS=address, RAMP_INTENT_LIFETIME="10800"
    )


@pytest.fixture(scope="module")
async def http(
    production: Settings,
    skipping_env: WorkflowEnvironment,
    sessions: async_sessionmaker[AsyncSession],
) -> AsyncIterator[httpx.AsyncClient]:
    async with production_stack(production, service_client(skipping_env), sessions) as client:
        yield client


@pytest.fixture
async def opened(skipping_env: WorkflowEnvironment) -> AsyncIterator[list[str]]:
    """Intents a test opens: terminated at its end, so none wakes in another test."""
    intent_ids: list[str] = []
    yield intent_ids
    client: Client = service_client(skipping_env)
    for intent_id in intent_ids:
        handle = client.get_workflow_handle(f"intent-{intent_id}")
        with contextlib.suppress(RPCError):  # already ended
            await handle.terminate("test over")


async def _open(
    http: httpx.AsyncClient, merchant: Merchant, opened: list[str], name: str
) -> tuple[str, str]:
    token = await customer_token(http, merchant.project, name)
    accounts = await register_accounts(http, token, "USD", "USDC_ETHEREUM", copy.deepcopy(ACH))
    response = await http.post(
        "/v1/intent",
        json={
            "srcExternalAccountId": accounts[0],
            "destExternalAccountId": accounts[1],
            "amount": "250.00",
            "autoExecute": True,
        },
        headers=bearer(token),
    )
    assert response.status_code == 201, response.text
    intent_id: str = response.json()["intent"]["id"]
    opened.append(intent_id)
    return token, intent_id


def _linked(body: dict[str, Any]) -> bool:
    steps = body["intent"]["compliancePlan"]["steps"]
    return all("handoff" in step["metadata"] for step in steps)


async def test_a_lost_webhook_is_recovered_by_the_poll(
    http: httpx.AsyncClient,
    db: AsyncSession,
    production: Settings,
    bridge: BridgeSimulator,
    skipping_env: WorkflowEnvironment,
    opened: list[str],
) -> None:
    merchant = await connected_project(db, production, bridge)
    token, intent_id = await _open(http, merchant, opened, "polled")
    await wait_for_intent(http, token, intent_id, _linked, within=WITHIN)
    [link] = bridge.kyc_links.values()
    # Approved at Bridge; the webhook never comes.
    bridge.set_kyc(link["id"], kyc_status="approved", tos_status="approved")
    await skip_time(skipping_env, timedelta(minutes=4))
    placed = await wait_for_intent(
        http, token, intent_id, lambda b: b.get("transaction") is not None, within=WITHIN
    )
    assert placed["intent"]["compliancePlan"]["status"] == "COMPLETED"
    [transfer] = bridge.transfers.values()
    bridge.set_state(transfer["id"], "payment_processed")
    await skip_time(skipping_env, timedelta(minutes=4))
    done = await wait_for_intent(
        http, token, intent_id, lambda b: b["intent"]["status"] == "COMPLETED", within=WITHIN
    )
    assert done["transaction"]["status"] == "SUCCESS"
    assert len(bridge.posts("/v0/transfers")) == 1


async def test_an_outage_longer_than_the_intents_life_expires_it(
    http: httpx.AsyncClient,
    db: AsyncSession,
    production: Settings,
    bridge: BridgeSimulator,
    skipping_env: WorkflowEnvironment,
    opened: list[str],
) -> None:
    merchant = await connected_project(db, production, bridge)
    token, intent_id = await _open(http, merchant, opened, "outage")
    await wait_for_intent(http, token, intent_id, _linked, within=WITHIN)
    [link] = bridge.kyc_links.values()
    bridge.set_kyc(link["id"], kyc_status="approved", tos_status="approved")
    # Bridge answers 503 to every transfer from now on, asking for ten minutes' rest:
    # longer than a failover's budget for one order (ORDER_BUDGET, two minutes).
    bridge.fail_next(Fault(status=503, retry_after="600", path="/v0/transfers"), times=10_000)
    await skip_time(skipping_env, timedelta(minutes=4))
    # Placed once, then left alone as asked (before, placed again at once, without end).
    assert len(bridge.posts("/v0/transfers")) == 1
    for _ in range(7):  # three hours and a half, in steps the test server takes
        await skip_time(skipping_env, timedelta(minutes=30))
    ended = await wait_for_intent(
        http, token, intent_id, lambda b: b["intent"]["status"] == "EXPIRED", within=WITHIN
    )
    assert ended["transaction"] is None
    # Retried through the whole lifetime, never given up on earlier, each time after the
    # ten minutes Bridge asked for: 18 attempts in the intent's 3 hours, as a rule. At
    # most one per ten minutes of the 214 the test skips: once in a full run the
    # time-skipping test server retried one order's activity every ten minutes past its
    # two-minute budget to the test's end (22 attempts; not seen in six runs alone).
    # Without the pause it was more than a thousand.
    posts = bridge.posts("/v0/transfers")
    assert 15 <= len(posts) <= 22, len(posts)
    assert bridge.transfers == {}


async def test_rejected_credentials_take_the_account_out_until_rotated(
    http: httpx.AsyncClient,
    db: AsyncSession,
    production: Settings,
    bridge: BridgeSimulator,
    skipping_env: WorkflowEnvironment,
    opened: list[str],
) -> None:
    merchant = await connected_project(db, production, bridge)
    token, intent_id = await _open(http, merchant, opened, "rotated")
    await wait_for_intent(http, token, intent_id, _linked, within=WITHIN)
    [link] = bridge.kyc_links.values()
    bridge.set_kyc(link["id"], kyc_status="approved", tos_status="approved")
    # The key is revoked at Bridge before the transfer.
    bridge.api_keys.clear()
    await skip_time(skipping_env, timedelta(minutes=4))
    account = await _account(db, merchant)
    assert account.status == "UNHEALTHY"
    assert "rejected the API key" in (account.status_reason or "")
    # Out of routing: the project serves nothing until the owner acts.
    listed = await http.get("/v1/providers", headers=merchant.project.basic)
    assert listed.json() == []
    other = await customer_token(http, merchant.project, "newcomer")
    refused = await http.post(
        "/v1/customers/external-accounts",
        json={"src": "USD", "dest": "USDC_ETHEREUM", "source": copy.deepcopy(ACH),
              "destination": wallet("USDC_ETHEREUM")},
        headers=bearer(other),
    )  # fmt: skip
    assert refused.status_code == 400
    assert refused.json()["code"] == "UNSUPPORTED_ROUTE"

    # The owner sets the rotated key: healthy again, and the waiting intent goes on.
    bridge.api_keys.add("sk-test-rotated-key")
    await service.set_provider_account(
        db,
        project_id=merchant.project.project_id,
        provider_code="BRIDGE",
        credentials={"apiKey": "sk-test-rotated-key", "environment": "sandbox",
                     "baseUrl": bridge.url},
        secret_box=SecretBox.from_settings(production),
        public_url=production.public_url,
        connectors=fast_connectors(),
    )  # fmt: skip
    assert (await _account(db, merchant)).status == "HEALTHY"
    await skip_time(skipping_env, timedelta(minutes=3))
    placed = await wait_for_intent(
        http, token, intent_id, lambda b: b.get("transaction") is not None, within=WITHIN
    )
    assert placed["intent"]["status"] == "PROCESSING"
    assert [r.api_key for r in bridge.posts("/v0/transfers")][-1] == "sk-test-rotated-key"


async def _account(db: AsyncSession, merchant: Merchant) -> ProviderAccount:
    account = await db.get(ProviderAccount, merchant.provider_account_id)
    assert account is not None
    await db.refresh(account)
    return account


async def test_a_deposit_after_an_unconfirmed_void_is_an_unmatched_deposit(
    http: httpx.AsyncClient,
    db: AsyncSession,
    production: Settings,
    bridge: BridgeSimulator,
    skipping_env: WorkflowEnvironment,
    opened: list[str],
) -> None:
    merchant = await connected_project(db, production, bridge)
    token, intent_id = await _open(http, merchant, opened, "late-payer")
    await wait_for_intent(http, token, intent_id, _linked, within=WITHIN)
    [link] = bridge.kyc_links.values()
    bridge.set_kyc(link["id"], kyc_status="approved", tos_status="approved")
    await skip_time(skipping_env, timedelta(minutes=4))
    await wait_for_intent(http, token, intent_id, lambda b: b["transaction"] is not None)
    [transfer] = bridge.transfers.values()
    # Bridge is down when the intent expires: the void cannot be confirmed.
    bridge.fail_next(Fault(status=503, path=f"/v0/transfers/{transfer['id']}"), times=10_000)
    for _ in range(7):
        await skip_time(skipping_env, timedelta(minutes=30))
    expired = await wait_for_intent(
        http, token, intent_id, lambda b: b["intent"]["status"] == "EXPIRED", within=WITHIN
    )
    assert expired["transaction"]["status"] == "CANCELLED"
    # Back, Bridge reports the payer's money after all: an unmatched deposit.
    bridge.faults.clear()
    bridge.set_state(transfer["id"], "funds_received")
    client = service_client(skipping_env)
    handle = client.get_workflow_handle(f"intent-{intent_id}")
    for _ in range(4):
        await skip_time(skipping_env, timedelta(minutes=30))
    async with asyncio.timeout(WITHIN):
        while True:
            described = await handle.describe()
            if described.typed_search_attributes.get(temporal.MONEY_ISSUE) is not None:
                break
            await asyncio.sleep(0.1)
    assert described.typed_search_attributes.get(temporal.MONEY_ISSUE) == "UNMATCHED_DEPOSIT"
    # The intent stays EXPIRED; the money is for an operator to refund.
    after = await wait_for_intent(http, token, intent_id, lambda b: True)
    assert after["intent"]["status"] == "EXPIRED"
