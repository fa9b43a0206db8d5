"""Amounts of intents: checked against the currency's decimals and the provider's limits."""

from __future__ import annotations

from decimal import Decimal

from ramp.catalog import AmountLimits, Currency
from ramp.money import AmountProblem, Money, format_amount, parse_amount

__all__ = ["AmountProblem", "check_amount", "parse_amount"]


def check_amount(
    amount: Decimal, currency: Currency, limits: AmountLimits, provider_id: str
) -> None:
    """Raises AmountProblem unless `amount` fits the currency's precision and the
    provider's limits. A check only: the order's `Money` is built where the transaction
    is ordered (TransactionOrder), from the same amount and currency."""
    # Checked again as the API checked the string: the workflow's input is not trusted.
    Money.parse(format_amount(amount), currency.code)
    if not limits.minimum <= amount <= limits.maximum:
        side = "below the minimum" if amount < limits.minimum else "above the maximum"
        raise AmountProblem(
            f"amount is {side} the selected provider accepts for {currency.code} "
            f"({limits.minimum} to {limits.maximum})",
            {
                "reason": "OUT_OF_RANGE",
                "currencyCode": currency.code,
                "minimum": str(limits.minimum),
                "maximum": str(limits.maximum),
                "providerId": provider_id,
            },
        )
