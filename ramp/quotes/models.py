"""What a provider adapter answers for a quote, and what the quote use case returns.

The connector contract (ramp/adapters/contract.py) has `QuoteRequest` and `Quote`; a
quote for a ramp also names the rail and breaks its fees down, so these extend them
(nothing there is renamed): a connector that answers a plain `Quote` is read as one
whose whole fee is processing (`ProviderQuote.from_quote`).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Protocol, runtime_checkable

from ramp.adapters.contract import Quote, QuoteRequest
from ramp.catalog import MovementType, Rail
from ramp.money import Amount


class RailQuoteRequest(QuoteRequest):
    """A quote for one corridor of a provider: its direction and its bank rail."""

    movement_type: MovementType
    rail: Rail


class ProviderQuote(Quote):
    """A provider's price: `fee` (the contract's) = network_fee + processing_fee, in the
    source currency; `destination_amount` is what arrives after them."""

    network_fee: Amount
    processing_fee: Amount
    # Destination units per source unit, after the provider's spread.
    exchange_rate: Decimal
    # The price may move until the order is placed (every sandbox quote is indicative).
    indicative: bool = True

    @classmethod
    def from_quote(cls, quote: Quote, exchange_rate: Decimal) -> ProviderQuote:
        return cls(
            **quote.model_dump(),
            network_fee=Decimal(0),
            processing_fee=quote.fee,
            exchange_rate=exchange_rate,
        )


@runtime_checkable
class Quoter(Protocol):
    """The quote flow of a provider adapter."""

    async def quote(self, request: RailQuoteRequest) -> ProviderQuote:
        """Raises on failure (any error): the provider is reported unavailable."""
        ...
