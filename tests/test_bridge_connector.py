"""The Bridge connector against the Bridge simulator (a real HTTP server on loopback).

No stand-in for our own code: the connector, its client and its mappings run as in
production; only Bridge is simulated, from its public API reference.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from email.utils import format_datetime

import httpx
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from ramp.adapters.bridge import DOCUMENTED_HOSTS, BridgeConnector
from ramp.adapters.bridge.credentials import InvalidCredentials, base_url, to_credentials
from ramp.adapters.bridge.webhooks import verify_signature
from ramp.adapters.contract import (
    ComplianceMode,
    Connector,
    CredentialsRejected,
    NotSupported,
    ProviderComplianceEvent,
    ProviderContext,
    ProviderCustomerRef,
    ProviderRefused,
    ProviderTransferEvent,
    ProviderUnavailable,
    TransactionOrder,
    WebhookRejected,
)
from ramp.adapters.http_common import retry_after_seconds
from ramp.catalog import MovementType, Rail
from ramp.intents.models import BankDepositInstructions, CryptoDepositInstructions
from ramp.intents.states import ProviderEventType as E
from ramp.intents.states import StepOutcome
from tests.helpers.production import SIMULATOR_NETWORK
from tests.helpers.webhook_receiver import receiving
from tests.simulators.bridge import BridgeSimulator, Fault, running
from tests.simulators.bridge_data import WALLET, onramp, profile, sepa_account, us_account, wallet

GOOD_KEY = "sk-test-simulated-key"


@pytest.fixture(scope="module")
async def bridge() -> AsyncIterator[BridgeSimulator]:
    async with running(BridgeSimulator(api_keys={GOOD_KEY})) as simulator:
        yield simulator


@pytest.fixture(autouse=True)
def _fresh(bridge: BridgeSimulator) -> None:
    bridge.reset()


# Typed as the protocol: the type checker proves the Bridge connector fulfils the
# contract. Its timeouts are the production ones: the simulator shares the test's event
# loop, and a loaded CI machine once held that loop past a one-second connect. Only the
# tests whose subject is a slow answer use `impatient`, which gives up after a second.
connector: Connector = BridgeConnector(network=SIMULATOR_NETWORK)
impatient: Connector = BridgeConnector(timeout=httpx.Timeout(1.0), network=SIMULATOR_NETWORK)


def context(
    bridge: BridgeSimulator, key: str = GOOD_KEY, pem: str | None = None
) -> ProviderContext:
    raw = {"apiKey": key, "environment": "sandbox", "baseUrl": bridge.url}
    return ProviderContext(
        provider_account_id="pa_test",
        credentials=to_credentials(raw),
        base_url=base_url(raw),
        webhook_public_key=pem or bridge.webhook_public_key,
    )


async def customer(bridge: BridgeSimulator) -> ProviderCustomerRef:
    return await connector.ensure_customer(context(bridge), profile())


# --- credentials ------------------------------------------------------------------------


def test_credentials_schema_and_documented_hosts() -> None:
    assert (
        base_url({"apiKey": "x" * 10, "environment": "production"})
        == DOCUMENTED_HOSTS["production"]
    )
    assert DOCUMENTED_HOSTS["sandbox"] == "https://api.sandbox.bridge.xyz/v0"
    with pytest.raises(InvalidCredentials) as refused:
        to_credentials({"apiKey": "sk-live-do-not-echo", "environment": "staging"})
    assert "sk-live-do-not-echo" not in str(refused.value)
    assert "do-not-echo" not in repr(
        to_credentials({"apiKey": "sk-do-not-echo", "environment": "sandbox"})
    )


async def test_verify_credentials_accepts_a_good_key(bridge: BridgeSimulator) -> None:
    await connector.verify_credentials(context(bridge))
    (request,) = bridge.requests
    assert (request.method, request.path, request.api_key) == ("GET", "/v0/customers", GOOD_KEY)
    assert request.idempotency_key is None  # Bridge wants it on POSTs only


async def test_verify_credentials_rejected_without_logging_the_key(
    bridge: BridgeSimulator, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    with pytest.raises(CredentialsRejected) as rejected:
        await connector.verify_credentials(context(bridge, key="sk-test-revoked-key"))
    assert "Invalid API key" in str(rejected.value)
    assert "sk-test-revoked-key" not in caplog.text + str(rejected.value)


# --- customers and compliance -----------------------------------------------------------


async def test_ensure_customer_is_idempotent(bridge: BridgeSimulator) -> None:
    ctx = context(bridge)
    bridge.fail_next(Fault(status=503, path="/v0/kyc_links"))
    with pytest.raises(ProviderUnavailable):
        await connector.ensure_customer(ctx, profile())
    first = await connector.ensure_customer(ctx, profile())
    again = await connector.ensure_customer(ctx, profile())
    assert first == again
    # A returning customer, long after Bridge forgot the idempotency key, is found again.
    bridge.expire_idempotency_keys()
    assert await connector.ensure_customer(ctx, profile()) == first
    assert len(bridge.customers) == 1
    (created,) = [p for p in bridge.posts("/v0/kyc_links") if p.body is not None][-1:]
    assert created.idempotency_key == "ramp-customer-cus_1"
    assert created.body == {
        "full_name": "Ada Lovelace",
        "email": "ada1@example.com",
        "type": "individual",
    }


async def test_kyc_and_terms_are_link_handoffs_following_bridge_status(
    bridge: BridgeSimulator,
) -> None:
    ctx, ref = context(bridge), await customer(bridge)
    link_id = ref.handles["kycLinkId"]
    kyc = await connector.compliance(ctx, ref, "KYC_BASIC")
    terms = await connector.compliance(ctx, ref, "TERMS_OF_SERVICE")
    assert kyc.mode is terms.mode is ComplianceMode.LINK
    assert kyc.url == bridge.kyc_links[link_id]["kyc_link"]
    assert terms.url == bridge.kyc_links[link_id]["tos_link"]
    assert kyc.outcome is None
    assert terms.outcome is None

    bridge.set_kyc(link_id, kyc_status="under_review", tos_status="approved")
    assert (await connector.compliance(ctx, ref, "KYC_BASIC")).outcome is StepOutcome.SUBMITTED
    assert (
        await connector.compliance(ctx, ref, "TERMS_OF_SERVICE")
    ).outcome is StepOutcome.VERIFIED
    bridge.set_kyc(link_id, kyc_status="rejected")
    rejected = await connector.compliance(ctx, ref, "KYC_BASIC")
    assert rejected.outcome is StepOutcome.REJECTED
    # The customer-facing reason, never Bridge's developer note.
    assert rejected.reason == "Cannot validate ID -- upload a valid ID"
    with pytest.raises(NotSupported):
        await connector.compliance(ctx, ref, "SOURCE_OF_FUNDS")


# --- external accounts ------------------------------------------------------------------


async def test_register_account_maps_bridge_validation_to_our_pointers(
    bridge: BridgeSimulator,
) -> None:
    ctx, ref = context(bridge), await customer(bridge)
    with pytest.raises(ProviderRefused) as refused:
        await connector.register_account(ctx, ref, us_account(routing="123456789"))
    assert list(refused.value.fields) == ["/accountIdentifier/routingNumber"]
    assert "routing number" in refused.value.reason

    first = await connector.register_account(ctx, ref, us_account())
    again = await connector.register_account(ctx, ref, us_account())
    assert first == again
    assert len(bridge.external_accounts) == 1
    sent = bridge.posts(f"/v0/customers/{ref.provider_customer_id}/external_accounts")[-1]
    assert sent.body["account"] == {
        "routing_number": "021000021",
        "account_number": "000123456789",
        "checking_or_savings": "checking",
    }
    assert sent.body["address"]["country"] == "USA"

    await connector.register_account(ctx, ref, sepa_account())
    sepa = bridge.posts(f"/v0/customers/{ref.provider_customer_id}/external_accounts")[-1]
    assert sepa.body["iban"] == {
        "account_number": "DE89370400440532013000",
        "bic": "COBADEFFXXX",
        "country": "DEU",
    }
    assert (sepa.body["first_name"], sepa.body["last_name"]) == ("Ada King", "Lovelace")


# --- transfers --------------------------------------------------------------------------


async def test_create_transfer_retried_after_a_timeout_places_one_transfer(
    bridge: BridgeSimulator,
) -> None:
    ctx, ref = context(bridge), await customer(bridge)
    bridge.fail_next(Fault(delay=2.5, path="/v0/transfers"))
    with pytest.raises(ProviderUnavailable):
        await impatient.create_transfer(ctx, ref, onramp())
    placed = await connector.create_transfer(ctx, ref, onramp())
    assert len(bridge.transfers) == 1
    assert placed.provider_reference == next(iter(bridge.transfers))
    attempts = bridge.posts("/v0/transfers")
    assert [a.idempotency_key for a in attempts] == ["txn_1", "txn_1"]

    # Our transaction id with another order is Bridge's idempotency conflict: refused.
    with pytest.raises(ProviderRefused):
        await connector.create_transfer(ctx, ref, onramp(amount="260.00"))
    assert len(bridge.transfers) == 1


async def test_ach_deposit_instructions_keep_every_field_the_payer_needs(
    bridge: BridgeSimulator,
) -> None:
    ref = await customer(bridge)
    placed = await connector.create_transfer(context(bridge), ref, onramp(Rail.ACH))
    sent = bridge.posts("/v0/transfers")[-1].body
    assert sent == {
        "client_reference_id": "txn_1",
        "amount": "250.00",
        "on_behalf_of": ref.provider_customer_id,
        "source": {"payment_rail": "ach_push", "currency": "usd"},
        "destination": {"payment_rail": "ethereum", "currency": "usdc", "to_address": WALLET},
    }
    given = bridge.transfers[placed.provider_reference]["source_deposit_instructions"]
    (instruction,) = placed.context.deposit_instructions
    bank = instruction.instructions
    assert instruction.type == "BANK"
    assert isinstance(bank, BankDepositInstructions)
    assert (bank.rail, bank.currency_code, bank.amount) == ("ACH", "USD", Decimal("250.00"))
    assert bank.reference == given["deposit_message"]
    assert bank.beneficiary_name == given["bank_beneficiary_name"]
    assert bank.bank_name == given["bank_name"]
    assert bank.account_identifier == {
        "routingNumber": given["bank_routing_number"],
        "accountNumber": given["bank_account_number"],
        "bankAddress": given["bank_address"],
        "beneficiaryAddress": given["bank_beneficiary_address"],
    }


async def test_sepa_deposit_instructions(bridge: BridgeSimulator) -> None:
    ref = await customer(bridge)
    placed = await connector.create_transfer(context(bridge), ref, onramp(Rail.SEPA))
    sent = bridge.posts("/v0/transfers")[-1].body
    assert sent["source"] == {"payment_rail": "sepa", "currency": "eur"}
    assert sent["destination"]["payment_rail"] == "base"
    assert sent["destination"]["currency"] == "usdc"
    given = bridge.transfers[placed.provider_reference]["source_deposit_instructions"]
    bank = placed.context.deposit_instructions[0].instructions
    assert isinstance(bank, BankDepositInstructions)
    assert bank.rail == "SEPA"
    assert bank.currency_code == "EUR"
    assert bank.account_identifier == {
        "iban": given["iban"],
        "bic": given["bic"],
        "bankAddress": given["bank_address"],
    }
    assert bank.beneficiary_name == given["account_holder_name"]
    assert bank.reference == given["deposit_message"]


async def test_spei_deposit_instructions(bridge: BridgeSimulator) -> None:
    ref = await customer(bridge)
    placed = await connector.create_transfer(context(bridge), ref, onramp(Rail.SPEI))
    assert bridge.posts("/v0/transfers")[-1].body["source"] == {
        "payment_rail": "spei",
        "currency": "mxn",
    }
    given = bridge.transfers[placed.provider_reference]["source_deposit_instructions"]
    bank = placed.context.deposit_instructions[0].instructions
    assert isinstance(bank, BankDepositInstructions)
    assert (bank.rail, bank.currency_code) == ("SPEI", "MXN")
    assert bank.account_identifier == {"clabe": given["clabe"]}
    assert (bank.beneficiary_name, bank.reference) == (
        given["account_holder_name"],
        given["deposit_message"],
    )


async def test_a_transfer_bridge_refuses_is_not_retried(bridge: BridgeSimulator) -> None:
    unknown = ProviderCustomerRef(provider_customer_id="not-a-bridge-customer")
    with pytest.raises(ProviderRefused) as refused:
        await connector.create_transfer(context(bridge), unknown, onramp())
    assert "unknown customer" in refused.value.reason
    assert refused.value.fields == {}  # Bridge's key names none of our fields
    assert bridge.transfers == {}


async def test_a_transfer_blocked_by_aml_screening_is_a_refusal_not_a_rejected_key(
    bridge: BridgeSimulator,
) -> None:
    bridge.aml_flagged.add(profile().email)
    with pytest.raises(ProviderRefused) as refused:
        await connector.create_transfer(context(bridge), await customer(bridge), onramp())
    assert "aml_violation" in refused.value.reason
    assert bridge.transfers == {}


@pytest.mark.parametrize(
    ("status", "code", "message", "rejects_the_key"),
    [
        (401, "unauthorized", "Invalid API key", True),
        (403, "forbidden", "This API key has been revoked", True),
        (403, "invalid_api_key", "Forbidden", True),
        (403, "missing_required_endorsements", "Customer lacks a required endorsement", False),
        (403, "developer_limits_exceeded", "Developer-level transaction limits exceeded", False),
        (401, "not_allowed", "Requested rail or feature is not enabled", False),
    ],
)
async def test_only_a_key_bridge_does_not_accept_is_credentials_rejected(
    bridge: BridgeSimulator, status: int, code: str, message: str, rejects_the_key: bool
) -> None:
    ref = await customer(bridge)
    bridge.fail_next(Fault(status=status, code=code, message=message, path="/v0/transfers"))
    with pytest.raises((CredentialsRejected, ProviderRefused)) as failed:
        await connector.create_transfer(context(bridge), ref, onramp())
    assert isinstance(failed.value, CredentialsRejected) is rejects_the_key
    assert message in str(failed.value)


async def test_offramp_pays_out_to_the_registered_account(bridge: BridgeSimulator) -> None:
    ctx, ref = context(bridge), await customer(bridge)
    payout = await connector.register_account(ctx, ref, sepa_account())
    order = TransactionOrder(
        transaction_id="txn_off",
        movement_type=MovementType.OFFRAMP,
        amount=Decimal("100.5"),
        source=wallet("USDC_BASE"),
        destination=sepa_account(),
    )
    placed = await connector.create_transfer(ctx, ref, order, payout)
    sent = bridge.posts("/v0/transfers")[-1].body
    assert sent["source"] == {"payment_rail": "base", "currency": "usdc", "from_address": WALLET}
    assert sent["destination"] == {
        "payment_rail": "sepa",
        "currency": "eur",
        "external_account_id": payout.provider_account_ref,
    }
    crypto = placed.context.deposit_instructions[0].instructions
    given = bridge.transfers[placed.provider_reference]["source_deposit_instructions"]
    assert isinstance(crypto, CryptoDepositInstructions)
    assert (crypto.address, crypto.chain, crypto.currency_code) == (
        given["to_address"],
        "BASE",
        "USDC_BASE",
    )
    assert crypto.amount_in_smallest_unit == "100500000"


@pytest.mark.parametrize(
    ("state", "events", "cancellable"),
    [
        ("awaiting_funds", (), True),
        ("in_review", (), False),
        ("funds_received", (E.DEPOSIT_RECEIVED,), False),
        ("payment_submitted", (E.DEPOSIT_RECEIVED, E.PAYOUT_SENT), False),
        ("payment_processed", (E.DEPOSIT_RECEIVED, E.PAYOUT_SENT, E.SETTLED), False),
        ("returned", (E.DEPOSIT_RECEIVED, E.RETURNED), False),
        ("refunded", (E.DEPOSIT_RECEIVED, E.RETURNED), False),
        ("undeliverable", (E.DEPOSIT_RECEIVED, E.FAILED), False),
        ("canceled", (E.CANCELLED,), False),
        ("error", (E.FAILED,), False),
    ],
)
async def test_get_transfer_maps_bridge_states(
    bridge: BridgeSimulator, state: str, events: tuple[E, ...], cancellable: bool
) -> None:
    ctx, ref = context(bridge), await customer(bridge)
    placed = await connector.create_transfer(ctx, ref, onramp())
    bridge.set_state(placed.provider_reference, state)
    status = await connector.get_transfer(ctx, placed.provider_reference)
    assert (status.provider_state, status.events, status.cancellable) == (
        state,
        events,
        cancellable,
    )


async def test_cancel_while_awaiting_funds_and_refused_after(bridge: BridgeSimulator) -> None:
    ctx, ref = context(bridge), await customer(bridge)
    waiting = await connector.create_transfer(ctx, ref, onramp(txn="txn_a"))
    await connector.cancel_transfer(ctx, waiting.provider_reference)
    assert bridge.transfers[waiting.provider_reference]["state"] == "canceled"
    await connector.cancel_transfer(ctx, waiting.provider_reference)  # idempotent
    deletes = [r for r in bridge.requests if r.method == "DELETE"]
    assert [r.path for r in deletes] == [f"/v0/transfers/{waiting.provider_reference}"]

    funded = await connector.create_transfer(ctx, ref, onramp(txn="txn_b"))
    bridge.set_state(funded.provider_reference, "funds_received")
    with pytest.raises(NotSupported):
        await connector.cancel_transfer(ctx, funded.provider_reference)
    assert bridge.transfers[funded.provider_reference]["state"] == "funds_received"
    assert len([r for r in bridge.requests if r.method == "DELETE"]) == 1


async def test_rate_limit_is_unavailable_with_retry_after(bridge: BridgeSimulator) -> None:
    ctx = context(bridge)
    bridge.fail_next(Fault(status=429, retry_after="7"))
    with pytest.raises(ProviderUnavailable) as limited:
        await connector.verify_credentials(ctx)
    assert limited.value.retry_after == 7.0
    bridge.fail_next(Fault(status=502))
    with pytest.raises(ProviderUnavailable) as down:
        await connector.verify_credentials(ctx)
    assert down.value.retry_after is None
    now = datetime(2026, 1, 1, tzinfo=UTC)
    assert retry_after_seconds(format_datetime(now + timedelta(seconds=30), usegmt=True), now) == 30


# --- webhooks ---------------------------------------------------------------------------


async def transfer_event(bridge: BridgeSimulator, state: str) -> bytes:
    placed = await connector.create_transfer(context(bridge), await customer(bridge), onramp())
    bridge.set_state(placed.provider_reference, state)
    return bridge.event("transfer", bridge.transfers[placed.provider_reference])


async def test_webhook_signed_by_bridge_is_verified_and_mapped(bridge: BridgeSimulator) -> None:
    body = await transfer_event(bridge, "payment_processed")
    async with receiving() as endpoint:  # delivered over HTTP, as Bridge posts it
        assert await bridge.deliver(endpoint.url, body) == 200
    (delivered,) = endpoint.received
    (event,) = connector.parse_webhook(context(bridge), delivered.headers, delivered.body)
    assert isinstance(event, ProviderTransferEvent)
    assert event.provider_event_id == json.loads(body)["event_id"]
    assert event.events == (E.DEPOSIT_RECEIVED, E.PAYOUT_SENT, E.SETTLED)

    ref = await customer(bridge)
    link_id = ref.handles["kycLinkId"]
    bridge.set_kyc(link_id, kyc_status="approved", tos_status="approved")
    body = bridge.event("kyc_link", bridge.kyc_links[link_id])
    events = connector.parse_webhook(context(bridge), bridge.sign(body), body)
    assert all(isinstance(e, ProviderComplianceEvent) for e in events)
    assert {
        (e.requirement, e.outcome) for e in events if isinstance(e, ProviderComplianceEvent)
    } == {
        ("TERMS_OF_SERVICE", StepOutcome.VERIFIED),
        ("KYC_BASIC", StepOutcome.VERIFIED),
        ("PROOF_OF_ADDRESS", StepOutcome.VERIFIED),
    }


async def test_webhook_tampered_stale_or_signed_with_another_key_is_rejected(
    bridge: BridgeSimulator,
) -> None:
    body = await transfer_event(bridge, "funds_received")
    ctx = context(bridge)
    headers = bridge.sign(body)
    tampered = body.replace(b"funds_received", b"payment_processed")
    with pytest.raises(WebhookRejected, match="does not match"):
        connector.parse_webhook(ctx, headers, tampered)

    eleven_minutes_ago = int((time.time() - 11 * 60) * 1000)
    with pytest.raises(WebhookRejected, match="stale"):
        connector.parse_webhook(ctx, bridge.sign(body, at_ms=eleven_minutes_ago), body)

    other = rsa.generate_private_key(public_exponent=65537, key_size=2048).public_key()
    other_pem = other.public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    ).decode()
    with pytest.raises(WebhookRejected, match="does not match"):
        connector.parse_webhook(context(bridge, pem=other_pem), headers, body)

    with pytest.raises(WebhookRejected):
        connector.parse_webhook(ctx, {"Content-Type": "application/json"}, body)
    timestamp = headers["X-Webhook-Signature"].split(",")[0]
    for malformed in ("v0=abc", f"{timestamp},v0=not*base64", "t=99999999999999999999,v0=AAAA"):
        with pytest.raises(WebhookRejected):
            connector.parse_webhook(ctx, {"x-webhook-signature": malformed}, body)
    nine_minutes_ago = int((time.time() - 9 * 60) * 1000)
    assert connector.parse_webhook(ctx, bridge.sign(body, at_ms=nine_minutes_ago), body)


# Bridge's published test data for its signature scheme (the "Test data" of
# https://apidocs.bridge.xyz/docs/webhook-event-signature-verification): a key, a body
# and the header Bridge sent for it. It settles what the simulator cannot: that we
# verify what Bridge really signs (the SHA-256 digest of "<t>.<body>", signed again
# with SHA-256), not merely what our own simulator signs.
BRIDGE_TEST_KEY = (
    "-----BEGIN PUBLIC KEY-----\n"
    "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAtqsEE4eI7EmzhcquGJXt\n"
    "LX9PMK0UH6Kl1WIR21sv8HtueG8BuvvpP3MiN7ltzmIhS8KaynCjN4l+620PnXeu\n"
    "xWG+CSnEdkinL9hCqbEid5vv9zl0j9LWiJx3FkKHqADU7cgm46aa8dKUdIQYF2X+\n"
    "O7WmyLkC4wUM/mWhBPMsIQBznashRMZxx7XJjsVp27ACUE4eNIjEXbVYN6U8jSbU\n"
    "hG++CfL8xXu+GHDqKmFE6Po6HnuURvLFVnCtE3mXXBcVFlPy+octfx8nOMLT3X8O\n"
    "9UehIigJ34o2yMm/Fq3HUJzg2BsiAiGgtr0vmeoV9Q7upSNj9TuOumAzZFi4pYA+\n"
    "qwIDAQAB\n"
    "-----END PUBLIC KEY-----\n"
)
BRIDGE_TEST_HEADER = (
    "t=1705854411204,v0=jz/0dmHJ63FAzacGutrDTEoq+iSz/PHm/ugdooXDQu5NwuVIT2LmZGjsnCsBHgR9Py6O"
    "BP9zurzW4dHgygU4EDqmMPTUOvhvndYb4lWt+TY66LihaFI2whL6DAf/jb1QjYjNU0A6x9SLzC45dgE6X7zTDU"
    "M+2Z+scG/WEQf6SxQMt4E2sEipl5PqMK5lYUe3otdJV+X2c9D64bGwCEE7QSia+Vhozg8QNOQEk/rdz2IEONIg"
    "6oC43CeiN4E2kF9XLAGuy9uAHx9O9OJH5ZPLJZjyo4VcXYeWQgxaQ1gZ1Qu6hEEzgiPSff/1nou58dm4bIIazg"
    "CWli/mO0NyGcpfFw=="
)
BRIDGE_TEST_BODY = b'{"message":"Hello World!"}'


def test_bridge_published_signature_test_data_verifies() -> None:
    signed_at = datetime.fromtimestamp(1705854411.204, UTC)
    headers = {"X-Webhook-Signature": BRIDGE_TEST_HEADER}
    verify_signature(headers, BRIDGE_TEST_BODY, BRIDGE_TEST_KEY, now=signed_at)
    with pytest.raises(WebhookRejected, match="does not match"):
        verify_signature(headers, BRIDGE_TEST_BODY + b" ", BRIDGE_TEST_KEY, now=signed_at)
    with pytest.raises(WebhookRejected, match="stale"):  # signed in January 2024
        verify_signature(headers, BRIDGE_TEST_BODY, BRIDGE_TEST_KEY)


async def test_an_answer_too_large_is_an_outage_not_a_full_memory() -> None:
    """A base URL may be an account's override: an answer past MAX_RESPONSE_BYTES (here
    valid JSON, endless in spirit) is refused as the provider's failure, read no
    further; before, the client read it whole and handed it on."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response, StreamingResponse
    from starlette.routing import Route

    from ramp.adapters.bridge.client import BridgeClient
    from ramp.adapters.http_common import MAX_RESPONSE_BYTES
    from tests.helpers.servers import served_over_http

    async def huge(request: Request) -> Response:
        async def body() -> AsyncIterator[bytes]:
            yield b'{"data": "'
            for _ in range(2 * MAX_RESPONSE_BYTES // 65536):
                yield b"x" * 65536
            yield b'"}'

        return StreamingResponse(body(), media_type="application/json")

    async def small(request: Request) -> Response:
        return Response(b'{"data": []}', media_type="application/json")

    app = Starlette(routes=[Route("/v0/customers", huge), Route("/v0/small", small)])
    async with served_over_http(app) as url:
        raw = {"apiKey": GOOD_KEY, "environment": "sandbox", "baseUrl": f"{url}/v0"}
        ctx = ProviderContext(
            provider_account_id="pa_test",
            credentials=to_credentials(raw),
            base_url=base_url(raw),
            webhook_public_key="",
        )
        async with BridgeClient(ctx, network=SIMULATOR_NETWORK) as client:
            assert await client.get("/small") == {"data": []}
            with pytest.raises(ProviderUnavailable, match="over"):
                await client.get("/customers")


async def test_an_answer_that_drips_ends_within_its_time_bound() -> None:
    """A body that sends a byte before each read times out (the timeout is per read)
    held the call, and its activity's worker slot, for as long as the sender went on;
    the whole exchange now ends within WHOLE_ANSWER_READS read timeouts."""
    import asyncio

    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response, StreamingResponse
    from starlette.routing import Route

    from ramp.adapters.bridge.client import BridgeClient
    from tests.helpers.servers import served_over_http

    read_timeout = 1.0
    dripping_for = 12 * read_timeout

    async def drip(request: Request) -> Response:
        async def body() -> AsyncIterator[bytes]:
            yield b'{"data": "'
            for _ in range(int(dripping_for / (read_timeout / 4))):
                await asyncio.sleep(read_timeout / 4)
                yield b"x"
            yield b'"}'

        return StreamingResponse(body(), media_type="application/json")

    app = Starlette(routes=[Route("/v0/customers", drip)])
    async with served_over_http(app) as url:
        raw = {"apiKey": GOOD_KEY, "environment": "sandbox", "baseUrl": f"{url}/v0"}
        ctx = ProviderContext(
            provider_account_id="pa_test",
            credentials=to_credentials(raw),
            base_url=base_url(raw),
            webhook_public_key="",
        )
        timeout = httpx.Timeout(read_timeout, connect=read_timeout)
        async with BridgeClient(ctx, timeout=timeout, network=SIMULATOR_NETWORK) as client:
            started = time.monotonic()
            with pytest.raises(ProviderUnavailable, match="in time"):
                await client.get("/customers")
            # Given up at the bound (2 read timeouts), long before the sender stopped.
            assert time.monotonic() - started < dripping_for / 2
