"""`POST /v1/intent/{id}/transaction` while Bridge fails to take the order: the call
waits the workflow's `EXECUTE_WAIT` (20 s) for it, then answers `201` with the
transaction `null`, as documented (docs/decisions.md); the order is placed once Bridge
answers again, and the transaction follows. Before the API's wait outlasted the
workflow's, the same call answered `503 TEMPORARILY_UNAVAILABLE` ("could not reach its
workflow engine") after 15 s, as if the service were down. Real API, real Temporal (the
order's budget as in production), the real Bridge connector against the simulator."""

from __future__ import annotations

import copy
import time
from collections.abc import AsyncIterator

import httpx
import pytest
from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel.ext.asyncio.session import AsyncSession
from temporalio.client import Client

from ramp.config import Settings
from ramp.intents.waits import EXECUTE_WAIT
from tests.helpers.payments import ACH, wait_for_intent, wallet
from tests.helpers.production import (
    BRIDGE_KEY,
    approved_customer,
    connected_project,
    production_stack,
)
from tests.helpers.projects import bearer
from tests.helpers.servers import derive_settings
from tests.simulators.bridge import BridgeSimulator, Fault, running

# The transaction after Bridge is back: the activity's next attempt (its backoff reaches
# 16 s after 20 s of failures), and a loaded machine.
WITHIN = 90.0


@pytest.fixture(scope="module")
async def bridge() -> AsyncIterator[BridgeSimulator]:
    async with running(BridgeSimulator(api_keys={BRIDGE_KEY})) as simulator:
        yield simulator


@pytest.fixture(scope="module")
async def http(
    migrated: Settings, temporal_client: Client, sessions: async_sessionmaker[AsyncSession]
) -> AsyncIterator[httpx.AsyncClient]:
    production = derive_settings(migrated, RAMP_ENV="production")
    async with production_stack(production, temporal_client, sessions) as client:
        yield client


async def test_an_order_bridge_keeps_failing_is_answered_without_its_transaction(
    http: httpx.AsyncClient, db: AsyncSession, migrated: Settings, bridge: BridgeSimulator
) -> None:
    production = derive_settings(migrated, RAMP_ENV="production")
    merchant = await connected_project(db, production, bridge)
    token, intent_id = await approved_customer(
        http, bridge, merchant, "ada-slow", "USD", "USDC_ETHEREUM", copy.deepcopy(ACH),
        wallet("USDC_ETHEREUM"), amount="30.00", auto_execute=False,
    )  # fmt: skip
    await wait_for_intent(
        http, token, intent_id,
        lambda b: b["intent"]["compliancePlan"]["status"] == "COMPLETED", within=WITHIN,
    )  # fmt: skip

    # Bridge answers every transfer 503 (its own outage, retried within the order's
    # budget of two minutes): the call waits for the order, then answers without it.
    bridge.fail_next(Fault(status=503, path="/v0/transfers"), times=1000)
    started = time.monotonic()
    executed = await http.post(f"/v1/intent/{intent_id}/transaction", headers=bearer(token))
    waited = time.monotonic() - started
    assert executed.status_code == 201, executed.text
    assert executed.json()["transaction"] is None
    assert executed.json()["intent"]["id"] == intent_id
    assert waited >= EXECUTE_WAIT.total_seconds() - 1
    assert bridge.transfers == {}

    # Bridge back: the order is placed by the service, once, and the transaction follows.
    bridge.faults.clear()
    placed = await wait_for_intent(
        http, token, intent_id, lambda b: b.get("transaction") is not None, within=WITHIN
    )
    assert placed["transaction"]["status"] == "PENDING"
    assert len(bridge.transfers) == 1
