"""Production end to end: a production project, its Bridge account pointing at the
Bridge simulator, the real API, real Temporal, the service's and the providers' workers
and the real Bridge connector. Intents move by signed Bridge webhooks and by polls."""

from __future__ import annotations

import asyncio
import copy
import logging
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from temporalio.client import Client

from activities.providers import ProviderActivities
from ramp.adapters.bridge.connector import BridgeConnector
from ramp.adapters.contract import (
    AccountDetails,
    ProviderAccountRef,
    ProviderContext,
    ProviderCustomerRef,
)
from ramp.adapters.registry import Connectors
from ramp.config import Settings
from ramp.db.tables import (
    Customer,
    ExternalAccount,
    ProviderAccount,
    ProviderCustomer,
    ProviderWebhookEvent,
)
from ramp.db.types import utcnow
from ramp.external_accounts.lookup import account_details
from ramp.intents.lifecycle import derived_id, workflow_id
from ramp.intents.models import ProviderEvent
from ramp.intents.states import ProviderEventType
from ramp.intents.workflow_client import IntentWorkflowClient
from ramp.provider_accounts.service import provider_context
from ramp.provider_webhooks.service import RETRY_FIRST, RETRY_MAX, UNMATCHED_FOR, relay
from ramp.provider_webhooks.unmatched import NO_INTENT_REASON
from ramp.security.encryption import SecretBox
from tests.helpers.payments import ACH, WIRE, bank, register_accounts, wait_for_intent, wallet
from tests.helpers.production import (
    BRIDGE_KEY,
    approved_customer,
    connected_project,
    customer_token,
    deliver,
    production_stack,
)
from tests.helpers.projects import bearer
from tests.helpers.servers import derive_settings
from tests.simulators.bridge import BridgeSimulator, Fault, running
from workflows.intents import IntentWorkflow

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


def _steps(envelope: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {s["code"]: s for s in envelope["intent"]["compliancePlan"]["steps"]}


async def test_an_onramp_completes_through_bridge(
    http: httpx.AsyncClient, db: AsyncSession, production: Settings, bridge: BridgeSimulator
) -> None:
    merchant = await connected_project(db, production, bridge)
    providers = await http.get("/v1/providers", headers=merchant.project.basic)
    assert [p["code"] for p in providers.json()] == ["BRIDGE"]
    token = await customer_token(http, merchant.project)
    accounts = await register_accounts(http, token, "USD", "USDC_ETHEREUM", copy.deepcopy(ACH))
    opened = await http.post(
        "/v1/intent",
        json={
            "srcExternalAccountId": accounts[0],
            "destExternalAccountId": accounts[1],
            "amount": "100.00",
            "autoExecute": True,
        },
        headers=bearer(token),
    )
    assert opened.status_code == 201, opened.text
    intent_id = opened.json()["intent"]["id"]

    # Bridge's hosted flows are handed off from our onboarding: the KYC and ToS links.
    linked = await wait_for_intent(
        http, token, intent_id,
        lambda b: "handoff" in _steps(b).get("KYC_BASIC", {}).get("metadata", {}),
        within=WITHIN,
    )  # fmt: skip
    steps = _steps(linked)
    assert steps["TERMS_OF_SERVICE"]["metadata"]["handoff"]["mode"] == "LINK"
    assert "accept-terms-of-service" in steps["TERMS_OF_SERVICE"]["metadata"]["handoff"]["url"]
    assert steps["KYC_BASIC"]["metadata"]["handoff"]["url"].startswith("https://")
    [link] = bridge.kyc_links.values()
    assert link["email"] == "ada@example.com"
    stored = (await db.exec(select(ProviderCustomer))).one()
    assert stored.provider_customer_id == link["customer_id"]

    # The customer completes both at Bridge; Bridge says so by webhook.
    bridge.set_kyc(link["id"], kyc_status="approved", tos_status="approved")
    answer = await deliver(http, bridge, merchant.webhook_path, "kyc_link", link)
    assert answer.status_code == 200, answer.text
    # One per requirement the link decides (terms, identity, address).
    assert answer.json() == {"received": 3, "duplicates": 0}

    placed = await wait_for_intent(
        http, token, intent_id, lambda b: b.get("transaction") is not None, within=WITHIN
    )
    assert placed["intent"]["status"] == "PROCESSING"
    [instruction] = placed["transaction"]["context"]["depositInstructions"]
    assert instruction["type"] == "BANK"
    details = instruction["instructions"]
    assert details["accountIdentifier"]["routingNumber"] == "101019644"
    assert details["reference"].startswith("BRG")
    # One transfer, keyed by our transaction id.
    [transfer_post] = bridge.posts("/v0/transfers")
    assert transfer_post.idempotency_key == placed["transaction"]["id"]
    [transfer] = bridge.transfers.values()

    # Funds received, then the payment processed: webhooks move the intent to COMPLETED.
    for state in ("funds_received", "payment_processed"):
        bridge.set_state(transfer["id"], state)
        answer = await deliver(http, bridge, merchant.webhook_path, "transfer", transfer)
        assert answer.status_code == 200, answer.text
    done = await wait_for_intent(
        http, token, intent_id, lambda b: b["intent"]["status"] == "COMPLETED", within=WITHIN
    )
    assert done["transaction"]["status"] == "SUCCESS"
    assert len(bridge.posts("/v0/transfers")) == 1


async def test_a_forged_webhook_is_refused_and_changes_nothing(
    http: httpx.AsyncClient,
    db: AsyncSession,
    production: Settings,
    bridge: BridgeSimulator,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING, logger="ramp.provider_webhooks.service")
    merchant = await connected_project(db, production, bridge)
    body = bridge.event("transfer", {"id": "tr_1", "state": "payment_processed"})
    headers = bridge.sign(body)
    forged = body.replace(b"tr_1", b"tr_2")
    refused = await http.post(merchant.webhook_path, content=forged, headers=headers)
    assert refused.status_code == 401
    assert refused.json()["code"] == "INVALID_WEBHOOK_SIGNATURE"
    stale = await http.post(
        merchant.webhook_path, content=body, headers=bridge.sign(body, at_ms=1_000)
    )
    assert stale.status_code == 401
    unsigned = await http.post(merchant.webhook_path, content=body)
    assert unsigned.status_code == 401
    assert (await db.exec(select(ProviderWebhookEvent))).all() == []
    account = await db.get(ProviderAccount, merchant.provider_account_id)
    assert account is not None
    # Each refusal is logged, naming the account, never quoting the body.
    refusals = [r.getMessage() for r in caplog.records if "webhook refused" in r.getMessage()]
    assert len(refusals) == 3
    assert all(merchant.provider_account_id in line for line in refusals)
    assert not any("tr_1" in line or "tr_2" in line for line in refusals)


async def test_an_offramp_pays_out_to_a_registered_bank_account(
    http: httpx.AsyncClient, db: AsyncSession, production: Settings, bridge: BridgeSimulator
) -> None:
    merchant = await connected_project(db, production, bridge)
    payout = copy.deepcopy(WIRE)
    token, intent_id = await approved_customer(
        http, bridge, merchant, "grace", "USDC_ETHEREUM", "USD",
        wallet("USDC_ETHEREUM"), payout, amount="50",
    )  # fmt: skip
    placed = await wait_for_intent(
        http, token, intent_id, lambda b: b.get("transaction") is not None, within=WITHIN
    )
    [instruction] = placed["transaction"]["context"]["depositInstructions"]
    assert instruction["type"] == "CRYPTO"
    assert instruction["instructions"]["chain"] == "ETHEREUM"
    assert instruction["instructions"]["amountInSmallestUnit"] == "50000000"
    # The payout account registered at Bridge (once), and named by the transfer.
    [registered] = bridge.posts(f"/v0/customers/{_customer_id(bridge)}/external_accounts")
    assert (
        registered.body["account"]["routing_number"] == WIRE["accountIdentifier"]["routingNumber"]
    )
    [transfer] = bridge.transfers.values()
    assert transfer["destination"]["external_account_id"] in bridge.external_accounts
    assert transfer["destination"]["payment_rail"] == "wire"
    for state in ("funds_received", "payment_submitted", "payment_processed"):
        bridge.set_state(transfer["id"], state)
        await deliver(http, bridge, merchant.webhook_path, "transfer", transfer)
    done = await wait_for_intent(
        http, token, intent_id, lambda b: b["intent"]["status"] == "COMPLETED", within=WITHIN
    )
    assert done["transaction"]["status"] == "SUCCESS"


async def test_a_refused_transfer_fails_the_intent_with_bridges_reason(
    http: httpx.AsyncClient, db: AsyncSession, production: Settings, bridge: BridgeSimulator
) -> None:
    merchant = await connected_project(db, production, bridge)
    bridge.fail_next(Fault(status=400, path="/v0/transfers"))
    token, intent_id = await approved_customer(
        http, bridge, merchant, "refused", "USD", "USDC_ETHEREUM", copy.deepcopy(ACH),
        wallet("USDC_ETHEREUM"),
    )  # fmt: skip
    failed = await wait_for_intent(
        http, token, intent_id, lambda b: b["intent"]["status"] == "FAILED", within=WITHIN
    )
    assert "Bridge refused the request" in failed["intent"]["failureReason"]
    # Never retried: one attempt only.
    assert len(bridge.posts("/v0/transfers")) == 1
    assert bridge.transfers == {}


async def test_a_transfer_blocked_by_aml_screening_fails_that_intent_only(
    http: httpx.AsyncClient, db: AsyncSession, production: Settings, bridge: BridgeSimulator
) -> None:
    """Bridge's 403 `aml_violation` refuses one transfer, not the key: the intent fails
    with Bridge's reason, and the account stays healthy for every other customer."""
    merchant = await connected_project(db, production, bridge)
    bridge.aml_flagged.add("flagged@example.com")
    token, intent_id = await approved_customer(
        http, bridge, merchant, "flagged", "USD", "USDC_ETHEREUM", copy.deepcopy(ACH),
        wallet("USDC_ETHEREUM"),
    )  # fmt: skip
    failed = await wait_for_intent(
        http, token, intent_id, lambda b: b["intent"]["status"] == "FAILED", within=WITHIN
    )
    assert "aml_violation" in failed["intent"]["failureReason"]
    assert "blocked by AML screening" in failed["intent"]["failureReason"]
    assert failed["transaction"] is None
    assert len(bridge.posts("/v0/transfers")) == 1  # a refusal: never retried
    account = await db.get(ProviderAccount, merchant.provider_account_id)
    assert account is not None
    await db.refresh(account)
    assert account.status == "HEALTHY", account.status_reason
    # Still routed: another customer of the project gets Bridge's transfer.
    listed = await http.get("/v1/providers", headers=merchant.project.basic)
    assert listed.status_code == 200
    assert listed.json() != []
    token, intent_id = await approved_customer(
        http, bridge, merchant, "cleared", "USD", "USDC_ETHEREUM", copy.deepcopy(ACH),
        wallet("USDC_ETHEREUM"),
    )  # fmt: skip
    placed = await wait_for_intent(
        http, token, intent_id, lambda b: b["transaction"] is not None, within=WITHIN
    )
    assert placed["intent"]["status"] == "PROCESSING"
    assert len(bridge.transfers) == 1


async def test_a_kyc_rejection_fails_the_intent_and_a_replayed_webhook_changes_nothing(
    http: httpx.AsyncClient, db: AsyncSession, production: Settings, bridge: BridgeSimulator
) -> None:
    merchant = await connected_project(db, production, bridge)
    token = await customer_token(http, merchant.project, "mallory")
    accounts = await register_accounts(http, token, "USD", "USDC_ETHEREUM", copy.deepcopy(ACH))
    opened = await http.post(
        "/v1/intent",
        json={"srcExternalAccountId": accounts[0], "destExternalAccountId": accounts[1],
              "amount": "10.00"},
        headers=bearer(token),
    )  # fmt: skip
    intent_id = opened.json()["intent"]["id"]
    await wait_for_intent(
        http, token, intent_id,
        lambda b: "handoff" in _steps(b)["KYC_BASIC"]["metadata"], within=WITHIN,
    )  # fmt: skip
    [link] = bridge.kyc_links.values()
    bridge.set_kyc(link["id"], kyc_status="rejected", tos_status="approved")
    body = bridge.event("kyc_link", link)
    first = await http.post(merchant.webhook_path, content=body, headers=bridge.sign(body))
    assert first.json()["duplicates"] == 0
    failed = await wait_for_intent(
        http, token, intent_id, lambda b: b["intent"]["status"] == "FAILED", within=WITHIN
    )
    kyc = _steps(failed)["KYC_BASIC"]
    assert kyc["status"] == "REJECTED"
    # Bridge's customer-facing reason, never its developer notes.
    assert kyc["metadata"]["reason"] == "Cannot validate ID -- upload a valid ID"
    assert "internal" not in failed["intent"]["failureReason"]
    # Bridge retries (signed anew): stored once, nothing applied twice.
    again = await http.post(merchant.webhook_path, content=body, headers=bridge.sign(body))
    assert again.status_code == 200
    assert again.json() == {"received": 0, "duplicates": first.json()["received"]}


async def test_an_event_ahead_of_its_intent_is_kept_and_relayed_later(
    http: httpx.AsyncClient,
    db: AsyncSession,
    production: Settings,
    bridge: BridgeSimulator,
    sessions: async_sessionmaker[AsyncSession],
    temporal_client: Client,
) -> None:
    merchant = await connected_project(db, production, bridge)
    body = bridge.event("transfer", {"id": "not-ours-yet", "state": "funds_received"})
    answer = await http.post(merchant.webhook_path, content=body, headers=bridge.sign(body))
    assert answer.status_code == 200
    [stored] = (await db.exec(select(ProviderWebhookEvent))).all()
    assert stored.applied_at is None
    assert stored.last_error == "no intent found for it yet"
    # Stored encrypted: the body's contents are not readable at rest.
    assert "not-ours-yet" not in stored.events_encrypted
    # Due again once its retry delay has passed (another relay's round, later).
    relayed = await relay(
        sessions,
        IntentWorkflowClient(temporal_client, production.task_queue),
        SecretBox.from_settings(production),
        clock=lambda: utcnow() + RETRY_FIRST,
    )
    assert relayed == 0
    await db.refresh(stored)
    assert stored.attempts == 2
    assert stored.applied_at is None

    # No intent of ours ever has that transfer: given up after a day, the money in it is
    # reported as unmatched money with no intent, in the project's events.
    await relay(
        sessions,
        IntentWorkflowClient(temporal_client, production.task_queue),
        SecretBox.from_settings(production),
        clock=lambda: utcnow() + UNMATCHED_FOR + RETRY_MAX,
    )
    await db.refresh(stored)
    assert stored.applied_at is not None
    assert stored.last_error == "no intent matches it: reported as unmatched money"
    listed = await http.get(
        "/v1/events", params={"type": "DEPOSIT_UNMATCHED"}, headers=merchant.project.basic
    )
    [reported] = listed.json()
    assert reported["data"] == {
        "intentId": None,
        "customerId": None,
        "transactionId": None,
        "providerReference": "not-ours-yet",
        "unmatchedReason": NO_INTENT_REASON,
        "amount": None,
        "currency": None,
        "providerAccountId": merchant.provider_account_id,
    }


def _customer_id(bridge: BridgeSimulator) -> str:
    [customer] = bridge.customers.values()
    return str(customer["id"])


async def test_an_intent_executed_by_the_client_gets_bridges_transfer(
    http: httpx.AsyncClient, db: AsyncSession, production: Settings, bridge: BridgeSimulator
) -> None:
    merchant = await connected_project(db, production, bridge)
    token = await customer_token(http, merchant.project, "ada-manual")
    accounts = await register_accounts(http, token, "USD", "USDC_ETHEREUM", copy.deepcopy(ACH))
    opened = await http.post(
        "/v1/intent",
        json={"srcExternalAccountId": accounts[0], "destExternalAccountId": accounts[1],
              "amount": "30.00"},
        headers=bearer(token),
    )  # fmt: skip
    intent_id = opened.json()["intent"]["id"]
    early = await http.post(f"/v1/intent/{intent_id}/transaction", headers=bearer(token))
    assert early.status_code == 400
    assert early.json()["code"] == "COMPLIANCE_NOT_COMPLETE"
    await wait_for_intent(
        http, token, intent_id,
        lambda b: "handoff" in _steps(b)["KYC_BASIC"]["metadata"], within=WITHIN,
    )  # fmt: skip
    [link] = bridge.kyc_links.values()
    bridge.set_kyc(link["id"], kyc_status="approved", tos_status="approved")
    await deliver(http, bridge, merchant.webhook_path, "kyc_link", link)
    await wait_for_intent(
        http, token, intent_id,
        lambda b: b["intent"]["compliancePlan"]["status"] == "COMPLETED", within=WITHIN,
    )  # fmt: skip
    # Not placed on its own (no autoExecute): the client's call places it.
    assert bridge.posts("/v0/transfers") == []
    executed = await http.post(f"/v1/intent/{intent_id}/transaction", headers=bearer(token))
    assert executed.status_code == 201, executed.text
    assert executed.json()["transaction"]["status"] == "PENDING"
    assert len(bridge.posts("/v0/transfers")) == 1


class _RegistersTogether(BridgeConnector):
    """Bridge's connector, whose payout registrations all answer at one moment (as two
    intents of one customer paying out to new accounts at once may)."""

    def __init__(self, parties: int, settings: Settings) -> None:
        # Calls the simulator on loopback, as the deployment's settings allow.
        super().__init__(network=Connectors.from_settings(settings).network)
        self._together = asyncio.Barrier(parties)

    async def register_account(
        self, ctx: ProviderContext, customer: ProviderCustomerRef, account: AccountDetails
    ) -> ProviderAccountRef:
        registered = await super().register_account(ctx, customer, account)
        await self._together.wait()
        return registered


async def test_payout_accounts_registered_at_once_are_all_remembered(
    http: httpx.AsyncClient,
    db: AsyncSession,
    production: Settings,
    bridge: BridgeSimulator,
    sessions: async_sessionmaker[AsyncSession],
) -> None:
    merchant = await connected_project(db, production, bridge)
    token = await customer_token(http, merchant.project, "payee")
    payouts: list[str] = []
    for n in range(6):
        number = {"routingNumber": "021000021", "accountNumber": f"00012345678{n}"}
        _, payout = await register_accounts(
            http, token, "USDC_ETHEREUM", "USD", wallet("USDC_ETHEREUM"),
            bank(WIRE, accountIdentifier=number),
        )  # fmt: skip
        payouts.append(payout)
    box = SecretBox.from_settings(production)
    connector = _RegistersTogether(len(payouts), production)
    connectors = Connectors({"BRIDGE": connector})
    activities = ProviderActivities(sessions, box, connectors)
    _, _, ctx = await provider_context(
        db, provider_account_id=merchant.provider_account_id, secret_box=box,
        connectors=connectors,
    )  # fmt: skip
    customer_id = (
        await db.exec(
            select(Customer.id).where(
                Customer.project_id == merchant.project.project_id, Customer.external_id == "payee"
            )
        )
    ).one()
    customer = await activities._customer(connector, ctx, customer_id)
    accounts = {
        row.id: account_details(row)
        for row in (
            await db.exec(select(ExternalAccount).where(col(ExternalAccount.id).in_(payouts)))
        ).all()
    }
    registered = await asyncio.gather(
        *(
            activities._payout_account(connector, ctx, customer, customer_id, id_, accounts[id_])
            for id_ in payouts
        )
    )
    [row] = (
        await db.exec(select(ProviderCustomer).where(ProviderCustomer.customer_id == customer_id))
    ).all()
    await db.refresh(row)
    # Every registration remembered: none lost to another written at the same time.
    assert row.handles == {
        **customer.handles,
        **{
            f"externalAccount:{id_}": ref.provider_account_ref
            for id_, ref in zip(payouts, registered, strict=True)
        },
    }


async def test_a_payout_account_bridge_refuses_names_our_field(
    http: httpx.AsyncClient, db: AsyncSession, production: Settings, bridge: BridgeSimulator
) -> None:
    merchant = await connected_project(db, production, bridge)
    # Bridge's `us` accounts need the owner's address; this one has none.
    token, intent_id = await approved_customer(
        http, bridge, merchant, "noaddress", "USDC_ETHEREUM", "USD",
        wallet("USDC_ETHEREUM"), copy.deepcopy(ACH), amount="20",
    )  # fmt: skip
    failed = await wait_for_intent(
        http, token, intent_id, lambda b: b["intent"]["status"] == "FAILED", within=WITHIN
    )
    assert "/beneficiaryAddress/line1" in failed["intent"]["failureReason"]
    assert bridge.transfers == {}


async def test_a_customer_approved_at_bridge_skips_the_steps(
    http: httpx.AsyncClient, db: AsyncSession, production: Settings, bridge: BridgeSimulator
) -> None:
    merchant = await connected_project(db, production, bridge)
    token, first = await approved_customer(
        http, bridge, merchant, "returning", "USD", "USDC_ETHEREUM", copy.deepcopy(ACH),
        wallet("USDC_ETHEREUM"),
    )  # fmt: skip
    await wait_for_intent(http, token, first, lambda b: b["transaction"] is not None)
    # The same customer again: verified on record, nothing to do, the order follows.
    accounts = await register_accounts(http, token, "USD", "USDC_ETHEREUM", copy.deepcopy(ACH))
    again = await http.post(
        "/v1/intent",
        json={"srcExternalAccountId": accounts[0], "destExternalAccountId": accounts[1],
              "amount": "12.00"},
        headers=bearer(token),
    )  # fmt: skip
    assert again.json()["intent"]["compliancePlan"]["status"] == "COMPLETED"
    second = again.json()["intent"]["id"]
    await wait_for_intent(
        http, token, second, lambda b: b["transaction"] is not None, within=WITHIN
    )
    # Another project's customer with the same e-mail is the same person at Bridge,
    # approved already: found by e-mail, its steps verified by the first poll.
    other = await connected_project(db, production, bridge)
    newcomer = await customer_token(http, other.project, "returning")
    pair = await register_accounts(http, newcomer, "USD", "USDC_ETHEREUM", copy.deepcopy(ACH))
    opened = await http.post(
        "/v1/intent",
        json={"srcExternalAccountId": pair[0], "destExternalAccountId": pair[1],
              "amount": "15.00", "autoExecute": True},
        headers=bearer(newcomer),
    )  # fmt: skip
    assert opened.json()["intent"]["compliancePlan"]["status"] == "PENDING"
    placed = await wait_for_intent(
        http, newcomer, opened.json()["intent"]["id"],
        lambda b: b["transaction"] is not None, within=WITHIN,
    )  # fmt: skip
    assert placed["intent"]["compliancePlan"]["status"] == "COMPLETED"
    assert len(bridge.kyc_links) == 1


async def test_a_customer_cancels_a_bridge_intent_until_the_funds_arrive(
    http: httpx.AsyncClient, db: AsyncSession, production: Settings, bridge: BridgeSimulator
) -> None:
    merchant = await connected_project(db, production, bridge)
    token, intent_id = await approved_customer(
        http, bridge, merchant, "cancels", "USD", "USDC_ETHEREUM", copy.deepcopy(ACH),
        wallet("USDC_ETHEREUM"),
    )  # fmt: skip
    await wait_for_intent(
        http, token, intent_id, lambda b: b["transaction"] is not None, within=WITHIN
    )
    [transfer] = bridge.transfers.values()

    cancelled = await http.post(f"/v1/intent/{intent_id}/cancel", headers=bearer(token))
    assert cancelled.status_code == 200, cancelled.text
    assert cancelled.json()["intent"]["status"] == "CANCELLED"
    assert cancelled.json()["transaction"]["status"] == "CANCELLED"
    # Bridge voided the transfer awaiting funds (DELETE /v0/transfers/{id}).
    assert bridge.transfers[transfer["id"]]["state"] == "canceled"

    # Another intent whose funds arrived: too late to cancel, nothing changes.
    token, later = await approved_customer(
        http, bridge, merchant, "toolate", "USD", "USDC_ETHEREUM", copy.deepcopy(ACH),
        wallet("USDC_ETHEREUM"),
    )  # fmt: skip
    await wait_for_intent(http, token, later, lambda b: b["transaction"] is not None, within=WITHIN)
    funded = next(t for t in bridge.transfers.values() if t["id"] != transfer["id"])
    bridge.set_state(funded["id"], "funds_received")
    refused = await http.post(f"/v1/intent/{later}/cancel", headers=bearer(token))
    assert refused.status_code == 409, refused.text
    assert refused.json()["code"] == "INTENT_NOT_CANCELLABLE"
    assert refused.json()["details"]["reason"] == "DEPOSIT_RECEIVED"
    assert bridge.transfers[funded["id"]]["state"] == "funds_received"


async def test_an_event_that_outruns_the_orders_answer_is_applied_once_the_order_lands(
    http: httpx.AsyncClient,
    db: AsyncSession,
    production: Settings,
    bridge: BridgeSimulator,
    temporal_client: Client,
) -> None:
    """Bridge reports on the transfer before its answer to our order reaches the
    workflow (seen when a worker died after the order's answer was projected but before
    its workflow task completed): the event waits for the transaction instead of being
    dropped until the next poll, minutes later."""
    merchant = await connected_project(db, production, bridge)
    bridge.fail_next(Fault(delay=3.0, path="/v0/transfers"))  # the answer held back
    token, intent_id = await approved_customer(
        http, bridge, merchant, "early", "USD", "USDC_ETHEREUM", copy.deepcopy(ACH),
        wallet("USDC_ETHEREUM"),
    )  # fmt: skip
    async with asyncio.timeout(WITHIN):
        while True:  # until Bridge has the order (and is holding its answer)
            if bridge.posts("/v0/transfers"):
                break
            await asyncio.sleep(0.05)
    await temporal_client.get_workflow_handle(workflow_id(intent_id)).signal(
        IntentWorkflow.report_provider_event,
        ProviderEvent(
            event_id="early-deposit",
            transaction_id=derived_id(intent_id, "transaction"),
            type=ProviderEventType.DEPOSIT_RECEIVED,
        ),
    )
    moved = await wait_for_intent(
        http, token, intent_id,
        lambda b: b["transaction"] is not None and b["transaction"]["status"] != "PENDING",
        within=WITHIN,
    )  # fmt: skip
    assert moved["transaction"]["status"] == "IN_PROGRESS"
    assert moved["intent"]["status"] == "PROCESSING"
