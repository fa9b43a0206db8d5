"""The provider poll's schedule is a setting (RAMP_PROVIDER_POLL_FIRST / _MAX): with a
short one, a lost Bridge webhook is recovered within seconds on a real Temporal server
(the default, 3 minutes, needs the time-skipping server of test_bridge_polling.py)."""

from __future__ import annotations

import copy
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel.ext.asyncio.session import AsyncSession
from temporalio.client import Client

from ramp.config import Settings
from ramp.intents.models import PollSchedule
from tests.helpers.payments import ACH, register_accounts, wait_for_intent
from tests.helpers.production import (
    BRIDGE_KEY,
    connected_project,
    customer_token,
    production_stack,
)
from tests.helpers.projects import bearer
from tests.helpers.servers import derive_settings
from tests.simulators.bridge import BridgeSimulator, running

# Far below the default first poll (180 s): only the shortened schedule gets there.
WITHIN = 60.0


@pytest.fixture(scope="module")
async def bridge() -> AsyncIterator[BridgeSimulator]:
    async with running(BridgeSimulator(api_keys={BRIDGE_KEY})) as simulator:
        yield simulator


@pytest.fixture(scope="module")
def production(migrated: Settings) -> Settings:
    return derive_settings(
        migrated,
        RAMP_ENV="production",
        RAMP_PROVIDER_POLL_FIRST="1",
        RAMP_PROVIDER_POLL_MAX="2",
    )


@pytest.fixture(scope="module")
async def http(
    production: Settings, temporal_client: Client, sessions: async_sessionmaker[AsyncSession]
) -> AsyncIterator[httpx.AsyncClient]:
    poll = PollSchedule(
        production.provider_poll_first_seconds, production.provider_poll_max_seconds
    )
    async with production_stack(production, temporal_client, sessions, poll) as client:
        yield client


def _linked(body: dict[str, Any]) -> bool:
    steps = body["intent"]["compliancePlan"]["steps"]
    return all("handoff" in step["metadata"] for step in steps)


async def test_a_short_poll_recovers_lost_webhooks_in_seconds(
    http: httpx.AsyncClient, db: AsyncSession, production: Settings, bridge: BridgeSimulator
) -> None:
    merchant = await connected_project(db, production, bridge)
    token = await customer_token(http, merchant.project, "polled-fast")
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
    intent_id = response.json()["intent"]["id"]
    await wait_for_intent(http, token, intent_id, _linked, within=WITHIN)
    [link] = bridge.kyc_links.values()
    # Approved at Bridge; no webhook ever comes: only the poll can see it.
    bridge.set_kyc(link["id"], kyc_status="approved", tos_status="approved")
    placed = await wait_for_intent(
        http, token, intent_id, lambda b: b.get("transaction") is not None, within=WITHIN
    )
    assert placed["intent"]["compliancePlan"]["status"] == "COMPLETED"
    [transfer] = bridge.transfers.values()
    bridge.set_state(transfer["id"], "payment_processed")
    done = await wait_for_intent(
        http, token, intent_id, lambda b: b["intent"]["status"] == "COMPLETED", within=WITHIN
    )
    assert done["transaction"]["status"] == "SUCCESS"
