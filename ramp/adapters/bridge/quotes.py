"""Bridge's indicative prices: its exchange rates (`GET /exchange_rates`) read as a quote.

Bridge prices a ramp at the rate of its fiat pair; a stablecoin counts as the fiat it is
pegged to (USDC -> usd, EURC -> eur). The pair asked for is always the stablecoin's fiat
(`from`) against the bank side's fiat (`to`), and each direction takes the side of the
rate that applies to it:

- off-ramp (stablecoin -> local fiat) converts `from` into `to`: `buy_rate` (units of
  `to` received per unit of `from`);
- on-ramp (local fiat -> stablecoin) converts `to` into `from`: `sell_rate` (units of
  `to` paid per unit of `from`), so the customer gets `amount / sell_rate`.

Where both sides are the same fiat (USD -> USDC, EURC -> EUR) Bridge converts 1:1 and
nothing is asked. Bridge states no per-transfer fee up front (its fees are contractual;
a transfer's receipt reports them afterwards), so the quote's fees are zero and its
spread is in the rate; every quote is indicative.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import ROUND_DOWN, ROUND_HALF_EVEN, Decimal, InvalidOperation
from typing import Any

from ramp.adapters.contract import NotSupported, ProviderQuote, ProviderUnavailable, QuoteRequest
from ramp.catalog import CurrencyType, currency_by_code

# The fiat each stablecoin Bridge moves is pegged to (Bridge's currency codes).
PEGGED_FIAT: dict[str, str] = {"USDC": "usd", "USDT": "usd", "PYUSD": "usd", "EURC": "eur"}
# Bridge's rates move continuously; a quote is a price for about this long.
QUOTE_LIFETIME = timedelta(seconds=30)
_RATE_PLACES = Decimal("1e-12")


@dataclass(frozen=True)
class RatePair:
    """What to ask Bridge for one quote: `pegged` is the stablecoin's fiat (`from`),
    `fiat` the bank side's (`to`); `onramp` says which side of the rate applies."""

    pegged: str
    fiat: str
    onramp: bool
    source_decimals: int
    destination_decimals: int

    @property
    def one_to_one(self) -> bool:
        return self.pegged == self.fiat

    def params(self) -> dict[str, str]:
        return {"from": self.pegged, "to": self.fiat}


def rate_pair(request: QuoteRequest) -> RatePair:
    """The pair to price `request` with; `NotSupported` outside fiat <-> stablecoin."""
    source = currency_by_code(request.source_currency)
    destination = currency_by_code(request.destination_currency)
    if source is None or destination is None or source.type is destination.type:
        raise NotSupported("Bridge quotes fiat to stablecoin and back")
    onramp = source.type is CurrencyType.FIAT
    fiat, coin = (source, destination) if onramp else (destination, source)
    pegged = PEGGED_FIAT.get(coin.ticker.upper())
    if pegged is None:
        raise NotSupported(f"Bridge has no rate for {coin.ticker}")
    return RatePair(pegged, fiat.code.lower(), onramp, source.decimals, destination.decimals)


def exchange_rate(pair: RatePair, rates: Any) -> Decimal:
    """Destination units per source unit from Bridge's answer (1 for a 1:1 pair)."""
    if pair.one_to_one:
        return Decimal(1).quantize(_RATE_PLACES)
    side = "sell_rate" if pair.onramp else "buy_rate"
    try:
        value = Decimal(str(rates[side]))
    except (KeyError, TypeError, InvalidOperation):
        raise ProviderUnavailable(f"Bridge's exchange rate has no usable {side}") from None
    if not value.is_finite() or value <= 0:
        raise ProviderUnavailable(f"Bridge's {side} is not a positive number")
    rate = 1 / value if pair.onramp else value
    return rate.quantize(_RATE_PLACES, ROUND_HALF_EVEN)


def provider_quote(
    request: QuoteRequest, pair: RatePair, rate: Decimal, now: datetime
) -> ProviderQuote:
    arriving = (request.amount * rate).quantize(_places(pair.destination_decimals), ROUND_DOWN)
    none = Decimal(0).quantize(_places(pair.source_decimals))
    return ProviderQuote(
        source_currency=request.source_currency,
        destination_currency=request.destination_currency,
        source_amount=request.amount,
        destination_amount=arriving,
        fee=none,
        network_fee=none,
        processing_fee=none,
        exchange_rate=rate,
        expires_at=now + QUOTE_LIFETIME,
        indicative=True,
    )


def _places(decimals: int) -> Decimal:
    return Decimal(1).scaleb(-decimals)
