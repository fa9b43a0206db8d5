"""GET /v1/intent/quote for a production project: its Bridge provider account (pointing
at the Bridge simulator) quotes from Bridge's exchange rates, with the project's
partner fee; Bridge failing or slow is named in `unavailable`, never fatal. Through
HTTP against the app and the database."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from sqlmodel.ext.asyncio.session import AsyncSession

from api.app import create_app
from ramp import projects
from ramp.catalog import provider_by_code
from ramp.config import Environment, Settings
from ramp.db.tables import ProviderAccount
from ramp.quotes.partner_fee import set_partner_fee
from ramp.quotes.service import QUOTE_BUDGET_SECONDS
from ramp.security.encryption import SecretBox
from tests.helpers.production import BRIDGE_KEY, Merchant, connected_project
from tests.helpers.servers import derive_settings, serve
from tests.simulators.bridge import BridgeSimulator, Fault, running

PATH = "/v1/intent/quote"
BRIDGE_ID = provider_by_code("BRIDGE").id  # type: ignore[union-attr]


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
async def http(production: Settings) -> AsyncIterator[httpx.AsyncClient]:
    async with serve(create_app(production)) as client:
        yield client


@pytest.fixture
async def merchant(db: AsyncSession, production: Settings, bridge: BridgeSimulator) -> Merchant:
    return await connected_project(db, production, bridge)


async def quotes(http: httpx.AsyncClient, merchant: Merchant, **params: str) -> dict[str, Any]:
    response = await http.get(PATH, params=params, headers=merchant.project.basic)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


async def test_bridge_quotes_an_onramp_from_its_sell_rate_with_the_partner_fee(
    http: httpx.AsyncClient, db: AsyncSession, merchant: Merchant, bridge: BridgeSimulator
) -> None:
    await set_partner_fee(db, merchant.project.project_id, 100)  # 1 %
    bridge.requests.clear()  # connecting the account read Bridge too
    body = await quotes(
        http, merchant, srcCurrencyCode="EUR", destCurrencyCode="USDC_ETHEREUM", srcAmount="100.00"
    )
    assert body["unavailable"] == []
    [quote] = body["quotes"]
    assert quote == {
        "providerId": BRIDGE_ID,
        "providerCode": "BRIDGE",
        "type": "ONRAMP",
        "rail": "SEPA",
        "srcCurrencyCode": "EUR",
        "destCurrencyCode": "USDC_ETHEREUM",
        "srcAmount": "100.00",
        # 100 EUR / 0.9250 (the simulator's usd -> eur sell rate) = 108.108108 USDC, less
        # the 1.00 EUR partner fee at that rate (1.081081 USDC), rounded down.
        "destAmount": "107.027026",
        "exchangeRate": "1.081081081081",
        "fees": {
            "currencyCode": "EUR",
            "networkFee": "0.00",
            "processingFee": "0.00",
            "partnerFee": "1.00",
            "totalFee": "1.00",
        },
        "expiresAt": quote["expiresAt"],
        "hasIndicativePrice": True,
        "quoteId": quote["quoteId"],
        "selected": True,
        "providerStatus": "HEALTHY",
    }
    assert quote["expiresAt"].endswith("Z")
    [asked] = [r for r in bridge.requests if r.path == "/v0/exchange_rates"]
    assert asked.query == {"from": "usd", "to": "eur"}
    assert asked.api_key == BRIDGE_KEY


async def test_bridge_quotes_an_offramp_from_its_buy_rate(
    http: httpx.AsyncClient, merchant: Merchant
) -> None:
    body = await quotes(
        http, merchant, srcCurrencyCode="USDC_BASE", destCurrencyCode="MXN", srcAmount="250"
    )
    [quote] = body["quotes"]
    assert (quote["type"], quote["rail"]) == ("OFFRAMP", "SPEI")
    assert quote["destAmount"] == "4475.00"  # 250 x 17.90
    assert quote["fees"]["totalFee"] == "0.000000"


async def test_a_dollar_stablecoin_bought_with_dollars_is_one_to_one_on_every_rail(
    http: httpx.AsyncClient, merchant: Merchant, bridge: BridgeSimulator
) -> None:
    bridge.requests.clear()
    body = await quotes(
        http, merchant, srcCurrencyCode="USD", destCurrencyCode="USDC_ETHEREUM", srcAmount="100.00"
    )
    found = {q["rail"]: q for q in body["quotes"]}
    assert set(found) == {"ACH", "WIRE"}
    assert {q["destAmount"] for q in found.values()} == {"100.000000"}
    assert {q["exchangeRate"] for q in found.values()} == {"1.000000000000"}
    assert [r for r in bridge.requests if r.path == "/v0/exchange_rates"] == []


async def test_bridge_failing_is_named_in_unavailable_and_the_answer_is_200(
    http: httpx.AsyncClient, merchant: Merchant, bridge: BridgeSimulator
) -> None:
    bridge.fail_next(Fault(status=503, path="/v0/exchange_rates"))
    body = await quotes(
        http, merchant, srcCurrencyCode="EUR", destCurrencyCode="USDC_ETHEREUM", srcAmount="100.00"
    )
    assert body["quotes"] == []
    assert body["unavailable"] == [
        {
            "providerId": BRIDGE_ID,
            "providerCode": "BRIDGE",
            "rail": "SEPA",
            "reason": "PROVIDER_ERROR",
            "message": "Bridge could not quote",
        }
    ]
    # The next ask finds Bridge back.
    again = await quotes(
        http, merchant, srcCurrencyCode="EUR", destCurrencyCode="USDC_ETHEREUM", srcAmount="100.00"
    )
    assert len(again["quotes"]) == 1


async def test_bridge_slow_or_refusing_the_key_is_left_out(
    http: httpx.AsyncClient, merchant: Merchant, bridge: BridgeSimulator
) -> None:
    query = {"srcCurrencyCode": "USDC_SOLANA", "destCurrencyCode": "MXN", "srcAmount": "100"}
    bridge.fail_next(Fault(delay=QUOTE_BUDGET_SECONDS + 1, path="/v0/exchange_rates"))
    [late] = (await quotes(http, merchant, **query))["unavailable"]
    assert late["reason"] == "TIMEOUT"
    bridge.api_keys.discard(BRIDGE_KEY)
    try:
        body = await quotes(http, merchant, **query)
    finally:
        bridge.api_keys.add(BRIDGE_KEY)
    assert body["quotes"] == []
    assert [u["reason"] for u in body["unavailable"]] == ["PROVIDER_ERROR"]


async def test_a_production_project_is_quoted_by_its_accounts_only(
    http: httpx.AsyncClient, db: AsyncSession, production: Settings, bridge: BridgeSimulator
) -> None:
    # A production project without a provider account serves no route.
    created = await projects.create_project(
        db,
        name="Empty",
        environment=Environment.PRODUCTION,
        secret_box=SecretBox.from_settings(production),
    )
    response = await http.get(
        PATH,
        params={"srcCurrencyCode": "USD", "destCurrencyCode": "USDC_ETHEREUM", "srcAmount": "10"},
        auth=(created.clientId, created.clientSecret),
    )
    assert response.status_code == 400, response.text
    assert response.json()["code"] == "UNSUPPORTED_ROUTE"


async def test_an_account_whose_credentials_cannot_be_opened_is_left_out(
    http: httpx.AsyncClient, db: AsyncSession, merchant: Merchant
) -> None:
    account = await db.get(ProviderAccount, merchant.provider_account_id)
    assert account is not None
    account.credentials_encrypted = "not-a-sealed-token"  # sealed under a lost key, say
    db.add(account)
    await db.commit()
    body = await quotes(
        http, merchant, srcCurrencyCode="EUR", destCurrencyCode="USDC_ETHEREUM", srcAmount="100.00"
    )
    assert body["quotes"] == []
    assert [(u["providerCode"], u["reason"]) for u in body["unavailable"]] == [
        ("BRIDGE", "PROVIDER_ERROR")
    ]
