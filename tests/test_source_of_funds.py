"""The source-of-funds evidence line is per currency, never one number for all."""

from __future__ import annotations

from decimal import Decimal

import pytest

from ramp.catalog import all_currencies
from ramp.money import Money
from ramp.onboarding.forms import form_fields
from ramp.onboarding.funds import evidence_threshold, needs_evidence


def evidence_required(amount: str, currency_code: str) -> bool:
    fields = form_fields("SOURCE_OF_FUNDS", Money.parse(amount, currency_code))
    assert fields is not None
    return next(f for f in fields if f.name == "evidence").required


@pytest.mark.parametrize(
    ("amount", "currency", "required"),
    [
        ("9999.99", "USD", False),
        ("10000", "USD", True),
        ("10000", "MXN", False),  # about USD 550
        ("179999", "MXN", False),
        ("180000", "MXN", True),
        ("5", "BTC_BITCOIN", True),  # hundreds of thousands of dollars
        ("0.05", "BTC_BITCOIN", False),
        ("9500", "EUR", True),
        ("12000", "USDC_POLYGON", True),
        ("2", "ETH_ETHEREUM", False),
    ],
)
def test_evidence_follows_the_source_currency(amount: str, currency: str, required: bool) -> None:
    assert evidence_required(amount, currency) is required
    assert needs_evidence(Money.parse(amount, currency)) is required


def test_every_catalog_currency_has_a_line() -> None:
    # A currency added to the catalog without a line would ask every customer for evidence.
    for currency in all_currencies():
        assert evidence_threshold(currency.code) > 0, currency.code


def test_an_unknown_currency_always_needs_evidence() -> None:
    assert evidence_threshold("XYZ") == Decimal(0)
    # And no amount of it reaches the check: Money only holds catalog currencies.
    with pytest.raises(ValueError, match="unknown currency"):
        Money(Decimal("0.01"), "XYZ")
