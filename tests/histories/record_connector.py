"""Records IntentWorkflow histories of production intents through the Bridge connector.

    .venv/bin/python -m tests.histories.record_connector              # paths without a file
    .venv/bin/python -m tests.histories.record_connector bridge_onramp

Like tests/histories/record.py (same files, same replay check before writing), with a
production project whose Bridge account points at the Bridge simulator, and the
providers' worker beside the service's:

- `bridge_onramp`: KYC and terms links handed off, both approved by a Bridge webhook,
  the transfer placed, funds received and the payment processed by webhooks (dev server);
- `bridge_expired`: approved, the transfer placed, no deposit: the expiry voids it at
  Bridge (time-skipping server);
- `bridge_outage_paused`: approved, then every transfer answered 503 with a Retry-After
  of 6 hours until the intent expires: each new order waits it (time-skipping server);
- `bridge_event_outruns_order`: approved, Bridge holds its answer to the order while a
  deposit event for that transfer reaches the workflow first; the event waits for the
  transaction (patch `event-awaits-order`), then the payment is processed (dev server).
"""

from __future__ import annotations

import asyncio
import copy
import sys
import tempfile
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.testing import WorkflowEnvironment

from devstack.temporal_server import ensure_search_attributes
from ramp.config import Settings
from ramp.db.engine import create_engine, session_factory
from ramp.db.migrate import upgrade
from ramp.intents.lifecycle import derived_id, workflow_id
from ramp.intents.models import ProviderEvent
from ramp.intents.states import IntentStatus, ProviderEventType
from ramp.security.keys import generated_keys
from tests.helpers.payments import ACH, register_accounts, wait_for_intent, wallet
from tests.helpers.production import (
    BRIDGE_KEY,
    Merchant,
    connected_project,
    customer_token,
    deliver,
    production_stack,
)
from tests.helpers.projects import bearer
from tests.helpers.servers import dev_server
from tests.histories.record import _PAST_EXPIRY, CONNECTOR_PATHS, Recorded, Stack, _save
from tests.histories.recorder_cli import run_recorder
from tests.simulators.bridge import BridgeSimulator, Fault, running

BIN = Path(sys.executable).parent
# bridge_outage_paused: Bridge's Retry-After (6 hours, in seconds), so that the 24 hours
# of the intent's life hold a few pauses, not a hundred.
OUTAGE_RETRY_AFTER = 6 * 3600
Envelope = dict[str, Any]


def _settings(data_dir: Path, temporal_address: str) -> Settings:
    keys: dict[str, Any] = generated_keys()
    return Settings(
        RAMP_ENV="production",
        RAMP_DATA_DIR=str(data_dir),
        DATABASE_URL=f"sqlite:///{data_dir / 'ramp.db'}",
        TEMPORAL_ADDRESS=temporal_address,
        RAMP_PUBLIC_URL="http://testserver",
        **keys,
    )


@asynccontextmanager
async def bridge_stack(
    env: WorkflowEnvironment, data_dir: Path, bridge: BridgeSimulator
) -> AsyncIterator[tuple[Stack, Merchant]]:
    await asyncio.to_thread(data_dir.mkdir, parents=True, exist_ok=True)
    settings = _settings(data_dir, env.client.service_client.config.target_host)
    upgrade(settings)
    engine = create_engine(settings)
    try:
        sessions = session_factory(engine)
        async with sessions() as db:
            merchant = await connected_project(db, settings, bridge)
        client = Client(
            env.client.service_client, namespace="default", data_converter=pydantic_data_converter
        )
        async with production_stack(settings, client, sessions) as http:
            yield Stack(http=http, temporal=client, project=merchant.project), merchant
    finally:
        await engine.dispose()


@asynccontextmanager
async def skipping_stack(
    data_dir: Path, bridge: BridgeSimulator
) -> AsyncIterator[tuple[WorkflowEnvironment, Stack, Merchant]]:
    """`bridge_stack` on a time-skipping test server of its own."""
    async with await WorkflowEnvironment.start_time_skipping(
        test_server_existing_path=str(BIN / "temporal-test-server")
    ) as env:
        await ensure_search_attributes(env.client, "default")
        async with bridge_stack(env, data_dir, bridge) as (stack, merchant):
            yield env, stack, merchant


async def _approved(
    stack: Stack, merchant: Merchant, bridge: BridgeSimulator, name: str, placed: bool = True
) -> tuple[str, str]:
    token = await customer_token(stack.http, merchant.project, name)
    accounts = await register_accounts(
        stack.http, token, "USD", "USDC_ETHEREUM", copy.deepcopy(ACH), wallet("USDC_ETHEREUM")
    )
    opened = await stack.http.post(
        "/v1/intent",
        json={"srcExternalAccountId": accounts[0], "destExternalAccountId": accounts[1],
              "amount": "100.00", "autoExecute": True},
        headers=bearer(token),
    )  # fmt: skip
    assert opened.status_code == 201, opened.text
    intent_id: str = opened.json()["intent"]["id"]
    await wait_for_intent(
        stack.http, token, intent_id,
        lambda b: all("handoff" in s["metadata"] for s in b["intent"]["compliancePlan"]["steps"]),
    )  # fmt: skip
    link = next(k for k in bridge.kyc_links.values() if k["email"] == f"{name}@example.com")
    bridge.set_kyc(link["id"], kyc_status="approved", tos_status="approved")
    answer = await deliver(stack.http, bridge, merchant.webhook_path, "kyc_link", link)
    assert answer.status_code == 200, answer.text
    if placed:
        await wait_for_intent(stack.http, token, intent_id, lambda b: b["transaction"] is not None)
    return token, intent_id


async def record_bridge_onramp(
    stack: Stack, merchant: Merchant, bridge: BridgeSimulator
) -> Recorded:
    token, intent_id = await _approved(stack, merchant, bridge, "replay-bridge-onramp")
    transfer = next(t for t in bridge.transfers.values() if t["state"] == "awaiting_funds")
    for state in ("funds_received", "payment_processed"):
        bridge.set_state(transfer["id"], state)
        await deliver(stack.http, bridge, merchant.webhook_path, "transfer", transfer)
    await wait_for_intent(
        stack.http, token, intent_id, lambda b: b["intent"]["status"] == "COMPLETED"
    )
    return Recorded(intent_id, IntentStatus.COMPLETED)


async def record_bridge_expired(
    stack: Stack, merchant: Merchant, bridge: BridgeSimulator, env: WorkflowEnvironment
) -> Recorded:
    token, intent_id = await _approved(stack, merchant, bridge, "replay-bridge-expired")
    await env.sleep(_PAST_EXPIRY)
    await wait_for_intent(
        stack.http, token, intent_id, lambda b: b["intent"]["status"] == "EXPIRED"
    )
    # Voided at Bridge: its deposit instructions no longer work.
    assert list(bridge.transfers.values())[-1]["state"] == "canceled"
    return Recorded(intent_id, IntentStatus.EXPIRED)


async def record_bridge_outage_paused(
    stack: Stack, merchant: Merchant, bridge: BridgeSimulator, env: WorkflowEnvironment
) -> Recorded:
    # Every transfer answered 503 with a Retry-After longer than a failover's order
    # budget: the driver waits it before each new order (patch order-again-after-pause).
    bridge.fail_next(
        Fault(status=503, retry_after=str(OUTAGE_RETRY_AFTER), path="/v0/transfers"),
        times=10_000,
    )
    token, intent_id = await _approved(
        stack, merchant, bridge, "replay-bridge-outage", placed=False
    )
    await env.sleep(_PAST_EXPIRY)
    await wait_for_intent(
        stack.http, token, intent_id, lambda b: b["intent"]["status"] == "EXPIRED"
    )
    assert bridge.transfers == {}
    return Recorded(intent_id, IntentStatus.EXPIRED)


async def record_bridge_event_outruns_order(
    stack: Stack, merchant: Merchant, bridge: BridgeSimulator
) -> Recorded:
    bridge.fail_next(Fault(delay=3.0, path="/v0/transfers"))  # the answer held back
    token, intent_id = await _approved(
        stack, merchant, bridge, "replay-bridge-outrun", placed=False
    )
    async with asyncio.timeout(30):
        while True:  # until Bridge has the order (and holds its answer)
            if bridge.posts("/v0/transfers"):
                break
            await asyncio.sleep(0.05)
    await stack.temporal.get_workflow_handle(workflow_id(intent_id)).signal(
        "report_provider_event",
        ProviderEvent(
            event_id="early-deposit",
            transaction_id=derived_id(intent_id, "transaction"),
            type=ProviderEventType.DEPOSIT_RECEIVED,
        ),
    )
    await wait_for_intent(
        stack.http, token, intent_id,
        lambda b: b["transaction"] is not None and b["transaction"]["status"] == "IN_PROGRESS",
    )  # fmt: skip
    [transfer] = bridge.transfers.values()
    bridge.set_state(transfer["id"], "payment_processed")
    await deliver(stack.http, bridge, merchant.webhook_path, "transfer", transfer)
    await wait_for_intent(
        stack.http, token, intent_id, lambda b: b["intent"]["status"] == "COMPLETED"
    )
    return Recorded(intent_id, IntentStatus.COMPLETED)


async def record(paths: Sequence[str]) -> None:
    with tempfile.TemporaryDirectory(prefix="ramp-histories-") as tmp:
        async with running(BridgeSimulator(api_keys={BRIDGE_KEY})) as bridge:
            if "bridge_onramp" in paths:
                async with (
                    dev_server() as env,
                    bridge_stack(env, Path(tmp) / "dev", bridge) as (stack, merchant),
                ):
                    recorded = await record_bridge_onramp(stack, merchant, bridge)
                    await _save(stack, "bridge_onramp", recorded)
            if "bridge_event_outruns_order" in paths:
                bridge.reset()
                async with (
                    dev_server() as env,
                    bridge_stack(env, Path(tmp) / "outrun", bridge) as (stack, merchant),
                ):
                    recorded = await record_bridge_event_outruns_order(stack, merchant, bridge)
                    await _save(stack, "bridge_event_outruns_order", recorded)
            if "bridge_expired" in paths:
                async with skipping_stack(Path(tmp) / "skip", bridge) as (env, stack, merchant):
                    recorded = await record_bridge_expired(stack, merchant, bridge, env)
                    await _save(stack, "bridge_expired", recorded)
            if "bridge_outage_paused" in paths:
                bridge.reset()
                async with skipping_stack(Path(tmp) / "outage", bridge) as (env, stack, merchant):
                    recorded = await record_bridge_outage_paused(stack, merchant, bridge, env)
                    await _save(stack, "bridge_outage_paused", recorded)


def main(argv: Sequence[str]) -> None:
    run_recorder("tests.histories.record_connector", CONNECTOR_PATHS, record, argv)


if __name__ == "__main__":
    main(sys.argv[1:])
