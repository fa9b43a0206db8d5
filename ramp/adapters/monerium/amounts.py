"""Amounts at Monerium: orders in whole cents, EURe in 18 decimals, and the limits.

Monerium writes an order's amount as a decimal string of euros with at most two
places ("1000", "4.5", "12.34"), while EURe, like most ERC-20 tokens, counts 18
decimals. The rule (docs/providers.md, "Monerium: amounts"):

- the unit is the base unit (`AmountUnit.BASE`), written with exactly two places;
- an on-ramp's EUR amount always has cents at most (our EUR has two decimals): the EURe
  minted is that amount, exactly (trailing zeros past the cents);
- an off-ramp's EURe amount must be a whole number of cents: anything past the cents
  is refused before anything is sent (never rounded, which would burn or pay out an
  amount the customer did not ask for), with the nearest amounts Monerium can take;
- an order of 15,000 EUR or more needs a supporting document (an invoice, an
  agreement) uploaded with it; we upload none, so such an order is refused before it is
  sent, in our words, rather than by Monerium after the customer signed it.
"""

from __future__ import annotations

from decimal import ROUND_DOWN, ROUND_UP, Decimal
from typing import Final

from ramp.adapters.contract import AmountUnit, ProviderRefused

AMOUNT_UNIT: Final = AmountUnit.BASE
CENT: Final = Decimal("0.01")
# Orders at or above this need a supporting document (`supportingDocumentId`).
SUPPORTING_DOCUMENT_FROM: Final = Decimal("15000")


def order_amount(amount: Decimal) -> str:
    """`amount` as Monerium's order writes it (two places), or a refusal before sending."""
    if not amount.is_finite() or amount <= 0:
        raise ProviderRefused("Monerium takes a positive amount", {"/amount": "must be > 0"})
    cents = amount.quantize(CENT, rounding=ROUND_DOWN)
    if cents != amount:
        down, up = cents, amount.quantize(CENT, rounding=ROUND_UP)
        raise ProviderRefused(
            f"Monerium moves whole cents: {amount:f} has digits past the cents; "
            f"ask for {down:f} or {up:f}",
            {"/amount": "at most two decimal places at Monerium"},
        )
    if cents >= SUPPORTING_DOCUMENT_FROM:
        raise ProviderRefused(
            f"Monerium needs a supporting document for {SUPPORTING_DOCUMENT_FROM:f} EUR or "
            "more, which this service does not upload: split the amount",
            {"/amount": f"below {SUPPORTING_DOCUMENT_FROM:f} at Monerium"},
        )
    return f"{cents:f}"


def parse_amount(raw: object) -> Decimal | None:
    """An amount Monerium wrote ("999", "12.3"), or None when it is not one."""
    try:
        value = Decimal(str(raw))
    except ArithmeticError:
        return None
    return value if value.is_finite() else None
