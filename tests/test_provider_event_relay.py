"""The provider-event relay claims what it signals: two relays (two workers) at once
relay each stored event once, and a backlog of events no intent matches yet does not
hold up an event that matches one. Production stack, real Temporal, the Bridge
simulator; events are stored through the service, as the API stores them."""

from __future__ import annotations

import asyncio
import copy
import json
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

import httpx
import pytest
from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from temporalio.client import Client

from ramp.adapters.contract import DepositMatch, ProviderTransferEvent
from ramp.config import Settings
from ramp.db.tables import ProviderWebhookEvent
from ramp.intents.states import ProviderEventType
from ramp.intents.workflow_client import IntentWorkflowClient
from ramp.provider_webhooks.service import RELAY_BATCH, receive, relay
from ramp.provider_webhooks.unmatched import UNREFERENCED_GRACE, due_for_report
from ramp.security.encryption import SecretBox
from tests.helpers.payments import ACH, wait_for_intent, wallet
from tests.helpers.production import (
    BRIDGE_KEY,
    Merchant,
    approved_customer,
    connected_project,
    fast_connectors,
    production_stack,
)
from tests.helpers.servers import derive_settings
from tests.simulators.bridge import BridgeSimulator, running

WITHIN = 30.0


@pytest.fixture(scope="module")
async def bridge() -> AsyncIterator[BridgeSimulator]:
    async with running(BridgeSimulator(api_keys={BRIDGE_KEY})) as simulator:
        yield simulator


@pytest.fixture(autouse=True)
def _fresh(bridge: BridgeSimulator) -> None:
    bridge.reset()


@pytest.fixture(scope="module")
def production(migrated: Settings) -> Settings:
    return derive_settings(migrated, RAMP_ENV="production")


@pytest.fixture(scope="module")
async def http(
    production: Settings,
    temporal_client: Client,
    sessions: async_sessionmaker[AsyncSession],
) -> AsyncIterator[httpx.AsyncClient]:
    async with production_stack(production, temporal_client, sessions) as client:
        yield client


async def _placed_transfer(
    http: httpx.AsyncClient, bridge: BridgeSimulator, merchant: Merchant, name: str
) -> dict[str, Any]:
    """Bridge's transfer of an approved customer's intent, once the workflow recorded it."""
    token, intent_id = await approved_customer(
        http, bridge, merchant, name, "USD", "USDC_ETHEREUM", copy.deepcopy(ACH),
        wallet("USDC_ETHEREUM"),
    )  # fmt: skip
    await wait_for_intent(
        http, token, intent_id, lambda b: b["transaction"] is not None, within=WITHIN
    )
    [transfer] = bridge.transfers.values()
    return transfer


async def _store(
    db: AsyncSession,
    production: Settings,
    bridge: BridgeSimulator,
    merchant: Merchant,
    transfer: dict[str, Any],
) -> str:
    """Stores one Bridge event about `transfer` as the API does (verified, not relayed);
    returns Bridge's event id."""
    body = bridge.event("transfer", transfer)
    await receive(
        db,
        provider_account_id=merchant.provider_account_id,
        headers=bridge.sign(body),
        body=body,
        secret_box=SecretBox.from_settings(production),
        connectors=fast_connectors(),
    )
    return str(json.loads(body)["event_id"])


async def _events(db: AsyncSession, event_ids: list[str]) -> list[ProviderWebhookEvent]:
    rows = (
        await db.exec(
            select(ProviderWebhookEvent)
            .where(col(ProviderWebhookEvent.provider_event_id).in_(event_ids))
            .execution_options(populate_existing=True)
        )
    ).all()
    return list(rows)


async def test_two_relays_at_once_relay_each_event_once(
    http: httpx.AsyncClient,
    db: AsyncSession,
    production: Settings,
    bridge: BridgeSimulator,
    sessions: async_sessionmaker[AsyncSession],
    temporal_client: Client,
) -> None:
    merchant = await connected_project(db, production, bridge)
    transfer = await _placed_transfer(http, bridge, merchant, "twice")
    stored = [
        # Bridge sends each state change as an event of its own id.
        await _store(db, production, bridge, merchant, {**transfer, "state": "funds_received"})
        for _ in range(6)
    ]
    box = SecretBox.from_settings(production)
    workflows = IntentWorkflowClient(temporal_client, production.task_queue)
    # Two workers' relays in the same round.
    relayed = await asyncio.gather(relay(sessions, workflows, box), relay(sessions, workflows, box))
    assert sum(relayed) == len(stored)
    events = await _events(db, stored)
    assert len(events) == len(stored)
    assert all(e.applied_at is not None and e.attempts == 1 for e in events)
    assert all(e.lease_token is None and e.due_at is None for e in events)


async def test_a_batch_of_unmatched_events_does_not_hold_up_a_matched_one(
    http: httpx.AsyncClient,
    db: AsyncSession,
    production: Settings,
    bridge: BridgeSimulator,
    sessions: async_sessionmaker[AsyncSession],
    temporal_client: Client,
) -> None:
    merchant = await connected_project(db, production, bridge)
    transfer = await _placed_transfer(http, bridge, merchant, "behind")
    # A full batch of events about transfers no intent records (yet), stored first...
    unmatched = [
        await _store(db, production, bridge, merchant, {**transfer, "id": f"not-ours-{n}"})
        for n in range(RELAY_BATCH)
    ]
    # ...then an event about the intent's own transfer.
    ours = await _store(db, production, bridge, merchant, {**transfer, "state": "funds_received"})
    box = SecretBox.from_settings(production)
    workflows = IntentWorkflowClient(temporal_client, production.task_queue)
    assert await relay(sessions, workflows, box) == 0  # the oldest batch: none matches
    # The next round relays the matched event; the unmatched wait for their retry.
    assert await relay(sessions, workflows, box) == 1
    events = await _events(db, [*unmatched, ours])
    [applied] = [e for e in events if e.applied_at is not None]
    assert applied.provider_event_id == ours
    pending = [e for e in events if e.applied_at is None]
    assert len(pending) == RELAY_BATCH
    assert all(e.last_error == "no intent found for it yet" for e in pending)


def test_what_the_relay_reports_as_unmatched_money() -> None:
    """Money received for someone that no intent takes: a payment without our reference
    after the grace, any other deposit once given up; never a payout nor a refusal."""
    now = datetime.now(UTC)
    E = ProviderEventType

    def event(*events: ProviderEventType, match: bool = False, incoming: bool = True) -> Any:
        return ProviderTransferEvent(
            provider_event_id="m", provider_reference="ref", provider_state="s",
            events=events, incoming=incoming,
            match=DepositMatch(provider_customer_id="p", amount=Decimal("5"), currency="EUR")
            if match else None,
        )  # fmt: skip

    payment = event(E.DEPOSIT_RECEIVED, match=True)
    just_in = now - UNREFERENCED_GRACE + timedelta(seconds=1)
    assert not due_for_report(payment, just_in, now, given_up=False)
    assert due_for_report(payment, now - UNREFERENCED_GRACE, now, given_up=False)
    transfer = event(E.DEPOSIT_RECEIVED, E.PAYOUT_SENT)  # Bridge's, no intent has it
    assert not due_for_report(transfer, now - UNREFERENCED_GRACE, now, given_up=False)
    assert due_for_report(transfer, now, now, given_up=True)
    for not_money in (
        event(E.DEPOSIT_RECEIVED, incoming=False),  # Monerium's redeem: a payout
        event(E.DEPOSIT_RECEIVED, E.FAILED, match=True),  # refused: the provider returns it
        event(),  # awaiting funds
    ):
        assert not due_for_report(not_money, now - UNREFERENCED_GRACE, now, given_up=True)
