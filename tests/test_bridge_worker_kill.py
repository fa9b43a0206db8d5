"""kill -9 of the worker while Bridge is placing the transfer: a new worker retries the
call with the same Idempotency-Key (our transaction id), so Bridge holds one transfer.

A real `python worker.py` process (service and providers' workers) on a Temporal dev
server of this module's own; the API in-process; Bridge is the simulator."""

from __future__ import annotations

import asyncio
import copy
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession
from temporalio.client import Client

from api.app import create_app
from ramp.config import Settings
from ramp.db.tables import ProviderWebhookEvent
from tests.helpers.payments import ACH, register_accounts, wait_for_intent, wallet
from tests.helpers.processes import WorkerProcesses, worker_environment
from tests.helpers.production import BRIDGE_KEY, connected_project, customer_token, deliver
from tests.helpers.projects import bearer
from tests.helpers.servers import derive_settings, serve
from tests.simulators.bridge import BridgeSimulator, Fault, running

# About a worker process and Bridge's idempotency, not the database: one pass runs it.
pytestmark = pytest.mark.either_database


@pytest.fixture(scope="module")
async def bridge() -> AsyncIterator[BridgeSimulator]:
    async with running(BridgeSimulator(api_keys={BRIDGE_KEY})) as simulator:
        yield simulator


@pytest.fixture(scope="module")
def production(own_settings: Settings) -> Settings:
    return derive_settings(own_settings, RAMP_ENV="production")


@pytest.fixture(scope="module")
async def api(production: Settings) -> AsyncIterator[httpx.AsyncClient]:
    async with serve(create_app(production)) as client:
        yield client


@pytest.fixture
async def workers(
    own_client: Client, production: Settings, tmp_path: Path
) -> AsyncIterator[WorkerProcesses]:
    async with WorkerProcesses(own_client, worker_environment(production), tmp_path) as started:
        yield started


async def test_a_worker_killed_mid_transfer_places_one_transfer(
    api: httpx.AsyncClient,
    db: AsyncSession,
    production: Settings,
    bridge: BridgeSimulator,
    workers: WorkerProcesses,
) -> None:
    first = await workers.start()
    merchant = await connected_project(db, production, bridge)
    token = await customer_token(api, merchant.project, "killed")
    accounts = await register_accounts(
        api, token, "USD", "USDC_ETHEREUM", copy.deepcopy(ACH), wallet("USDC_ETHEREUM")
    )
    opened = await api.post(
        "/v1/intent",
        json={"srcExternalAccountId": accounts[0], "destExternalAccountId": accounts[1],
              "amount": "75.00", "autoExecute": True},
        headers=bearer(token),
    )  # fmt: skip
    assert opened.status_code == 201, opened.text
    intent_id = opened.json()["intent"]["id"]
    await wait_for_intent(
        api, token, intent_id,
        lambda b: all("handoff" in s["metadata"] for s in b["intent"]["compliancePlan"]["steps"]),
        within=30,
    )  # fmt: skip
    [link] = bridge.kyc_links.values()
    bridge.set_kyc(link["id"], kyc_status="approved", tos_status="approved")
    # Bridge creates the transfer, then answers late: the worker dies waiting.
    bridge.fail_next(Fault(delay=10.0, path="/v0/transfers"))
    assert (await deliver(api, bridge, merchant.webhook_path, "kyc_link", link)).status_code == 200
    async with asyncio.timeout(30):
        while True:  # until Bridge has the request (and is holding its answer)
            if bridge.posts("/v0/transfers"):
                break
            await asyncio.sleep(0.05)
    first.kill()
    await first.wait()
    assert len(bridge.transfers) == 1

    await workers.start()
    placed = await wait_for_intent(
        api, token, intent_id, lambda b: b["transaction"] is not None, within=90
    )
    [transfer] = bridge.transfers.values()
    assert placed["transaction"]["providerReference"] == transfer["id"]
    # Retried with the same key, answered with the first transfer: never a second one.
    posts = bridge.posts("/v0/transfers")
    assert len(posts) == 2
    assert {p.idempotency_key for p in posts} == {placed["transaction"]["id"]}

    # With no worker at all, Bridge's next webhook is still answered at once; the
    # intent moves once a worker is back.
    second = workers.started[-1][0]
    second.kill()
    await second.wait()
    bridge.set_state(transfer["id"], "payment_processed")
    async with asyncio.timeout(5):
        answer = await deliver(api, bridge, merchant.webhook_path, "transfer", transfer)
    assert answer.status_code == 200
    await workers.start()
    try:
        done = await wait_for_intent(
            api, token, intent_id, lambda b: b["intent"]["status"] == "COMPLETED", within=90
        )
    except AssertionError:
        # Shown when the test fails: where each stored Bridge event stands.
        for row in (await db.exec(select(ProviderWebhookEvent))).all():
            print("event", row.provider_event_id, row.applied_at, row.attempts, row.last_error)
        raise
    assert done["transaction"]["status"] == "SUCCESS"
