"""From which amount a source-of-funds declaration needs evidence, per source currency.

The line is the equivalent of USD 10,000 (the amount at which US currency-transaction
reports and EU cash-declaration rules start), converted at the reference rates below
and rounded to a round figure. Rates move; these are reviewed with compliance, not
fetched, so a customer sees the same rule on every visit.
"""

from __future__ import annotations

from decimal import Decimal

from ramp.catalog import currency_by_code
from ramp.money import Money

# By ticker, so every chain of a token shares its line. Reference: November 2026.
EVIDENCE_FROM: dict[str, Decimal] = {
    "USD": Decimal("10000"),
    "USDC": Decimal("10000"),
    "USDT": Decimal("10000"),
    "EUR": Decimal("9000"),
    "EURe": Decimal("9000"),
    "EURC": Decimal("9000"),
    "GBP": Decimal("8000"),
    "MXN": Decimal("180000"),
    "BRL": Decimal("55000"),
    "ETH": Decimal("3"),
    "BTC": Decimal("0.1"),
}


def evidence_threshold(currency_code: str) -> Decimal:
    """The amount from which evidence is required; 0 (always) for a currency with no line."""
    currency = currency_by_code(currency_code)
    if currency is None:
        return Decimal(0)
    return EVIDENCE_FROM.get(currency.ticker, Decimal(0))


def needs_evidence(transfer: Money) -> bool:
    return transfer.amount >= evidence_threshold(transfer.currency)
