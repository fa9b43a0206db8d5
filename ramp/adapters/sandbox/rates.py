"""The sandbox's deterministic prices (documented in docs/sandbox.md#quotes).

Reference prices in US dollars, a spread and a processing fee per mock provider, a
network fee per chain: the same request always gets the same quote. Test values of the
amount make Beacon fail or answer too late, to exercise partial answers.
"""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta
from decimal import ROUND_DOWN, ROUND_HALF_EVEN, ROUND_UP, Decimal

from ramp.adapters.contract import ProviderQuote, ProviderUnavailable, RailQuoteRequest
from ramp.catalog import currency_by_code
from ramp.money import format_amount

# What one unit is worth in US dollars (reference rates, not market data).
USD_VALUE: dict[str, Decimal] = {
    "USD": Decimal("1"),
    "EUR": Decimal("1.08"),
    "GBP": Decimal("1.27"),
    "BRL": Decimal("0.18"),
    "MXN": Decimal("0.055"),
    "USDC": Decimal("1"),
    "EURe": Decimal("1.08"),
    "ETH": Decimal("3000"),
    "BTC": Decimal("60000"),
}
# Per provider: (spread on the rate, processing fee on the amount), in basis points.
PRICING: dict[str, tuple[int, int]] = {
    "sandbox_atlas": (50, 100),
    "sandbox_beacon": (25, 150),
    "sandbox_meridian": (40, 80),
    "sandbox_andes": (80, 120),
    "sandbox_thames": (60, 90),
}
# Volume tiers: (provider, from this source value in US dollars, processing fee in bps).
# Beacon's makes the two strategies differ on USD (ACH) to USDC on Ethereum: Atlas nets
# more below 1,000.00 USD, Beacon from 1,000.00 upwards (docs/sandbox.md#quotes).
VOLUME_TIERS: dict[str, tuple[Decimal, int]] = {"sandbox_beacon": (Decimal("1000"), 50)}
# The chain's fee for the crypto leg, in US dollars.
NETWORK_FEE_USD: dict[str, Decimal] = {
    "ETHEREUM": Decimal("1.50"),
    "POLYGON": Decimal("0.02"),
    "BASE": Decimal("0.02"),
    "GNOSIS": Decimal("0.01"),
    "SOLANA": Decimal("0.01"),
    "BITCOIN": Decimal("2.00"),
}
QUOTE_LIFETIME = timedelta(seconds=30)
# Test values: an amount ending so makes Beacon's quote fail, or arrive after 10 s.
FAILING_QUOTE_SUFFIX = ".13"
SLOW_QUOTE_SUFFIX = ".14"
SCENARIO_PROVIDER = "sandbox_beacon"
SLOW_QUOTE_SECONDS = 10.0
_RATE_PLACES = Decimal("1e-12")


class SandboxQuoteFailed(ProviderUnavailable):
    """The sandbox's failing quote (test value): the contract's outage."""


def _value(code: str) -> tuple[Decimal, int, str | None]:
    currency = currency_by_code(code)
    if currency is None:
        raise ValueError(f"unknown currency {code}")
    return USD_VALUE[currency.ticker], currency.decimals, currency.blockchain


def _places(decimals: int) -> Decimal:
    return Decimal(1).scaleb(-decimals)


async def sandbox_quote(
    provider_code: str, request: RailQuoteRequest, now: datetime
) -> ProviderQuote:
    if provider_code == SCENARIO_PROVIDER:
        written = format_amount(request.amount)
        if written.endswith(FAILING_QUOTE_SUFFIX):
            raise SandboxQuoteFailed(
                f"sandbox test amount ending in {FAILING_QUOTE_SUFFIX}: this provider fails"
            )
        if written.endswith(SLOW_QUOTE_SUFFIX):
            await asyncio.sleep(SLOW_QUOTE_SECONDS)
    spread, processing_bps = PRICING[provider_code]
    src_usd, src_decimals, src_chain = _value(request.source_currency)
    tier = VOLUME_TIERS.get(provider_code)
    if tier is not None and request.amount * src_usd >= tier[0]:
        processing_bps = tier[1]
    dest_usd, dest_decimals, dest_chain = _value(request.destination_currency)
    rate = (src_usd / dest_usd * (1 - Decimal(spread) / 10_000)).quantize(
        _RATE_PLACES, ROUND_HALF_EVEN
    )
    chain = src_chain or dest_chain
    assert chain is not None, "a ramp has one crypto side"
    places = _places(src_decimals)
    network = (NETWORK_FEE_USD[chain] / src_usd).quantize(places, ROUND_UP)
    processing = (request.amount * processing_bps / 10_000).quantize(places, ROUND_UP)
    fee = network + processing
    arriving = max(request.amount - fee, Decimal(0)) * rate
    return ProviderQuote(
        source_currency=request.source_currency,
        destination_currency=request.destination_currency,
        source_amount=request.amount,
        destination_amount=arriving.quantize(_places(dest_decimals), ROUND_DOWN),
        fee=fee,
        network_fee=network,
        processing_fee=processing,
        exchange_rate=rate,
        expires_at=now + QUOTE_LIFETIME,
        indicative=True,
    )
