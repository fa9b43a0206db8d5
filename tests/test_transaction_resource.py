"""GET /v1/intent/{intentId}/transaction and wallet-ready crypto deposit instructions,
through HTTP with the session's Temporal and worker; the derivations as pure functions."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.config import Settings
from ramp.intents.models import CryptoDepositInstructions
from ramp.intents.wallet_ready import erc20_transfer_calldata, payment_uri, wallet_ready
from ramp.quotes.partner_fee import set_partner_fee
from tests.helpers.payments import (
    ACH,
    EVM_ADDRESS,
    bank,
    complete_onboarding,
    create_intent,
    register_accounts,
    wallet,
)
from tests.helpers.projects import ProjectCredentials, bearer, make_customer, make_project

USDC_GNOSIS_CONTRACT = "0x2a22f9c3b484c3629090FeED35F17Ff8F88f76F0"


def path(intent_id: str) -> str:
    return f"/v1/intent/{intent_id}/transaction"


async def offramp_intent(
    client: httpx.AsyncClient, project: ProjectCredentials, token: str
) -> dict[str, Any]:
    """A USDC on Gnosis -> USD intent of an onboarded customer: it has its transaction."""
    accounts = await register_accounts(
        client, token, "USDC_GNOSIS", "USD", wallet("USDC_GNOSIS"), bank(ACH)
    )
    first = await create_intent(client, token, accounts)
    assert first.status_code == 201, first.text
    await complete_onboarding(client, project, token, first.json()["intent"]["id"])
    second = await create_intent(client, token, accounts, amount="12.5")
    assert second.status_code == 201, second.text
    body: dict[str, Any] = second.json()
    assert body["transaction"] is not None
    return body


@pytest.mark.usefixtures("worker")
async def test_the_transaction_alone_with_wallet_ready_instructions(
    client: httpx.AsyncClient,
    project: ProjectCredentials,
    customer: dict[str, Any],
    db: AsyncSession,
) -> None:
    token = customer["access_token"]
    await set_partner_fee(db, project.project_id, 100)
    envelope = await offramp_intent(client, project, token)
    response = await client.get(path(envelope["intent"]["id"]), headers=bearer(token))
    assert response.status_code == 200, response.text
    transaction = response.json()
    assert transaction == envelope["transaction"]
    [instruction] = transaction["context"]["depositInstructions"]
    details = instruction["instructions"]
    assert details["chain"] == "GNOSIS"
    assert details["chainId"] == 100
    assert details["tokenContract"] == USDC_GNOSIS_CONTRACT
    assert details["amountInSmallestUnit"] == "12500000"
    address = details["address"]
    assert details["paymentUri"] == (
        f"ethereum:{USDC_GNOSIS_CONTRACT}@100/transfer?address={address}&uint256=12500000"
    )
    assert details["encodedData"] == (
        "0xa9059cbb" + address.lower()[2:].rjust(64, "0") + format(12500000, "064x")
    )
    assert details["memo"] is None
    # The price quoted when it was created (docs/sandbox.md#quotes), with the 1 % partner fee.
    assert transaction["receipt"] == {
        "initialAmount": "12.5",
        "currencyCode": "USDC_GNOSIS",
        "fees": {
            "networkFee": "0.010000",
            "processingFee": "0.125000",
            "partnerFee": "0.125000",
            "totalFee": "0.260000",
        },
        "exchangeRate": "0.995000000000",
        # (12.5 - 0.135) x 0.995 - 0.125 x 0.995, rounded down to cents
        "expectedFinalAmount": "12.17",
        "finalCurrencyCode": "USD",
        "indicative": True,
    }


@pytest.mark.usefixtures("worker")
async def test_404_in_the_envelope_before_the_transaction_exists(
    client: httpx.AsyncClient, customer: dict[str, Any]
) -> None:
    token = customer["access_token"]
    accounts = await register_accounts(client, token)
    intent = (await create_intent(client, token, accounts)).json()["intent"]
    response = await client.get(path(intent["id"]), headers=bearer(token))
    assert response.status_code == 404
    assert response.json() == {
        "statusCode": 404,
        "error": "Not Found",
        "code": "NOT_FOUND",
        "message": "transaction not found",
        "details": {},
        "requestId": response.headers["X-Request-Id"],
    }


@pytest.mark.usefixtures("worker")
async def test_authorization_matrix(
    client: httpx.AsyncClient,
    project: ProjectCredentials,
    customer: dict[str, Any],
    db: AsyncSession,
    migrated: Settings,
) -> None:
    envelope = await offramp_intent(client, project, customer["access_token"])
    target = path(envelope["intent"]["id"])
    assert (await client.get(target)).status_code == 401
    basic = await client.get(target, headers=project.basic)
    assert basic.status_code == 401
    assert basic.json()["code"] == "INVALID_AUTH_SCHEME"
    neighbour = await make_customer(client, project, "neighbour")
    theirs = await client.get(target, headers=bearer(neighbour["access_token"]))
    assert theirs.status_code == 404
    stranger = await make_customer(client, await make_project(db, migrated, "Other"), "user-1")
    foreign = await client.get(target, headers=bearer(stranger["access_token"]))
    assert foreign.status_code == 404
    unknown = await client.get(path("no-such-intent"), headers=bearer(customer["access_token"]))
    assert unknown.status_code == 404


def crypto(**fields: Any) -> CryptoDepositInstructions:
    values: dict[str, Any] = {
        "address": EVM_ADDRESS,
        "currency_code": "ETH_ETHEREUM",
        "chain": "ETHEREUM",
        "chain_id": 1,
        "amount": "0.5",
        "amount_in_smallest_unit": "500000000000000000",
    }
    values.update(fields)
    return CryptoDepositInstructions.model_validate(values)


def test_erc20_transfer_calldata_is_abi_encoded() -> None:
    assert erc20_transfer_calldata(EVM_ADDRESS, 12_500_000) == (
        "0xa9059cbb"
        "000000000000000000000000742d35cc6634c0532925a3b844bc454e4438f44e"
        "0000000000000000000000000000000000000000000000000000000000bebc20"
    )
    with pytest.raises(ValueError, match="not an EVM address"):
        erc20_transfer_calldata("bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq", 1)


def test_payment_uris_per_chain() -> None:
    native = wallet_ready(crypto())
    assert native.payment_uri == f"ethereum:{EVM_ADDRESS}@1?value=500000000000000000"
    assert native.encoded_data is None  # a native coin is sent as value, not a call
    bitcoin = crypto(
        address="bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq",
        currency_code="BTC_BITCOIN",
        chain="BITCOIN",
        chain_id=None,
        amount="0.0021",
        amount_in_smallest_unit="210000",
    )
    assert (
        payment_uri(bitcoin) == "bitcoin:bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq?amount=0.0021"
    )
    mint = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"
    solana = crypto(
        address="9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM",
        currency_code="USDC_SOLANA",
        chain="SOLANA",
        chain_id=None,
        amount="10",
        amount_in_smallest_unit="10000000",
        token_contract=mint,
        memo="RMP42",
    )
    assert payment_uri(solana) == (
        f"solana:9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM?amount=10&spl-token={mint}&memo=RMP42"
    )
    # What a provider set itself is kept.
    own = wallet_ready(crypto(payment_uri="ethereum:custom"))
    assert own.payment_uri == "ethereum:custom"
