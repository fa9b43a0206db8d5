"""Bridge quotes: the mapping of Bridge's exchange rates to a quote (units), and the
connector's `quote` against the Bridge simulator (auth, faults, refusals)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime
from decimal import Decimal

import httpx
import pytest

from ramp.adapters.bridge import BridgeConnector
from ramp.adapters.bridge.credentials import base_url, to_credentials
from ramp.adapters.bridge.quotes import QUOTE_LIFETIME, exchange_rate, provider_quote, rate_pair
from ramp.adapters.contract import (
    Connector,
    CredentialsRejected,
    NotSupported,
    ProviderContext,
    ProviderRefused,
    ProviderUnavailable,
    Quote,
    QuoteRequest,
)
from ramp.catalog import MovementType, Rail
from ramp.quotes.accounts import ConnectorQuoter
from ramp.quotes.models import ProviderQuote, RailQuoteRequest
from tests.helpers.production import SIMULATOR_NETWORK
from tests.simulators.bridge import BridgeSimulator, Fault, running

KEY = "sk-test-quotes-key"
# Production timeouts (the simulator shares the test's event loop, which a loaded machine
# can hold past a second); `impatient` gives up after a second, for slow answers only.
connector: Connector = BridgeConnector(network=SIMULATOR_NETWORK)
impatient: Connector = BridgeConnector(timeout=httpx.Timeout(1.0), network=SIMULATOR_NETWORK)


def request(src: str, dest: str, amount: str = "100.00") -> QuoteRequest:
    return QuoteRequest(source_currency=src, destination_currency=dest, amount=Decimal(amount))


# --- the mapping ------------------------------------------------------------------------


def test_an_onramp_pays_the_sell_rate_of_the_stablecoins_fiat_in_the_bank_fiat() -> None:
    pair = rate_pair(request("EUR", "USDC_ETHEREUM"))
    assert pair.params() == {"from": "usd", "to": "eur"}
    assert pair.onramp
    assert not pair.one_to_one
    rates = {"midmarket_rate": "0.92", "buy_rate": "0.915", "sell_rate": "0.925"}
    # EUR paid per USD is the sell side: 1 / 0.925 USDC per EUR.
    assert exchange_rate(pair, rates) == Decimal("1.081081081081")


def test_an_offramp_receives_the_buy_rate() -> None:
    pair = rate_pair(request("USDC_POLYGON", "MXN"))
    assert pair.params() == {"from": "usd", "to": "mxn"}
    assert not pair.onramp
    rates = {"midmarket_rate": "18.00", "buy_rate": "17.90", "sell_rate": "18.10"}
    assert exchange_rate(pair, rates) == Decimal("17.900000000000")


def test_a_stablecoin_of_the_same_fiat_converts_one_to_one_without_asking() -> None:
    for src, dest in (("USD", "USDC_ETHEREUM"), ("EURC_SOLANA", "EUR"), ("USD", "USDT_ETHEREUM")):
        pair = rate_pair(request(src, dest))
        assert pair.one_to_one
        assert exchange_rate(pair, None) == 1


def test_a_euro_coin_bought_with_dollars_goes_by_the_euro() -> None:
    assert rate_pair(request("USD", "EURC_SOLANA")).params() == {"from": "eur", "to": "usd"}


def test_the_quote_has_no_upfront_fee_is_indicative_and_rounds_down() -> None:
    now = datetime(2026, 1, 1, tzinfo=UTC)
    wanted = request("EUR", "USDC_ETHEREUM", "100.00")
    pair = rate_pair(wanted)
    quote = provider_quote(wanted, pair, Decimal("1.081081081081"), now)
    assert quote.destination_amount == Decimal("108.108108")
    assert (quote.fee, quote.network_fee, quote.processing_fee) == (Decimal("0.00"),) * 3
    assert str(quote.fee) == "0.00"
    assert quote.indicative is True
    assert quote.expires_at == now + QUOTE_LIFETIME


@pytest.mark.parametrize(
    ("src", "dest"),
    [("USD", "EUR"), ("USDC_ETHEREUM", "USDC_POLYGON"), ("USD", "ETH_ETHEREUM"), ("USD", "XXX")],
)
def test_what_bridge_does_not_price_is_not_supported(src: str, dest: str) -> None:
    with pytest.raises(NotSupported):
        rate_pair(request(src, dest))


@pytest.mark.parametrize(
    "rates",
    [{}, {"sell_rate": "abc"}, {"sell_rate": "0"}, {"sell_rate": "-1"}, {"sell_rate": None}, []],
)
def test_an_unusable_rate_is_the_providers_failure(rates: object) -> None:
    with pytest.raises(ProviderUnavailable):
        exchange_rate(rate_pair(request("EUR", "USDC_BASE")), rates)


# --- the connector against the simulator ----------------------------------------------------


@pytest.fixture(scope="module")
async def bridge() -> AsyncIterator[BridgeSimulator]:
    async with running(BridgeSimulator(api_keys={KEY})) as simulator:
        yield simulator


@pytest.fixture(autouse=True)
def _fresh(bridge: BridgeSimulator) -> None:
    bridge.reset()


def context(bridge: BridgeSimulator, key: str = KEY) -> ProviderContext:
    raw = {"apiKey": key, "environment": "sandbox", "baseUrl": bridge.url}
    return ProviderContext(
        provider_account_id="pa_test", credentials=to_credentials(raw), base_url=base_url(raw)
    )


async def test_the_connector_quotes_from_bridges_exchange_rate(bridge: BridgeSimulator) -> None:
    quote = await connector.quote(context(bridge), request("USDC_ETHEREUM", "MXN", "250.000000"))
    assert isinstance(quote, ProviderQuote)
    # The simulator's usd -> mxn buy rate is 17.90.
    assert quote.destination_amount == Decimal("4475.00")
    assert quote.exchange_rate == Decimal("17.9")
    [asked] = bridge.requests
    assert (asked.method, asked.path) == ("GET", "/v0/exchange_rates")
    assert asked.query == {"from": "usd", "to": "mxn"}
    assert asked.api_key == KEY
    assert asked.idempotency_key is None


async def test_a_one_to_one_quote_asks_bridge_nothing(bridge: BridgeSimulator) -> None:
    quote = await connector.quote(context(bridge), request("USD", "USDC_BASE", "42.10"))
    assert quote.destination_amount == Decimal("42.100000")
    assert bridge.requests == []


@pytest.mark.parametrize(
    ("fault", "error"),
    [
        (Fault(status=503), ProviderUnavailable),
        (Fault(status=429, retry_after="7"), ProviderUnavailable),
        (Fault(delay=2.0), ProviderUnavailable),  # later than the client waits
    ],
)
async def test_bridge_failing_is_retryable(
    bridge: BridgeSimulator, fault: Fault, error: type[Exception]
) -> None:
    bridge.fail_next(Fault(fault.status, fault.retry_after, fault.delay, "/v0/exchange_rates"))
    waiter = impatient if fault.delay else connector
    with pytest.raises(error) as raised:
        await waiter.quote(context(bridge), request("EUR", "USDC_ETHEREUM"))
    if fault.retry_after:
        assert isinstance(raised.value, ProviderUnavailable)
        assert raised.value.retry_after == 7


async def test_a_rejected_key_and_an_unpriced_pair_are_classified(bridge: BridgeSimulator) -> None:
    with pytest.raises(CredentialsRejected):
        await connector.quote(context(bridge, "sk-test-wrong"), request("EUR", "USDC_ETHEREUM"))
    bridge.rates.pop(("usd", "mxn"))
    with pytest.raises(ProviderRefused, match="not supported"):
        await connector.quote(context(bridge), request("MXN", "USDC_ETHEREUM"))


async def test_a_connector_answering_a_plain_quote_is_read_as_processing_fee_only() -> None:
    class PlainQuotes:
        """A connector's quote flow that answers the contract's plain `Quote`."""

        async def quote(self, ctx: ProviderContext, request: QuoteRequest) -> Quote:
            return Quote(
                source_currency=request.source_currency,
                destination_currency=request.destination_currency,
                source_amount=request.amount,
                destination_amount=Decimal("98.00"),
                fee=Decimal("2.00"),
            )

    raw = {"apiKey": KEY, "environment": "sandbox", "baseUrl": "http://127.0.0.1:9/v0"}
    ctx = ProviderContext(
        provider_account_id="pa", credentials=to_credentials(raw), base_url=base_url(raw)
    )
    quoter = ConnectorQuoter(PlainQuotes(), ctx)  # type: ignore[arg-type]
    wanted = RailQuoteRequest(
        source_currency="USD",
        destination_currency="USDC_BASE",
        amount=Decimal("100.00"),
        movement_type=MovementType.ONRAMP,
        rail=Rail.ACH,
    )
    quote = await quoter.quote(wanted)
    assert (quote.processing_fee, quote.network_fee) == (Decimal("2.00"), Decimal(0))
    assert quote.exchange_rate == Decimal("0.98")
