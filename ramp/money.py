"""Money: an exact decimal amount in a currency of the catalog.

On the wire an amount is a decimal string, shown exactly as the client sent it
("100.00" stays "100.00", "0.5" stays "0.5"). A `Decimal` keeps that: it remembers the
places it was written with, and `format_amount` writes them back in plain positional
notation (never "1E-7"). Nothing here rounds: amounts are compared and stored exactly.

`Amount` is the pydantic field type of an amount whose currency is a sibling field
(workflow and wire models keep their flat JSON shape, so recorded Temporal histories
still deserialise); `Money` pairs the two where code reasons about an amount.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Context, Decimal
from typing import Annotated, Any

from pydantic import BeforeValidator, PlainSerializer, WithJsonSchema

from ramp.catalog import Currency, currency_by_code

# Plain positional decimals only: no sign, exponent, spaces, leading zeros or bare dots.
_DECIMAL = re.compile(r"(0|[1-9][0-9]{0,29})(\.[0-9]{1,30})?")


class AmountProblem(ValueError):
    """An amount the API refuses; `details` go to the error envelope as they are."""

    def __init__(self, message: str, details: dict[str, Any]) -> None:
        super().__init__(message)
        self.message = message
        self.details = {"field": "amount", **details}


class CurrencyMismatch(ValueError):
    """Amounts in two currencies were compared: there is no rate here to do that."""


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


def format_amount(amount: Decimal) -> str:
    """The wire string: plain positional notation, with the places the amount carries."""
    return format(amount, "f")


def decimal_places(amount: Decimal) -> int:
    """How many places the amount was written with ("100.50": 2, "100": 0)."""
    exponent = amount.as_tuple().exponent
    assert isinstance(exponent, int), "a finite amount"
    return max(0, -exponent)


def _exact(value: Any) -> Any:
    # A float has already lost the amount's exact value: refuse it rather than guess.
    if isinstance(value, float):
        raise ValueError("an amount is a decimal string, never a float")
    return value


def _finite(value: Decimal) -> Decimal:
    if not value.is_finite():
        raise ValueError("an amount is a finite decimal")
    return value


# A decimal string on the wire and in Temporal payloads; a `Decimal` in Python.
Amount = Annotated[
    Decimal,
    BeforeValidator(_exact),
    PlainSerializer(format_amount, return_type=str, when_used="json"),
    WithJsonSchema({"type": "string", "examples": ["100.00"]}),
]


@dataclass(frozen=True)
class Money:
    """An amount and the code of its currency (`USD`, `USDC_ETHEREUM`...).

    Equal amounts are equal whatever their places (`100.00 USD == 100 USD`); ordering
    two currencies raises `CurrencyMismatch`.
    """

    amount: Decimal
    currency: str

    def __post_init__(self) -> None:
        if not isinstance(self.amount, Decimal) or not self.amount.is_finite():
            raise TypeError(f"a Money amount is a finite Decimal, not {self.amount!r}")
        currency = self.currency_details
        places = decimal_places(self.amount)
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

    @classmethod
    def parse(cls, raw: str, currency: str) -> Money:
        """The money of a wire decimal string: its format, then the currency's places."""
        return cls(parse_amount(raw), currency)

    @property
    def currency_details(self) -> Currency:
        currency = currency_by_code(self.currency)
        if currency is None:
            raise ValueError(f"unknown currency {self.currency!r}")
        return currency

    @property
    def decimal_string(self) -> str:
        """The amount as the API shows it."""
        return format_amount(self.amount)

    def in_smallest_units(self) -> int:
        """The amount in the currency's smallest unit (cents, satoshi, wei)."""
        # A wide context: 30 integer digits and 18 decimals must not round.
        decimals = self.currency_details.decimals
        return int(self.amount.scaleb(decimals, context=Context(prec=100)))

    def _same_currency(self, other: object) -> Money:
        if not isinstance(other, Money):
            raise TypeError(f"cannot compare Money with {type(other).__name__}")
        if other.currency != self.currency:
            raise CurrencyMismatch(f"cannot compare {self.currency} with {other.currency}")
        return other

    def __lt__(self, other: object) -> bool:
        return self.amount < self._same_currency(other).amount

    def __le__(self, other: object) -> bool:
        return self.amount <= self._same_currency(other).amount

    def __gt__(self, other: object) -> bool:
        return self.amount > self._same_currency(other).amount

    def __ge__(self, other: object) -> bool:
        return self.amount >= self._same_currency(other).amount

    def __str__(self) -> str:
        return f"{self.decimal_string} {self.currency}"
