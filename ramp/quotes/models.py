"""What a provider answers for a quote: the contract's own models (ramp/adapters/
contract.py), named here for the quote use case.

A quote for a ramp also names the rail and breaks its fees down (`RailQuoteRequest`,
`ProviderQuote` extend the contract's `QuoteRequest` and `Quote`): a connector that
answers a plain `Quote` is read as one whose whole fee is processing
(`ProviderQuote.from_quote`).
"""

from __future__ import annotations

from ramp.adapters.contract import ProviderQuote, Quoter, RailQuoteRequest

__all__ = ["ProviderQuote", "Quoter", "RailQuoteRequest"]
