"""Production end to end through Monerium: a production project with a Monerium account
pointing at the Monerium simulator, the real API, real Temporal, both workers and the
real connector. An on-ramp EUR -> EURE_GNOSIS: Monerium approves the profile, the IBAN
arrives after its 202, a SEPA payment quoting our reference is matched and the EURe
minted; the access token expires mid-run and nothing fails. An on-ramp declined while
the wallet is not linked is placed when the client asks again after the link."""

from __future__ import annotations

import asyncio
import copy
import json
from collections.abc import AsyncIterator
from datetime import date
from typing import Any

import httpx
import pytest
from eth_account import Account
from eth_account.messages import encode_defunct
from sqlalchemy import text
from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from temporalio.client import Client

from ramp import projects, temporal
from ramp.adapters.monerium.orders import payment_reference
from ramp.config import Environment, Settings
from ramp.db.tables import ComplianceConsent, ProviderAccount, ProviderWebhookEvent
from ramp.db.types import utcnow
from ramp.intents.lifecycle import workflow_id
from ramp.intents.workflow_client import IntentWorkflowClient
from ramp.provider_accounts import service
from ramp.provider_accounts.credentials import unseal_webhook_secret
from ramp.provider_webhooks.service import relay
from ramp.provider_webhooks.unmatched import NO_INTENT_REASON, UNREFERENCED_GRACE
from ramp.security.encryption import SecretBox
from tests.helpers.onboarding import (
    document,
    kyc_basic,
    onboarding,
    onboarding_token,
    step,
    submit,
)
from tests.helpers.payments import ACH, SEPA, register_accounts, wait_for_intent, wallet
from tests.helpers.production import (
    BRIDGE_KEY,
    approved_customer,
    connected_project,
    customer_token,
    fast_connectors,
    production_stack,
)
from tests.helpers.projects import ProjectCredentials, bearer
from tests.helpers.servers import derive_settings
from tests.simulators.bridge import BridgeSimulator
from tests.simulators.bridge import running as bridge_running
from tests.simulators.monerium import MoneriumSimulator, running

CLIENT_ID = "5c2b9e10-6d4f-4c1e-9a7b-0f3e8d2a1b44"
CLIENT_SECRET = "production-client-secret"
WITHIN = 30.0
WALLET = Account.from_key("0x" + "6e" * 32)
SEPA_IBAN = SEPA["accountIdentifier"]["iban"]
STRANGER_IBAN = "FR7630006000011234567890189"


@pytest.fixture(scope="module")
async def monerium() -> AsyncIterator[MoneriumSimulator]:
    async with running(MoneriumSimulator(clients={CLIENT_ID: CLIENT_SECRET})) as simulator:
        yield simulator


@pytest.fixture(scope="module")
def production(migrated: Settings) -> Settings:
    return derive_settings(migrated, RAMP_ENV="production")


@pytest.fixture(scope="module")
async def http(
    production: Settings, temporal_client: Client, sessions: async_sessionmaker[AsyncSession]
) -> AsyncIterator[httpx.AsyncClient]:
    async with production_stack(production, temporal_client, sessions) as client:
        yield client


async def notify(
    http: httpx.AsyncClient, monerium: MoneriumSimulator, path: str, secret: str, kind: str,
    data: dict[str, Any],
) -> None:  # fmt: skip
    """Monerium's notification, signed with the account's secret, posted to our endpoint
    (the API is served in-process here, out of the simulator's reach)."""
    body = json.dumps({"type": kind, "timestamp": "2026-11-26T03:00:00Z", "data": data}).encode()
    answer = await http.post(path, content=body, headers=monerium.signed(secret, body))
    assert answer.status_code == 200, answer.text


async def connect_monerium(
    db: AsyncSession, production: Settings, monerium: MoneriumSimulator, project_id: str
) -> tuple[service.ProviderAccountView, str]:
    """The project's Monerium account against the simulator, and the webhook secret we
    generated for it (stored encrypted)."""
    box = SecretBox.from_settings(production)
    account = await service.set_provider_account(
        db,
        project_id=project_id,
        provider_code="MONERIUM",
        credentials={
            "clientId": CLIENT_ID,
            "clientSecret": CLIENT_SECRET,
            "environment": "sandbox",
            "baseUrl": monerium.url,
        },
        secret_box=box,
        public_url=production.public_url,
        connectors=fast_connectors(),
    )
    row = await db.get(ProviderAccount, account.id)
    assert row is not None
    assert row.webhook_secret_encrypted is not None
    secret = unseal_webhook_secret(
        box, row.webhook_secret_encrypted, provider_account_id=row.id, provider_code="MONERIUM"
    )
    return account, secret


async def monerium_shop(
    db: AsyncSession, production: Settings, monerium: MoneriumSimulator, name: str
) -> tuple[ProjectCredentials, service.ProviderAccountView, str]:
    """A new production project with its Monerium account: its credentials, the account
    and the account's webhook secret."""
    box = SecretBox.from_settings(production)
    created = await projects.create_project(
        db, name=name, environment=Environment.PRODUCTION, secret_box=box
    )
    account, secret = await connect_monerium(db, production, monerium, created.projectId)
    project = ProjectCredentials(
        created.organizationId, created.projectId, created.clientId, created.clientSecret
    )
    return project, account, secret


async def open_intent(
    http: httpx.AsyncClient,
    token: str,
    accounts: tuple[str, str],
    amount: str,
    *,
    auto_execute: bool | None = None,
) -> httpx.Response:
    """`POST /v1/intent` for the customer's account pair, answered 201."""
    body: dict[str, Any] = {
        "srcExternalAccountId": accounts[0], "destExternalAccountId": accounts[1],
        "amount": amount,
    }  # fmt: skip
    if auto_execute is not None:
        body["autoExecute"] = auto_execute
    opened = await http.post("/v1/intent", json=body, headers=bearer(token))
    assert opened.status_code == 201, opened.text
    return opened


async def profile_made(
    http: httpx.AsyncClient, token: str, intent_id: str, monerium: MoneriumSimulator
) -> dict[str, Any]:
    """The one Monerium profile, once the intent's compliance plan has made it (under our
    id, when the plan is first asked for)."""
    await wait_for_intent(http, token, intent_id, lambda _: bool(monerium.profiles),
                          within=WITHIN)  # fmt: skip
    [profile] = monerium.profiles.values()
    return profile


@pytest.mark.parametrize(
    ("currency", "chain"),
    [("EURE_GNOSIS", "chiado"), ("EURE_POLYGON", "amoy")],
)
async def test_an_onramp_mints_eure_for_a_sepa_payment_quoting_our_reference(
    http: httpx.AsyncClient,
    db: AsyncSession,
    production: Settings,
    monerium: MoneriumSimulator,
    temporal_client: Client,
    sessions: async_sessionmaker[AsyncSession],
    currency: str,
    chain: str,
) -> None:
    """On Gnosis, and on another chain Monerium issues EURe on (its sandbox's test
    network: amoy is Polygon's): the IBAN, the link and the mint are on that chain."""
    monerium.reset()
    project, account, secret = await monerium_shop(db, production, monerium, "Euro shop")
    path = f"/v1/provider-webhooks/{account.id}"
    providers = await http.get("/v1/providers", headers=project.basic)
    assert [p["code"] for p in providers.json()] == ["MONERIUM"]
    routes = await http.get("/v1/currencies/supported", headers=project.basic)
    pairs = {(r["from"], r["to"]) for r in routes.json()}
    chains = ("GNOSIS", "ETHEREUM", "POLYGON", "ARBITRUM", "LINEA", "BASE")
    assert pairs == {("EUR", f"EURE_{c}") for c in chains} | {(f"EURE_{c}", "EUR") for c in chains}

    token = await customer_token(http, project, "lena")
    address = "0x52908400098527886E0F7030069857D2E4169EE7"
    accounts = await register_accounts(
        http, token, "EUR", currency, copy.deepcopy(SEPA), wallet(currency, address)
    )
    opened = await open_intent(http, token, accounts, "250.00", auto_execute=True)
    intent_id = opened.json()["intent"]["id"]
    steps = {s["code"] for s in opened.json()["intent"]["compliancePlan"]["steps"]}
    assert steps == {"KYC_BASIC", "PROOF_OF_ADDRESS"}
    # The profile is made under our id when the compliance plan is asked for.
    profile = await profile_made(http, token, intent_id, monerium)
    # The customer linked the wallet earlier, on the intent's chain.
    monerium.addresses[address.lower()] = {
        "profile": profile["id"], "address": address, "chains": [chain]}  # fmt: skip

    # Monerium approves the profile and says so; the token expires meanwhile.
    await monerium.set_profile_state(profile["id"], "approved")
    monerium.expire_tokens()
    await notify(http, monerium, path, secret, "profile.updated", profile)

    placed = await wait_for_intent(
        http, token, intent_id, lambda b: b.get("transaction") is not None, within=WITHIN
    )
    [instruction] = placed["transaction"]["context"]["depositInstructions"]
    details = instruction["instructions"]
    [iban] = monerium.ibans
    assert details["accountIdentifier"]["iban"] == iban
    assert monerium.ibans[iban]["chain"] == chain  # the IBAN mints on the intent's chain
    assert details["reference"] == payment_reference(placed["transaction"]["id"])
    assert details["amount"] == "250.00"
    assert len(monerium.calls("POST", "/ibans")) == 1  # a 202, then found on the retry
    assert monerium.tokens_issued >= 2  # the expired token was replaced, not refused

    # The payment lands quoting the reference: minted, then processed.
    order = await monerium.incoming_sepa(iban, "250.00", f"Order {details['reference']}")
    assert order["chain"] == chain
    await notify(http, monerium, path, secret, "order.created", order)
    await monerium.set_order_state(order["id"], "processed")
    await notify(http, monerium, path, secret, "order.updated", order)
    done = await wait_for_intent(
        http, token, intent_id, lambda b: b["intent"]["status"] == "COMPLETED", within=WITHIN
    )
    assert done["transaction"]["status"] == "SUCCESS"

    # After the workflow has closed, a notification of that payment is not unmatched
    # money: the transaction took its deposit.
    async with asyncio.timeout(WITHIN):
        await temporal_client.get_workflow_handle(workflow_id(intent_id)).result()
    await notify(http, monerium, path, secret, "order.updated", order)
    workflows = IntentWorkflowClient(temporal_client, production.task_queue)
    settled = await _unmatched_money(
        http, project, account.id, sessions, workflows, production, intent_id
    )
    assert settled == []

    # A payment quoting the reference of an intent cancelled before its deposit reaches
    # no workflow: the relay reports it as unmatched money on that intent, once.
    second = await open_intent(http, token, accounts, "80.00", auto_execute=True)
    cancelled_id = second.json()["intent"]["id"]
    placed = await wait_for_intent(
        http, token, cancelled_id, lambda b: b.get("transaction") is not None, within=WITHIN
    )
    cancel = await http.post(f"/v1/intent/{cancelled_id}/cancel", headers=bearer(token))
    assert cancel.status_code == 200, cancel.text
    async with asyncio.timeout(WITHIN):
        await temporal_client.get_workflow_handle(workflow_id(cancelled_id)).result()
    [instruction] = placed["transaction"]["context"]["depositInstructions"]
    reference = instruction["instructions"]["reference"]
    late = await monerium.incoming_sepa(iban, "80.00", f"Order {reference}")
    await notify(http, monerium, path, secret, "order.created", late)
    await notify(http, monerium, path, secret, "order.created", late)  # a redelivery
    [unmatched] = await _unmatched_money(
        http, project, account.id, sessions, workflows, production, cancelled_id
    )
    assert unmatched["data"]["transactionId"] == placed["transaction"]["id"]
    assert unmatched["data"]["providerReference"] == late["id"]
    assert unmatched["data"]["amount"] == "80.00"
    assert "already ended (CANCELLED)" in unmatched["data"]["unmatchedReason"]


async def test_a_declined_onramp_is_placed_when_asked_again_after_the_link(
    http: httpx.AsyncClient, db: AsyncSession, production: Settings, monerium: MoneriumSimulator
) -> None:
    monerium.reset()
    project, account, secret = await monerium_shop(db, production, monerium, "Euro shop 2")
    token = await customer_token(http, project, "noor")
    address = "0x8ba1f109551bD432803012645Ac136ddd64DBA72"
    accounts = await register_accounts(
        http, token, "EUR", "EURE_GNOSIS", copy.deepcopy(SEPA), wallet("EURE_GNOSIS", address)
    )
    opened = await open_intent(http, token, accounts, "40.00", auto_execute=False)
    intent_id = opened.json()["intent"]["id"]
    profile = await profile_made(http, token, intent_id, monerium)
    await monerium.set_profile_state(profile["id"], "approved")
    await notify(http, monerium, f"/v1/provider-webhooks/{account.id}", secret,
                 "profile.updated", profile)  # fmt: skip
    await wait_for_intent(
        http, token, intent_id,
        lambda b: all(s["status"] == "COMPLETED" for s in b["intent"]["compliancePlan"]["steps"]),
        within=WITHIN,
    )  # fmt: skip

    execute = f"/v1/intent/{intent_id}/transaction"
    declined = await http.post(execute, json={}, headers=bearer(token))
    assert declined.status_code == 502, declined.text
    assert "has not linked" in declined.json()["message"]
    assert monerium.calls("POST", "/ibans") == []
    # Asked again before the link: declined again (the driver placed it again).
    again = await http.post(execute, json={}, headers=bearer(token))
    assert again.status_code == 502, again.text

    # The customer links the wallet; the client asks again: placed.
    monerium.addresses[address.lower()] = {
        "profile": profile["id"], "address": address, "chains": ["chiado"]}  # fmt: skip
    placed = await http.post(execute, json={}, headers=bearer(token))
    assert placed.status_code in (200, 201), placed.text
    envelope = await wait_for_intent(
        http, token, intent_id, lambda b: b.get("transaction") is not None, within=WITHIN
    )
    [iban] = monerium.ibans
    [instruction] = envelope["transaction"]["context"]["depositInstructions"]
    assert instruction["instructions"]["accountIdentifier"]["iban"] == iban


async def test_an_offramp_is_signed_through_the_api_and_redeemed(
    http: httpx.AsyncClient, db: AsyncSession, production: Settings, monerium: MoneriumSimulator
) -> None:
    monerium.reset()
    project, account, secret = await monerium_shop(db, production, monerium, "Euro shop 3")
    path = f"/v1/provider-webhooks/{account.id}"
    token = await customer_token(http, project, "ines")
    accounts = await register_accounts(
        http, token, "EURE_GNOSIS", "EUR", wallet("EURE_GNOSIS", WALLET.address),
        copy.deepcopy(SEPA),
    )  # fmt: skip
    opened = await open_intent(http, token, accounts, "75.50", auto_execute=False)
    intent_id = opened.json()["intent"]["id"]
    signature_path = f"/v1/intent/{intent_id}/signature"
    profile = await profile_made(http, token, intent_id, monerium)
    await monerium.set_profile_state(profile["id"], "approved")
    await notify(http, monerium, path, secret, "profile.updated", profile)

    # First the wallet's link, on the hosted page (its onboarding token): exactly
    # Monerium's sentence, signed by the wallet.
    hosted = f"/v1/onboarding/{intent_id}/signature"
    page = bearer(onboarding_token(opened.json()))
    link = await http.get(hosted, headers=page)
    assert link.status_code == 200, link.text
    assert link.json()["purpose"] == "LINK_ADDRESS"
    assert link.json()["address"] == WALLET.address
    assert (await http.get(hosted, headers=bearer(token))).status_code == 401
    forged = await http.post(
        hosted,
        json={"purpose": "LINK_ADDRESS", "message": "something else", "signature": "0x00"},
        headers=page,
    )
    assert forged.status_code == 400, forged.text
    assert forged.json()["code"] == "SIGNATURE_REFUSED"
    linked = await http.post(
        hosted,
        json={"purpose": "LINK_ADDRESS", "message": link.json()["message"],
              "signature": _sign(link.json()["message"])},
        headers=page,
    )  # fmt: skip
    assert linked.json() == {"purpose": "LINK_ADDRESS", "outcome": "LINKED"}, linked.text

    # Then the redeem order (the project's app this time, with the customer's token):
    # amount, IBAN and a deadline, signed and kept for the order.
    redeem = await http.get(signature_path, headers=bearer(token))
    assert redeem.json()["purpose"] == "REDEEM_ORDER", redeem.text
    message = redeem.json()["message"]
    assert message.startswith("Send EUR 75.50 to DE89370400440532013000 at ")
    stored = await http.post(
        signature_path,
        json={"purpose": "REDEEM_ORDER", "message": message, "signature": _sign(message)},
        headers=bearer(token),
    )
    assert stored.json() == {"purpose": "REDEEM_ORDER", "outcome": "STORED"}, stored.text
    await wait_for_intent(
        http, token, intent_id,
        lambda b: all(s["status"] == "COMPLETED" for s in b["intent"]["compliancePlan"]["steps"]),
        within=WITHIN,
    )  # fmt: skip
    placed = await http.post(f"/v1/intent/{intent_id}/transaction", json={},
                             headers=bearer(token))  # fmt: skip
    assert placed.status_code in (200, 201), placed.text
    [order] = monerium.orders.values()
    assert (order["kind"], order["amount"]) == ("redeem", "75.50")
    assert monerium.calls("POST", "/orders")[0].body["message"] == message
    nothing = await http.get(signature_path, headers=bearer(token))
    assert nothing.status_code == 409
    assert nothing.json()["code"] == "NOTHING_TO_SIGN"

    for state in ("pending", "processed"):
        await monerium.set_order_state(order["id"], state)
        await notify(http, monerium, path, secret, "order.updated", order)
    done = await wait_for_intent(
        http, token, intent_id, lambda b: b["intent"]["status"] == "COMPLETED", within=WITHIN
    )
    assert done["transaction"]["status"] == "SUCCESS"


def _sign(message: str) -> str:
    signed = WALLET.sign_message(encode_defunct(text=message))
    return "0x" + bytes(signed.signature).hex().removeprefix("0x")


async def test_money_without_our_reference_and_money_off_the_amount(
    http: httpx.AsyncClient,
    db: AsyncSession,
    production: Settings,
    monerium: MoneriumSimulator,
    temporal_client: Client,
    sessions: async_sessionmaker[AsyncSession],
) -> None:
    """A payment with no reference from the customer's own account, for the one open
    on-ramp's amount, is that on-ramp's; a payment quoting a reference with another
    amount is unmatched money on its intent; a payment with an unknown reference that
    no intent matches is unmatched money with no intent."""
    monerium.reset()
    project, account, secret = await monerium_shop(db, production, monerium, "Euro shop 4")
    path = f"/v1/provider-webhooks/{account.id}"
    token = await customer_token(http, project, "omar")
    address = "0x3f5CE5FBFe3E9af3971dD833D26bA9b5C936f0bE"
    accounts = await register_accounts(
        http, token, "EUR", "EURE_GNOSIS", copy.deepcopy(SEPA), wallet("EURE_GNOSIS", address)
    )
    intents = []
    for amount in ("120.00", "99.00"):
        opened = await open_intent(http, token, accounts, amount, auto_execute=True)
        intents.append(opened.json()["intent"]["id"])
        if len(intents) == 1:
            profile = await profile_made(http, token, intents[0], monerium)
            monerium.addresses[address.lower()] = {
                "profile": profile["id"], "address": address, "chains": ["chiado"]}  # fmt: skip
            await monerium.set_profile_state(profile["id"], "approved")
    await notify(http, monerium, path, secret, "profile.updated", profile)
    placed = [
        await wait_for_intent(
            http, token, intent_id, lambda b: b.get("transaction") is not None, within=WITHIN
        )
        for intent_id in intents
    ]
    [iban] = monerium.ibans

    # No reference, but the customer's account and the first on-ramp's amount: its money.
    paid = await monerium.incoming_sepa(iban, "120.00", "Thanks!", payer_iban=SEPA_IBAN)
    await notify(http, monerium, path, secret, "order.created", paid)
    await monerium.set_order_state(paid["id"], "processed")
    await notify(http, monerium, path, secret, "order.updated", paid)
    done = await wait_for_intent(
        http, token, intents[0], lambda b: b["intent"]["status"] == "COMPLETED", within=WITHIN
    )
    assert done["transaction"]["status"] == "SUCCESS"

    # The second on-ramp's reference, with another amount: unmatched money on it.
    reference = placed[1]["transaction"]["context"]["depositInstructions"][0]["instructions"][
        "reference"
    ]
    short = await monerium.incoming_sepa(iban, "98.00", reference, payer_iban=SEPA_IBAN)
    await notify(http, monerium, path, secret, "order.created", short)
    handle = temporal_client.get_workflow_handle(workflow_id(intents[1]))
    async with asyncio.timeout(WITHIN):
        while True:
            described = await handle.describe()
            if described.typed_search_attributes.get(temporal.MONEY_ISSUE) == "UNMATCHED_DEPOSIT":
                break
            await asyncio.sleep(0.1)

    # A payment with an unknown reference, from an account the customer never gave, for
    # no open on-ramp's amount: no intent takes it. Once the grace has passed (another
    # relay's round, later) it is reported as unmatched money with no intent, once,
    # whatever the number of notifications about it.
    stray = await monerium.incoming_sepa(iban, "77.00", "RAMP0000DEADBEEF gift",
                                         payer_iban=STRANGER_IBAN)  # fmt: skip
    await notify(http, monerium, path, secret, "order.created", stray)
    later = IntentWorkflowClient(temporal_client, production.task_queue)
    [unmatched] = await _unmatched_money(http, project, account.id, sessions, later, production)
    assert unmatched["eventType"] == "DEPOSIT_UNMATCHED"
    assert unmatched["projectId"] == project.project_id
    assert unmatched["data"] == {
        "intentId": None,
        "customerId": placed[0]["intent"]["customerId"],
        "transactionId": None,
        "providerReference": stray["id"],
        "unmatchedReason": NO_INTENT_REASON,
        "amount": "77.00",
        "currency": "EUR",
        "providerAccountId": account.id,
    }
    await monerium.set_order_state(stray["id"], "processed")
    await notify(http, monerium, path, secret, "order.updated", stray)
    assert await _unmatched_money(http, project, account.id, sessions, later, production) == [
        unmatched
    ]
    one = await http.get(f"/v1/events/{unmatched['eventId']}", headers=project.basic)
    assert one.json() == unmatched


async def _unmatched_money(
    http: httpx.AsyncClient,
    project: ProjectCredentials,
    provider_account_id: str,
    sessions: async_sessionmaker[AsyncSession],
    workflows: IntentWorkflowClient,
    production: Settings,
    intent_id: str | None = None,
) -> list[dict[str, Any]]:
    """The project's DEPOSIT_UNMATCHED events of `intent_id` (None: of no intent), once
    every event of the account is applied, relayed past the grace (the relay's clock
    moved on)."""
    async with asyncio.timeout(WITHIN):
        while True:
            await relay(sessions, workflows, SecretBox.from_settings(production),
                        clock=lambda: utcnow() + UNREFERENCED_GRACE)  # fmt: skip
            async with sessions() as session:
                pending = (
                    await session.exec(
                        select(ProviderWebhookEvent.id).where(
                            ProviderWebhookEvent.provider_account_id == provider_account_id,
                            col(ProviderWebhookEvent.applied_at).is_(None),
                        )
                    )
                ).all()
            if not pending:
                break
            await asyncio.sleep(0.1)
    listed = await http.get(
        "/v1/events", params={"type": "DEPOSIT_UNMATCHED"}, headers=project.basic
    )
    assert listed.status_code == 200, listed.text
    return [e for e in listed.json() if e["data"]["intentId"] == intent_id]


async def test_the_hosted_forms_are_forwarded_to_the_profile_and_monerium_decides(
    http: httpx.AsyncClient, db: AsyncSession, production: Settings, monerium: MoneriumSimulator
) -> None:
    monerium.reset()
    project, account, secret = await monerium_shop(db, production, monerium, "Euro shop 5")
    token = await customer_token(http, project, "yara")
    accounts = await register_accounts(
        http, token, "EUR", "EURE_GNOSIS", copy.deepcopy(SEPA), wallet("EURE_GNOSIS")
    )
    opened = await open_intent(http, token, accounts, "60.00")
    intent_id = opened.json()["intent"]["id"]
    page = onboarding_token(opened.json())
    profile = await profile_made(http, token, intent_id, monerium)

    # Monerium's details need a phone number: its form asks one.
    phoneless = await submit(http, intent_id, page, "KYC_BASIC", kyc_basic())
    assert phoneless.status_code == 400, phoneless.text
    assert phoneless.json()["details"]["fields"][0]["pointer"] == "/phone"
    identity = await submit(http, intent_id, page, "KYC_BASIC", kyc_basic(phone="+3548888888"))
    assert identity.status_code == 200, identity.text
    assert step(identity.json(), "KYC_BASIC")["status"] == "SUBMITTED"
    details = monerium.calls("PATCH", f"/profiles/{profile['id']}/details")[0].body
    assert details["personal"]["lastName"] == kyc_basic()["lastName"]
    assert details["personal"]["phone"] == "+3548888888"
    # Every field Monerium requires was there: the section is under review, not incomplete.
    assert monerium.profiles[profile["id"]]["details"]["state"] == "pending"
    assert details["personal"]["idDocument"]["kind"] == "passport"
    # Monerium reviews the identity first (the address step depends on it).
    await monerium.set_profile_state(
        profile["id"], "pending", {"details": "approved", "idDocument": "approved"}
    )
    await notify(http, monerium, f"/v1/provider-webhooks/{account.id}", secret,
                 "profile.updated", monerium.profiles[profile["id"]])  # fmt: skip
    await wait_for_intent(
        http, token, intent_id,
        lambda b: b["intent"]["compliancePlan"]["steps"][0]["status"] == "COMPLETED",
        within=WITHIN,
    )  # fmt: skip
    address = await submit(http, intent_id, page, "PROOF_OF_ADDRESS", {
        "documentType": "UTILITY_BILL", "issuer": "Vattenfall",
        "issueDate": date.today().isoformat(), "file": document(),
    })  # fmt: skip
    assert address.status_code == 200, address.text
    kinds = {v["kind"]: v["state"] for v in monerium.profiles[profile["id"]]["verifications"]}
    assert kinds == {"idDocument": "approved", "proofOfResidency": "pending"}
    assert len(monerium.files) == 2

    # Monerium decides: approved, by webhook.
    await monerium.set_profile_state(profile["id"], "approved")
    await notify(http, monerium, f"/v1/provider-webhooks/{account.id}", secret,
                 "profile.updated", monerium.profiles[profile["id"]])  # fmt: skip
    await wait_for_intent(
        http, token, intent_id,
        lambda b: all(s["status"] == "COMPLETED" for s in b["intent"]["compliancePlan"]["steps"]),
        within=WITHIN,
    )  # fmt: skip


@pytest.fixture(scope="module")
async def bridge() -> AsyncIterator[BridgeSimulator]:
    async with bridge_running(BridgeSimulator(api_keys={BRIDGE_KEY})) as simulator:
        yield simulator


# What the customer typed in Bridge's own KYC flow; Bridge's customer object shows it
# (names and residential address, an alpha-3 country), nothing else of it.
BRIDGE_PERSON = {
    "first_name": "Zoë",
    "last_name": "Quillfeather",
    "address": {"street_line_1": "Unter den Linden 5", "city": "Berlin",
                "postal_code": "10117", "country": "DEU"},
}  # fmt: skip


async def test_a_customer_onboarded_with_bridge_is_asked_only_what_monerium_needs_beyond(
    http: httpx.AsyncClient,
    db: AsyncSession,
    production: Settings,
    monerium: MoneriumSimulator,
    bridge: BridgeSimulator,
) -> None:
    monerium.reset()
    merchant = await connected_project(db, production, bridge)
    account, _ = await connect_monerium(db, production, monerium, merchant.project.project_id)
    # Bridge's KYC, completed in Bridge's own flow (nothing typed on our page).
    token, bridge_intent = await approved_customer(
        http, bridge, merchant, "zoe", "USD", "USDC_ETHEREUM", copy.deepcopy(ACH),
        wallet("USDC_ETHEREUM"), person=BRIDGE_PERSON,
    )  # fmt: skip
    await wait_for_intent(
        http, token, bridge_intent,
        lambda b: b["intent"]["compliancePlan"]["status"] == "COMPLETED", within=WITHIN,
    )  # fmt: skip

    # The same customer starts a Monerium route.
    accounts = await register_accounts(
        http, token, "EUR", "EURE_GNOSIS", copy.deepcopy(SEPA), wallet("EURE_GNOSIS")
    )
    opened = await open_intent(http, token, accounts, "60.00")
    intent_id = opened.json()["intent"]["id"]
    page = onboarding_token(opened.json())
    profile = await profile_made(http, token, intent_id, monerium)

    view = await onboarding(http, intent_id, page)
    [offer] = view["sharing"]
    assert offer["providerName"] == "Bridge"
    assert offer["providerAccountId"] == merchant.provider_account_id
    assert offer["consent"] is None
    assert set(offer["fields"]) == {
        "KYC_BASIC.firstName", "KYC_BASIC.lastName", "KYC_BASIC.address.line1",
        "KYC_BASIC.address.city", "KYC_BASIC.address.postalCode", "KYC_BASIC.address.country",
    }  # fmt: skip
    fields = {f["name"]: f for f in step(view, "KYC_BASIC")["fields"]}
    assert fields["phone"]["kind"] == "tel"
    assert fields["phone"]["required"]
    assert all(f["prefilledFrom"] is None for f in fields.values())

    # What Monerium needs beyond Bridge's data: birth date, nationality, ID, phone.
    beyond = {
        "dateOfBirth": "1988-07-14",
        "nationality": "DE",
        "idDocument": kyc_basic()["idDocument"],
        "phone": "+49 151 2345 6789",
    }
    # Declined: nothing is shared, the customer is asked everything again.
    declined = await consent(http, intent_id, page, merchant.provider_account_id, False)
    assert declined["sharing"][0]["consent"] == "DECLINED"
    partial = await submit(http, intent_id, page, "KYC_BASIC", beyond)
    assert partial.status_code == 400, partial.text
    pointers = {f["pointer"] for f in partial.json()["details"]["fields"]}
    assert {"/firstName", "/lastName", "/address"} <= pointers
    assert not monerium.calls("PATCH", f"/profiles/{profile['id']}/details")

    # Granted (the customer changed their mind): the fields are filled from Bridge.
    granted = await consent(http, intent_id, page, merchant.provider_account_id, True)
    assert granted["sharing"][0]["consent"] == "GRANTED"
    fields = {f["name"]: f for f in step(granted, "KYC_BASIC")["fields"]}
    assert fields["firstName"]["prefilledFrom"] == "Bridge"
    assert fields["address.country"]["prefilledFrom"] == "Bridge"
    assert fields["phone"]["prefilledFrom"] is None
    assert step(granted, "KYC_BASIC")["status"] == "PENDING"  # phone etc. still missing
    bad_phone = await submit(http, intent_id, page, "KYC_BASIC", {**beyond, "phone": "0151 23"})
    assert bad_phone.status_code == 400, bad_phone.text
    assert bad_phone.json()["details"]["fields"][0]["pointer"] == "/phone"
    identity = await submit(http, intent_id, page, "KYC_BASIC", beyond)
    assert identity.status_code == 200, identity.text
    assert step(identity.json(), "KYC_BASIC")["status"] == "SUBMITTED"
    # Forwarded to Monerium's details: Bridge's names and address, the typed rest.
    [details] = monerium.calls("PATCH", f"/profiles/{profile['id']}/details")
    personal = details.body["personal"]
    assert personal["firstName"] == "Zoë"
    assert personal["lastName"] == "Quillfeather"
    assert (personal["address"], personal["city"], personal["country"]) == (
        "Unter den Linden 5", "Berlin", "DE",
    )  # fmt: skip
    assert personal["phone"] == "+4915123456789"
    assert personal["birthday"] == "1988-07-14"
    assert monerium.profiles[profile["id"]]["details"]["state"] == "pending"

    # The consent, per provider account pair, with when; the data encrypted at rest.
    [answer] = (
        await db.exec(
            select(ComplianceConsent).where(
                ComplianceConsent.target_provider_account_id == account.id
            )
        )
    ).all()
    assert answer.source_provider_account_id == merchant.provider_account_id
    assert answer.granted
    assert answer.decided_at is not None
    assert "KYC_BASIC.firstName" in answer.fields
    stored = (
        await db.exec(text("SELECT fields_encrypted FROM compliance_record"))  # type: ignore[call-overload]
    ).all()
    assert stored
    assert all("Quillfeather" not in row[0] for row in stored)


async def consent(
    http: httpx.AsyncClient, intent_id: str, page: str, source: str, granted: bool
) -> dict[str, Any]:
    answer = await http.post(
        f"/v1/onboarding/{intent_id}/consent",
        json={"providerAccountId": source, "granted": granted},
        headers=bearer(page),
    )
    assert answer.status_code == 200, answer.text
    body: dict[str, Any] = answer.json()
    return body
