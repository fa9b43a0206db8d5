"""Amounts: decimal strings, checked against the currency's decimals and provider limits."""

from __future__ import annotations

import re
from decimal import Context, Decimal
from typing import Any

from ramp.catalog import AmountLimits, Currency

# Plain positional decimals only: no sign, exponent, spaces, leading zeros or bare dots.
_DECIMAL = re.compile(r"(0|[1-9][0-9]{0,29})(\.[0-9]{1,30})?")


class AmountProblem(ValueError):
    """An amount the API refuses; `details` go to the error envelope as they are."""

    def __init__(self, message: str, details: dict[str, Any]) -> None:
        super().__init__(message)
        self.message = message
        self.details = {"field": "amount", **details}


def parse_amount(raw: str) -> Decimal:
    """The amount of a well-formed, positive decimal string (format only, no currency)."""
    if not _DECIMAL.fullmatch(raw):
        raise AmountProblem(
            'amount must be a positive decimal string such as "100.50" '
            "(no exponent, sign, spaces or leading zeros)",
            {"reason": "FORMAT"},
        )
    amount = Decimal(raw)
    if amount <= 0:
        raise AmountProblem("amount must be greater than zero", {"reason": "NOT_POSITIVE"})
    return amount


def decimal_places(raw: str) -> int:
    _, _, fraction = raw.partition(".")
    return len(fraction)


def check_amount(raw: str, currency: Currency, limits: AmountLimits, provider_id: str) -> Decimal:
    """The amount, once it fits the currency's precision and the provider's limits."""
    amount = parse_amount(raw)
    places = decimal_places(raw)
    if places > currency.decimals:
        raise AmountProblem(
            f"{currency.code} allows at most {currency.decimals} decimal places; "
            f"the amount has {places}",
            {
                "reason": "PRECISION",
                "currencyCode": currency.code,
                "maxDecimals": currency.decimals,
                "providedDecimals": places,
            },
        )
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
    return amount


def smallest_units(amount: Decimal, currency: Currency) -> str:
    """The amount in the currency's smallest unit (wei, satoshi, cents) as an integer string."""
    # A wide context: 30 integer digits and 18 decimals must not round.
    return str(int(amount.scaleb(currency.decimals, context=Context(prec=100))))
