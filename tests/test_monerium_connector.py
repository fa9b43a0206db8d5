"""The Monerium connector against the Monerium simulator (a real HTTP server on loopback,
written from Monerium's OpenAPI document). Only Monerium is simulated: the connector,
its client, its token cache and its mappings run as in production."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import httpx
import pytest
from eth_account import Account
from eth_account.messages import encode_defunct
from pydantic import SecretStr

from ramp.adapters.bridge import BridgeConnector
from ramp.adapters.capabilities import GeneratesWebhookSecret, SigningConnector
from ramp.adapters.contract import (
    AccountDetails,
    ComplianceMode,
    Connector,
    CredentialsRejected,
    CustomerProfile,
    DepositMatch,
    NotSupported,
    ProviderComplianceEvent,
    ProviderContext,
    ProviderCustomerRef,
    ProviderRefused,
    ProviderTransferEvent,
    ProviderUnavailable,
    SignedMessage,
    TransactionOrder,
    WebhookRejected,
)
from ramp.adapters.http_common import TIMEOUT
from ramp.adapters.monerium import MoneriumConnector
from ramp.adapters.monerium.credentials import InvalidCredentials, base_url, to_credentials
from ramp.adapters.monerium.orders import payment_reference
from ramp.adapters.monerium.profiles import profile_id
from ramp.adapters.monerium.signatures import LINK_MESSAGE
from ramp.adapters.monerium.tokens import TokenCache
from ramp.catalog import MovementType, Rail
from ramp.intents.models import BankDepositInstructions
from ramp.intents.states import ProviderEventType as E
from ramp.intents.states import StepOutcome
from tests.helpers.production import SIMULATOR_NETWORK
from tests.helpers.webhook_receiver import Receiver, receiving
from tests.simulators.monerium import MEDIA_TYPE, Fault, MoneriumSimulator, running

CLIENT_ID = "a08bfa22-e6d6-41ed-891c-2ea11c960b3f"
CLIENT_SECRET = "simulated-client-secret"
WALLET = Account.from_key("0x" + "4c" * 32)
OTHER = Account.from_key("0x" + "5d" * 32)
PAYEE_IBAN = "DE89370400440532013000"


@pytest.fixture(scope="module")
async def monerium() -> AsyncIterator[MoneriumSimulator]:
    async with running(MoneriumSimulator(clients={CLIENT_ID: CLIENT_SECRET})) as simulator:
        yield simulator


@pytest.fixture(scope="module")
async def receiver() -> AsyncIterator[Receiver]:
    async with receiving() as receiver:
        yield receiver


@pytest.fixture(autouse=True)
def _fresh(monerium: MoneriumSimulator, receiver: Receiver) -> None:
    monerium.reset()
    receiver.received.clear()
    receiver.statuses.clear()


def connect(clock: datetime | None = None, timeout: httpx.Timeout = TIMEOUT) -> MoneriumConnector:
    # A cache of its own per test: what one test's tokens do never leaks into another.
    # Production timeouts unless a slow answer is the subject: the simulator shares the
    # test's event loop, which a loaded machine can hold past a second.
    return MoneriumConnector(
        timeout=timeout,
        network=SIMULATOR_NETWORK,
        tokens=TokenCache(),
        clock=(lambda: clock) if clock else (lambda: datetime.now(UTC)),
    )


def context(sim: MoneriumSimulator, secret: str = CLIENT_SECRET) -> ProviderContext:
    raw = {"clientId": CLIENT_ID, "clientSecret": secret, "environment": "sandbox",
           "baseUrl": sim.url}  # fmt: skip
    return ProviderContext(
        provider_account_id="pa_monerium",
        credentials=to_credentials(raw),
        base_url=base_url(raw),
        webhook_secret=SecretStr("whsec_" + "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"),
    )


def sepa(iban: str = PAYEE_IBAN) -> AccountDetails:
    return AccountDetails(
        currency_code="EUR",
        rail=Rail.SEPA,
        country_code="DE",
        metadata={"accountIdentifier": {"iban": iban}, "beneficiary": {"name": "Ada Lovelace"}},
    )


def wallet(address: str = WALLET.address) -> AccountDetails:
    return AccountDetails(currency_code="EURE_GNOSIS", metadata={"address": address})


def onramp(amount: str = "25.00") -> TransactionOrder:
    return TransactionOrder(
        transaction_id="txn_on_1",
        movement_type=MovementType.ONRAMP,
        amount=Decimal(amount),
        source=sepa(),
        destination=wallet(),
    )


def redeem(amount: str = "12.34", signed: SignedMessage | None = None) -> TransactionOrder:
    return TransactionOrder(transaction_id="txn_off_1", movement_type=MovementType.OFFRAMP,
                            amount=Decimal(amount), source=wallet(), destination=sepa(),
                            authorization=signed)  # fmt: skip


def sign(message: str, account: object = WALLET) -> str:
    signed = account.sign_message(encode_defunct(text=message))  # type: ignore[attr-defined]
    return "0x" + bytes(signed.signature).hex().removeprefix("0x")


async def linked_customer(
    connector: MoneriumConnector, ctx: ProviderContext
) -> ProviderCustomerRef:
    customer = await connector.ensure_customer(
        ctx, CustomerProfile(customer_id="cus_1", email="ada@example.com", full_name="Ada L")
    )
    request = connector.link_request(ctx, WALLET.address, "EURE_GNOSIS")
    linked = await connector.link_address(ctx, customer, request, sign(request.message))
    assert linked.outcome is StepOutcome.VERIFIED
    assert linked.mode is ComplianceMode.SIGN
    return customer


# --- credentials and tokens -----------------------------------------------------------


def test_credentials_schema_and_hosts() -> None:
    assert base_url({"environment": "sandbox"}) == "https://api.monerium.dev"
    assert base_url({"environment": "production"}) == "https://api.monerium.app"
    with pytest.raises(InvalidCredentials, match="clientSecret") as refused:
        to_credentials({"clientId": CLIENT_ID, "clientSecret": "short", "environment": "sandbox"})
    assert "short" not in str(refused.value)
    typed: Connector = connect()  # the type checker proves the contract is met
    assert typed.code == "MONERIUM"
    assert isinstance(typed, SigningConnector)
    assert isinstance(typed, GeneratesWebhookSecret)
    assert not isinstance(BridgeConnector(), SigningConnector | GeneratesWebhookSecret)


async def test_a_token_is_taken_once_and_every_call_carries_it(
    monerium: MoneriumSimulator,
) -> None:
    connector, ctx = connect(), context(monerium)
    await connector.verify_credentials(ctx)
    token_call = monerium.calls("POST", "/auth/token")[0]
    assert token_call.body == (
        f"grant_type=client_credentials&client_id={CLIENT_ID}&client_secret={CLIENT_SECRET}"
    )
    customer = ProviderCustomerRef(provider_customer_id=profile_id("cus_9"))
    for _ in range(3):
        await connector.ensure_customer(
            ctx, CustomerProfile(customer_id="cus_9", email="x@example.com", full_name="X Y")
        )
    await connector.compliance(ctx, customer, "KYC_BASIC")
    api = [r for r in monerium.requests if r.path != "/auth/token"]
    assert {r.accept for r in api} == {MEDIA_TYPE}
    assert len({r.authorization for r in api}) == 1
    # verify_credentials takes its own; the cache took one more for all the calls.
    assert monerium.tokens_issued == 2


async def test_an_expired_token_is_renewed_not_taken_for_rejected_credentials(
    monerium: MoneriumSimulator,
) -> None:
    connector, ctx = connect(), context(monerium)
    customer = ProviderCustomerRef(provider_customer_id=profile_id("cus_1"))
    await connector.ensure_customer(
        ctx, CustomerProfile(customer_id="cus_1", email="a@example.com", full_name="A B")
    )
    monerium.expire_tokens()  # mid-run, the hour is over
    handoff = await connector.compliance(ctx, customer, "KYC_BASIC")
    assert handoff.outcome is None
    assert monerium.tokens_issued == 2
    assert [r.path for r in monerium.requests[-3:]] == [
        f"/profiles/{customer.provider_customer_id}", "/auth/token",
        f"/profiles/{customer.provider_customer_id}",
    ]  # fmt: skip
    # A fresh token refused as well: that is the credentials.
    monerium.fail_next(Fault(status=401, path="/profiles"), times=2)
    with pytest.raises(CredentialsRejected, match="fresh access token"):
        await connector.compliance(ctx, customer, "KYC_BASIC")


async def test_refused_client_and_unavailable_token_endpoint(
    monerium: MoneriumSimulator,
) -> None:
    with pytest.raises(CredentialsRejected, match="client credentials"):
        await connect().verify_credentials(context(monerium, secret="wrong-secret-value"))
    monerium.fail_next(Fault(status=503, retry_after="7", path="/auth/token"))
    with pytest.raises(ProviderUnavailable) as unavailable:
        await connect().verify_credentials(context(monerium))
    assert unavailable.value.retry_after == 7.0


async def test_the_cache_renews_ahead_of_expiry() -> None:
    now = [0.0]
    cache, fetched = TokenCache(clock=lambda: now[0]), []

    async def fetch() -> tuple[str, float]:
        fetched.append(now[0])
        return f"t{len(fetched)}", 100.0

    assert await cache.token("k", fetch) == "t1"
    now[0] = 89.0
    assert await cache.token("k", fetch) == "t1"
    now[0] = 90.0  # a tenth of its life ahead of expiry
    assert await cache.token("k", fetch) == "t2"
    cache.drop("k", "t1")  # an older token's refusal does not drop the newer one
    assert await cache.token("k", fetch) == "t2"
    results = await asyncio.gather(*(cache.token("other", fetch) for _ in range(5)))
    assert set(results) == {"t3"}  # concurrent callers wait for one fetch


# --- profiles and compliance ----------------------------------------------------------


async def test_profiles_are_created_under_our_id_and_found_again(
    monerium: MoneriumSimulator,
) -> None:
    connector, ctx = connect(), context(monerium)
    business = CustomerProfile(customer_id="cus_b", email="b@example.com", full_name="Acme",
                               type="business")  # fmt: skip
    first = await connector.ensure_customer(ctx, business)
    again = await connector.ensure_customer(ctx, business)
    assert first == again
    assert first.provider_customer_id == profile_id("cus_b")
    assert monerium.profiles[first.provider_customer_id]["kind"] == "corporate"
    statuses = [r.body for r in monerium.calls("POST", "/profiles")]
    assert statuses == [{"id": profile_id("cus_b"), "kind": "corporate"}] * 2

    await monerium.set_profile_state(
        first.provider_customer_id, "pending", {"details": "approved", "idDocument": "pending"}
    )
    kyc = await connector.compliance(ctx, first, "KYC_BASIC")
    assert (kyc.mode, kyc.outcome) == (ComplianceMode.FORM, StepOutcome.SUBMITTED)
    proof = await connector.compliance(ctx, first, "PROOF_OF_ADDRESS")
    assert proof.outcome is None
    await monerium.set_profile_state(first.provider_customer_id, "rejected")
    assert (await connector.compliance(ctx, first, "KYC_BASIC")).outcome is StepOutcome.REJECTED
    with pytest.raises(NotSupported):
        await connector.compliance(ctx, first, "KYC_ENHANCED")


async def test_kyc_given_on_our_page_is_forwarded_to_the_profile_details(
    monerium: MoneriumSimulator,
) -> None:
    connector, ctx = connect(), context(monerium)
    customer = await connector.ensure_customer(
        ctx, CustomerProfile(customer_id="cus_k", email="k@example.com", full_name="Ada L")
    )
    kyc_basic = {
        "firstName": "Ada", "lastName": "Lovelace", "dateOfBirth": "1990-05-15",
        "nationality": "GB",
        "address": {"line1": "1 Main St", "line2": "Flat 2", "city": "Berlin",
                    "postalCode": "10115", "country": "DE"},
        "idDocument": {"documentType": "PASSPORT", "documentNumber": "A1234567"},
    }  # fmt: skip
    await connector.submit_details(ctx, customer, kyc_basic, email="k@example.com",
                                   phone="+4915112345678")  # fmt: skip
    sent = monerium.calls("PATCH", f"/profiles/{customer.provider_customer_id}/details")[0]
    assert sent.body == {"personal": {
        "firstName": "Ada", "lastName": "Lovelace", "address": "1 Main St, Flat 2",
        "postalCode": "10115", "city": "Berlin", "country": "DE", "nationality": "GB",
        "birthday": "1990-05-15", "email": "k@example.com", "phone": "+4915112345678",
        "idDocument": {"kind": "passport", "number": "A1234567"},
    }}  # fmt: skip
    assert monerium.profiles[customer.provider_customer_id]["details"]["state"] == "pending"


async def test_an_address_is_linked_with_the_wallets_signature_checked_first(
    monerium: MoneriumSimulator,
) -> None:
    connector, ctx = connect(), context(monerium)
    customer = await linked_customer(connector, ctx)
    link = monerium.calls("POST", "/addresses")[0].body
    assert link["message"] == LINK_MESSAGE
    assert link["chain"] == "chiado"
    assert await connector.address_linked(ctx, customer, WALLET.address, "chiado")
    request = connector.link_request(ctx, OTHER.address, "EURE_GNOSIS")
    with pytest.raises(ProviderRefused, match="another wallet"):
        await connector.link_address(ctx, customer, request, sign(LINK_MESSAGE, WALLET))
    assert len(monerium.calls("POST", "/addresses")) == 1  # nothing sent


# --- on-ramp: the IBAN, the reference, the issue order ----------------------------------


async def test_an_onramp_waits_for_its_iban_then_matches_the_payment_by_reference(
    monerium: MoneriumSimulator, receiver: Receiver
) -> None:
    connector, ctx = connect(), context(monerium)
    await connector.register_webhook(ctx, receiver.url)
    customer = await connector.ensure_customer(
        ctx, CustomerProfile(customer_id="cus_n", email="n@example.com", full_name="Ada L")
    )
    with pytest.raises(ProviderRefused, match="has not linked") as unlinked:
        await connector.create_transfer(ctx, customer, onramp())
    assert unlinked.value.final is False
    customer = await linked_customer(connector, ctx)
    with pytest.raises(ProviderUnavailable, match="provisioning"):
        await connector.create_transfer(ctx, customer, onramp())
    assert monerium.calls("POST", "/ibans")[0].body == {"address": WALLET.address,
                                                        "chain": "chiado"}  # fmt: skip
    await receiver.wait_for(lambda got: any(b"iban.updated" in r.body for r in got))
    transfer = await connector.create_transfer(ctx, customer, onramp())
    (deposit,) = transfer.context.deposit_instructions
    assert isinstance(deposit.instructions, BankDepositInstructions)
    (iban,) = monerium.ibans
    reference = payment_reference("txn_on_1")
    assert deposit.instructions.account_identifier == {"iban": iban, "bic": "EAPFESM2XXX"}
    assert (deposit.instructions.reference, deposit.instructions.amount) == (
        reference, Decimal("25.00"))  # fmt: skip
    waiting = await connector.get_transfer(ctx, transfer.provider_reference)
    assert (waiting.events, waiting.cancellable) == ((), True)

    # The payer's bank spaced and lower-cased the reference: still ours.
    spaced = " ".join(reference.lower()[i : i + 4] for i in range(0, len(reference), 4))
    order = await monerium.incoming_sepa(iban, "25.00", f"Invoice {spaced}")
    status = await connector.get_transfer(ctx, transfer.provider_reference)
    assert status.events == (E.DEPOSIT_RECEIVED,)
    await monerium.set_order_state(order["id"], "processed")
    status = await connector.get_transfer(ctx, transfer.provider_reference)
    assert status.events == (E.DEPOSIT_RECEIVED, E.PAYOUT_SENT, E.SETTLED)
    with pytest.raises(NotSupported):
        await connector.cancel_transfer(ctx, transfer.provider_reference)

    # The webhooks answer to the same provider reference, verified with our secret.
    got = await receiver.wait_for(lambda got: sum(b"order." in r.body for r in got) >= 2)
    events = [
        event
        for r in got
        if b"order." in r.body
        for event in connector.parse_webhook(ctx, r.headers, r.body)
    ]
    assert all(isinstance(e, ProviderTransferEvent) for e in events)
    assert {e.provider_reference for e in events} == {transfer.provider_reference}  # type: ignore[union-attr]
    # Each names the payment too (profile, amount, payer, order id): what the relay
    # matches when no transfer of ours has its reference, or reports as unmatched money.
    matches = {e.match for e in events if isinstance(e, ProviderTransferEvent)}
    assert matches == {DepositMatch(provider_customer_id=customer.provider_customer_id,
                                    amount=Decimal("25.00"), currency="EUR",
                                    payer_iban="DE89370400440532013000",
                                    payment_reference=order["id"])}  # fmt: skip


async def test_an_onramp_without_a_payment_is_voided_and_limits_refuse_before_sending(
    monerium: MoneriumSimulator,
) -> None:
    connector, ctx = connect(), context(monerium)
    customer = ProviderCustomerRef(provider_customer_id=profile_id("cus_v"))
    await connector.cancel_transfer(ctx, f"issue:{customer.provider_customer_id}:RAMP0123456789AB")
    before = len(monerium.requests)
    with pytest.raises(ProviderRefused, match="supporting document"):
        await connector.create_transfer(ctx, customer, onramp("15000.00"))
    assert len(monerium.requests) == before


# --- off-ramp: prepare, sign, place -------------------------------------------------------


async def test_a_redeem_is_prepared_signed_and_placed_once(monerium: MoneriumSimulator) -> None:
    connector, ctx = connect(), context(monerium)
    customer = await linked_customer(connector, ctx)
    request = await connector.prepare_transfer(ctx, customer, redeem())
    assert request is not None
    assert request.address == WALLET.address
    assert request.message.startswith(f"Send EUR 12.34 to {PAYEE_IBAN} at ")
    assert request.expires_at is not None
    assert request.expires_at > datetime.now(UTC)
    with pytest.raises(ProviderRefused, match="signature") as unsigned:
        await connector.create_transfer(ctx, customer, redeem())
    assert unsigned.value.final is False
    signed = SignedMessage(message=request.message, signature=sign(request.message))
    placed = await connector.create_transfer(ctx, customer, redeem(signed=signed))
    again = await connector.create_transfer(ctx, customer, redeem(signed=signed))
    assert placed == again
    assert placed.context.deposit_instructions == []
    body = monerium.calls("POST", "/orders")[0].body
    assert (body["kind"], body["amount"], body["chain"], body["currency"]) == (
        "redeem", "12.34", "chiado", "eur")  # fmt: skip
    assert body["counterpart"] == {
        "identifier": {"standard": "iban", "iban": PAYEE_IBAN},
        "details": {"firstName": "Ada", "lastName": "Lovelace", "country": "DE"},
    }
    assert len(monerium.orders) == 1
    assert (await connector.get_transfer(ctx, placed.provider_reference)).events == ()
    await monerium.set_order_state(placed.provider_reference, "rejected", "No funds")
    failed = await connector.get_transfer(ctx, placed.provider_reference)
    assert failed.events == (E.FAILED,)
    assert "No funds" in (failed.reason or "")


async def test_a_redeem_refuses_what_monerium_would_before_sending(
    monerium: MoneriumSimulator,
) -> None:
    connector, ctx = connect(), context(monerium)
    customer = ProviderCustomerRef(provider_customer_id=profile_id("cus_r"))
    with pytest.raises(ProviderRefused, match="whole cents") as cents:
        await connector.prepare_transfer(ctx, customer, redeem("12.345"))
    assert "12.34 or 12.35" in cents.value.reason
    request = await connector.prepare_transfer(ctx, customer, redeem())
    assert request is not None
    other_amount = SignedMessage(message=request.message.replace("12.34", "99.00"),
                                 signature="0x" + "00" * 65)  # fmt: skip
    with pytest.raises(ProviderRefused, match="not this order's"):
        await connector.create_transfer(ctx, customer, redeem(signed=other_amount))
    by_other = SignedMessage(message=request.message, signature=sign(request.message, OTHER))
    with pytest.raises(ProviderRefused, match="another wallet"):
        await connector.create_transfer(ctx, customer, redeem(signed=by_other))
    later = connect(clock=datetime.now(UTC) + timedelta(minutes=30))
    signed = SignedMessage(message=request.message, signature=sign(request.message))
    with pytest.raises(ProviderRefused, match="expired") as expired:
        await later.create_transfer(ctx, customer, redeem(signed=signed))
    assert expired.value.final is False
    assert monerium.calls("POST", "/orders") == []


# --- webhooks ---------------------------------------------------------------------------


async def test_the_subscription_is_tested_with_a_signed_call_and_reused(
    monerium: MoneriumSimulator, receiver: Receiver
) -> None:
    connector, ctx = connect(), context(monerium)
    receiver.statuses.append(500)
    with pytest.raises(ProviderRefused, match="test call"):
        await connector.register_webhook(ctx, receiver.url)
    assert monerium.subscriptions == {}
    registered = await connector.register_webhook(ctx, receiver.url)
    again = await connector.register_webhook(ctx, receiver.url)
    assert registered == again
    assert len(monerium.calls("POST", "/webhooks")) == 2
    test_call = receiver.received[-1]
    assert connector.parse_webhook(ctx, test_call.headers, test_call.body) == []
    with pytest.raises(WebhookRejected):
        connector.parse_webhook(ctx, test_call.headers, test_call.body + b" ")
    stale = monerium.signed(ctx.webhook_secret.get_secret_value(), test_call.body,  # type: ignore[union-attr]
                            at=datetime.now(UTC) - timedelta(minutes=6))  # fmt: skip
    with pytest.raises(WebhookRejected):
        connector.parse_webhook(ctx, stale, test_call.body)
    with pytest.raises(WebhookRejected):
        connector.parse_webhook(ctx, {"webhook-signature": "v1"}, test_call.body)


async def test_profile_updates_become_compliance_events(
    monerium: MoneriumSimulator, receiver: Receiver
) -> None:
    connector, ctx = connect(), context(monerium)
    await connector.register_webhook(ctx, receiver.url)
    customer = await connector.ensure_customer(
        ctx, CustomerProfile(customer_id="cus_p", email="p@example.com", full_name="P Q")
    )
    await monerium.set_profile_state(customer.provider_customer_id, "approved")
    got = await receiver.wait_for(lambda got: any(b"profile.updated" in r.body for r in got))
    events = connector.parse_webhook(ctx, got[-1].headers, got[-1].body)
    verdicts = {
        (e.requirement, e.outcome) for e in events if isinstance(e, ProviderComplianceEvent)
    }
    assert verdicts == {
        ("KYC_BASIC", StepOutcome.VERIFIED),
        ("PROOF_OF_ADDRESS", StepOutcome.VERIFIED),
        ("SOURCE_OF_FUNDS", StepOutcome.VERIFIED),
    }


async def test_errors_are_sorted_into_the_contracts_family(monerium: MoneriumSimulator) -> None:
    connector, ctx = connect(), context(monerium)
    customer = ProviderCustomerRef(provider_customer_id=profile_id("cus_e"))
    monerium.fail_next(Fault(status=429, retry_after="3", path="/profiles"))
    with pytest.raises(ProviderUnavailable) as limited:
        await connector.compliance(ctx, customer, "KYC_BASIC")
    assert limited.value.retry_after == 3.0
    monerium.fail_next(Fault(status=403, path="/profiles", message="not a partner"))
    with pytest.raises(ProviderRefused, match="not a partner"):
        await connector.compliance(ctx, customer, "KYC_BASIC")
    monerium.fail_next(Fault(delay=1.3, path="/profiles"))
    with pytest.raises(ProviderUnavailable, match="in time"):
        await connect(timeout=httpx.Timeout(1.0)).compliance(ctx, customer, "KYC_BASIC")
