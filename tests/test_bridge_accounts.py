"""Several accounts of one provider (issue 26): a production project with two Bridge
accounts (two legal entities), both pointing at the Bridge simulator with their own API
keys. Routing picks the account of lower priority; when Bridge fails that account's
calls for its own reasons (5xx for its key only), the intent fails over to the other
Bridge account, keeps its id, and completes there; when the order fails on our side
(the database), it stays with its account. Real API, real Temporal, the service's and
the providers' workers, the real Bridge connector.

A network provider's order is retried for `ORDER_BUDGET` (2 minutes) before the intent
moves on; here the workflow runs unsandboxed with that budget at a few seconds, so the
move comes within the test's time (the move itself is the code that runs in
production)."""

from __future__ import annotations

import asyncio
import copy
from collections.abc import AsyncIterator
from datetime import timedelta

import httpx
import pytest
from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel.ext.asyncio.session import AsyncSession
from temporalio.client import Client
from temporalio.worker import UnsandboxedWorkflowRunner

import worker
import workflows.order_pauses
import workflows.provider_flow
from ramp.config import Settings
from ramp.provider_accounts import service
from ramp.routing.health import Health, account_health
from ramp.security.encryption import SecretBox
from tests.helpers.our_failures import moves_announced, order_statement_failing
from tests.helpers.payments import ACH, register_accounts, wait_for_intent
from tests.helpers.production import (
    BRIDGE_KEY,
    Merchant,
    connected_project,
    customer_token,
    deliver,
    fast_connectors,
    production_stack,
)
from tests.helpers.projects import bearer
from tests.helpers.servers import derive_settings
from tests.simulators.bridge import BridgeSimulator, Fault, running

SECOND_KEY = "sk-test-second-entity-key"
WITHIN = 30.0
BUDGET = timedelta(seconds=4)
# Longer than anything a busy machine adds to an order's answer, so that an ask answered
# only once the pause is over shows (below); each ask ends it.
PAUSE = timedelta(seconds=90)


@pytest.fixture(scope="module")
async def bridge() -> AsyncIterator[BridgeSimulator]:
    async with running(BridgeSimulator(api_keys={BRIDGE_KEY, SECOND_KEY})) as simulator:
        yield simulator


@pytest.fixture(scope="module")
def production(migrated: Settings) -> Settings:
    return derive_settings(migrated, RAMP_ENV="production")


@pytest.fixture(scope="module")
async def http(
    production: Settings,
    temporal_client: Client,
    sessions: async_sessionmaker[AsyncSession],
) -> AsyncIterator[httpx.AsyncClient]:
    with pytest.MonkeyPatch.context() as patch:
        # Unsandboxed, so that the shorter order budget below is the one the workflow reads.
        patch.setattr(worker, "workflow_runner", UnsandboxedWorkflowRunner)
        patch.setattr(workflows.provider_flow, "ORDER_BUDGET", BUDGET)
        # And the pause before an order placed again after a failure of ours.
        patch.setattr(workflows.order_pauses, "ORDER_AGAIN_PAUSE", PAUSE)
        async with production_stack(production, temporal_client, sessions) as client:
            yield client


@pytest.fixture(autouse=True)
def _fresh_bridge(bridge: BridgeSimulator) -> None:
    bridge.reset()


async def two_accounts(
    db: AsyncSession, production: Settings, bridge: BridgeSimulator
) -> tuple[Merchant, Merchant]:
    """A production project with two Bridge accounts: "default" (priority 100), then
    "entity-b" (priority 10, so routed first)."""
    first = await connected_project(db, production, bridge)
    second = await service.set_provider_account(
        db,
        project_id=first.project.project_id,
        provider_code="BRIDGE",
        credentials={"apiKey": SECOND_KEY, "environment": "sandbox", "baseUrl": bridge.url},
        secret_box=SecretBox.from_settings(production),
        public_url=production.public_url,
        connectors=fast_connectors(),
        name="entity-b",
        priority=10,
    )
    return first, Merchant(first.project, second.id, f"/v1/provider-webhooks/{second.id}")


async def open_and_approve(
    http: httpx.AsyncClient, bridge: BridgeSimulator, merchant: Merchant, customer: str
) -> tuple[str, str]:
    """An auto-executed intent of `customer`, on `merchant`'s account, its KYC approved
    by Bridge's webhook; (intent id, customer token)."""
    token = await customer_token(http, merchant.project, customer)
    accounts = await register_accounts(http, token, "USD", "USDC_ETHEREUM", copy.deepcopy(ACH))
    opened = await http.post(
        "/v1/intent",
        json={"srcExternalAccountId": accounts[0], "destExternalAccountId": accounts[1],
              "amount": "100.00", "autoExecute": True},
        headers=bearer(token),
    )  # fmt: skip
    assert opened.status_code == 201, opened.text
    intent_id: str = opened.json()["intent"]["id"]
    assert opened.json()["intent"]["mmPlan"]["providerAccountId"] == merchant.provider_account_id
    await wait_for_intent(
        http, token, intent_id,
        lambda b: all("handoff" in s["metadata"] for s in b["intent"]["compliancePlan"]["steps"]),
        within=WITHIN,
    )  # fmt: skip
    [link] = bridge.kyc_links.values()
    bridge.set_kyc(link["id"], kyc_status="approved", tos_status="approved")
    answer = await deliver(http, bridge, merchant.webhook_path, "kyc_link", link)
    assert answer.status_code == 200, answer.text
    return intent_id, token


async def test_two_bridge_accounts_route_by_priority_and_fail_over_to_each_other(
    http: httpx.AsyncClient, db: AsyncSession, production: Settings, bridge: BridgeSimulator
) -> None:
    first, entity_b = await two_accounts(db, production, bridge)
    second = entity_b.provider_account_id
    # One provider in GET /v1/providers, however many accounts.
    providers = await http.get("/v1/providers", headers=first.project.basic)
    assert [p["code"] for p in providers.json()] == ["BRIDGE"]

    # Bridge fails every transfer of entity-b's key (5xx): its own reasons. The account
    # of lower priority is picked: entity-b.
    bridge.fail_next(Fault(status=503, path="/v0/transfers", api_key=SECOND_KEY), times=100)
    intent_id, token = await open_and_approve(http, bridge, entity_b, "ada")
    assert [r.api_key for r in bridge.posts("/v0/kyc_links")] == [SECOND_KEY]

    # The order fails at entity-b: the intent moves to the other Bridge account, keeps
    # its id, and its order is placed there.
    placed = await wait_for_intent(
        http, token, intent_id, lambda b: b.get("transaction") is not None, within=WITHIN
    )
    plan = placed["intent"]["mmPlan"]
    assert placed["intent"]["id"] == intent_id
    assert plan["providerAccountId"] == first.provider_account_id
    [move] = plan["providerMoves"]
    assert (move["fromProviderCode"], move["toProviderCode"]) == ("BRIDGE", "BRIDGE")
    assert move["fromProviderAccountId"] == second
    assert move["toProviderAccountId"] == first.provider_account_id
    transfers = bridge.posts("/v0/transfers")
    assert {r.api_key for r in transfers} == {SECOND_KEY, BRIDGE_KEY}
    assert transfers[-1].api_key == BRIDGE_KEY
    [transfer] = bridge.transfers.values()

    # Bridge settles it, telling the account that placed it.
    for state in ("funds_received", "payment_processed"):
        bridge.set_state(transfer["id"], state)
        answer = await deliver(http, bridge, first.webhook_path, "transfer", transfer)
        assert answer.status_code == 200, answer.text
    done = await wait_for_intent(
        http, token, intent_id, lambda b: b["intent"]["status"] == "COMPLETED", within=WITHIN
    )
    assert done["transaction"]["status"] == "SUCCESS"

    # Its failures counted against entity-b's health only.
    found = await account_health(db, [second, first.provider_account_id])
    assert found[second].state is not Health.HEALTHY
    assert found[second].consecutive_failures >= 1
    assert found[first.provider_account_id].state is Health.HEALTHY


async def test_an_order_failing_on_our_side_keeps_its_bridge_account(
    http: httpx.AsyncClient,
    db: AsyncSession,
    sessions: async_sessionmaker[AsyncSession],
    production: Settings,
    bridge: BridgeSimulator,
) -> None:
    """The database refuses the order's statement (ours, not Bridge's): the driver places
    it again, each time with its budget, on the same account, whose health is untouched;
    the client reads our failure. Before the patch `internal-order-error-kept` the
    intent moved to the other account after the budget, as in the test above."""
    first, entity_b = await two_accounts(db, production, bridge)
    async with order_statement_failing(sessions):
        intent_id, token = await open_and_approve(http, bridge, entity_b, "grace")
        # Asked for while the order keeps failing: the next failure answers it.
        execute = await http.post(
            f"/v1/intent/{intent_id}/transaction", json={}, headers=bearer(token)
        )
        assert execute.status_code == 503, execute.text
        assert execute.json()["code"] == "TEMPORARILY_UNAVAILABLE"
        assert "internal error of the service" in execute.json()["message"]
        # Asked again at once, as the 503's Retry-After says: answered by an order of
        # its own (one budget), not held until the driver's pause (PAUSE) is over.
        async with asyncio.timeout(PAUSE.total_seconds() / 2):
            again = await http.post(
                f"/v1/intent/{intent_id}/transaction", json={}, headers=bearer(token)
            )
        assert again.status_code == 503, again.text
        assert "internal error of the service" in again.json()["message"]
        # Well past one budget (ORDER_BUDGET, 4 s here): still entity-b's, no move.
        await asyncio.sleep(2 * BUDGET.total_seconds())
        view = await wait_for_intent(http, token, intent_id, lambda b: True)
        assert view["transaction"] is None
        assert view["intent"]["mmPlan"]["providerAccountId"] == entity_b.provider_account_id
        assert view["intent"]["mmPlan"]["providerMoves"] == []
        assert await moves_announced(sessions, intent_id) == 0
        assert bridge.posts("/v0/transfers") == []  # Bridge was never asked

    # The database back, asked again: the ask ends the driver's pause, and the order is
    # placed with entity-b.
    asked = await http.post(f"/v1/intent/{intent_id}/transaction", json={}, headers=bearer(token))
    assert asked.status_code == 201, asked.text
    placed = await wait_for_intent(
        http, token, intent_id, lambda b: b.get("transaction") is not None, within=WITHIN
    )
    assert placed["intent"]["mmPlan"]["providerAccountId"] == entity_b.provider_account_id
    assert placed["intent"]["mmPlan"]["providerMoves"] == []
    assert [r.api_key for r in bridge.posts("/v0/transfers")] == [SECOND_KEY]
    # Neither account was charged for our failure.
    found = await account_health(db, [entity_b.provider_account_id, first.provider_account_id])
    for health in found.values():
        assert (health.state, health.consecutive_failures, health.last_failure) == (
            Health.HEALTHY,
            0,
            None,
        )
