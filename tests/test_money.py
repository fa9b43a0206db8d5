"""Money and the Amount field type: exact, shown as sent, one currency at a time."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import httpx
import pytest
from pydantic import BaseModel, ValidationError
from temporalio.contrib.pydantic import pydantic_data_converter

from ramp.intents.models import IntentRequest
from ramp.money import Amount, AmountProblem, CurrencyMismatch, Money, format_amount
from tests.helpers.payments import (
    complete_onboarding,
    create_intent,
    get_intent,
    register_accounts,
    wallet,
)
from tests.helpers.projects import ProjectCredentials


@pytest.mark.parametrize(
    ("raw", "currency"),
    [
        ("100.00", "USD"),
        ("100", "USD"),
        ("0.5", "USD"),
        ("0.0000001", "ETH_ETHEREUM"),
        ("1.000000000000000001", "ETH_ETHEREUM"),
        ("123456789012345678901234567890.123456789012345678", "ETH_ETHEREUM"),
        ("0.00000001", "BTC_BITCOIN"),
    ],
)
def test_parsed_money_formats_back_to_the_string_sent(raw: str, currency: str) -> None:
    money = Money.parse(raw, currency)
    assert money.amount == Decimal(raw)
    assert money.decimal_string == raw
    assert str(money) == f"{raw} {currency}"


def test_parse_keeps_the_api_messages() -> None:
    with pytest.raises(AmountProblem) as malformed:
        Money.parse("1e2", "USD")
    assert malformed.value.details == {"field": "amount", "reason": "FORMAT"}
    with pytest.raises(AmountProblem) as zero:
        Money.parse("0.00", "USD")
    assert zero.value.message == "amount must be greater than zero"
    with pytest.raises(AmountProblem) as precise:
        Money.parse("10.001", "USD")
    assert precise.value.message == "USD allows at most 2 decimal places; the amount has 3"
    assert precise.value.details == {
        "field": "amount",
        "reason": "PRECISION",
        "currencyCode": "USD",
        "maxDecimals": 2,
        "providedDecimals": 3,
    }


def test_equal_amounts_are_equal_whatever_their_places() -> None:
    assert Money.parse("100.00", "USD") == Money.parse("100", "USD")
    assert hash(Money.parse("100.00", "USD")) == hash(Money.parse("100", "USD"))
    assert Money.parse("100", "USD") != Money.parse("100", "EUR")
    assert Money.parse("99.99", "USD") < Money.parse("100", "USD")
    assert Money.parse("0.1", "BTC_BITCOIN") >= Money.parse("0.10000000", "BTC_BITCOIN")


def test_amounts_in_two_currencies_are_never_compared() -> None:
    with pytest.raises(CurrencyMismatch, match="USD with EUR"):
        assert Money.parse("1", "USD") < Money.parse("2", "EUR")
    with pytest.raises(CurrencyMismatch):
        assert Money.parse("1", "USDC_ETHEREUM") >= Money.parse("1", "USDC_POLYGON")


def test_money_holds_catalog_currencies_and_finite_decimals_only() -> None:
    with pytest.raises(ValueError, match="unknown currency"):
        Money(Decimal("1"), "XYZ")
    with pytest.raises(TypeError):
        Money(Decimal("NaN"), "USD")
    with pytest.raises(TypeError):
        Money(1.5, "USD")  # type: ignore[arg-type]


def test_smallest_units_are_exact() -> None:
    assert Money.parse("100.5", "USD").in_smallest_units() == 10050
    wei = Money.parse("123456789012345678901234567890.123456789012345678", "ETH_ETHEREUM")
    assert wei.in_smallest_units() == 123456789012345678901234567890123456789012345678


class _Carries(BaseModel):
    amount: Amount


def test_an_amount_field_is_a_decimal_string_in_json() -> None:
    # Plain positional notation: Decimal's own str() would write "1E-7".
    assert format_amount(Decimal("0.0000001")) == "0.0000001"
    carried = _Carries.model_validate_json('{"amount": "0.0000001"}')
    assert carried.amount == Decimal("0.0000001")
    assert carried.model_dump_json() == '{"amount":"0.0000001"}'
    assert _Carries(amount=Decimal("100.00")).model_dump(mode="json") == {"amount": "100.00"}
    assert _Carries.model_json_schema()["properties"]["amount"]["type"] == "string"


def test_an_amount_field_refuses_floats_and_non_finite_values() -> None:
    with pytest.raises(ValidationError):
        _Carries.model_validate({"amount": 0.1})
    with pytest.raises(ValidationError):
        _Carries.model_validate_json('{"amount": "NaN"}')


def test_workflow_payloads_keep_their_json_shape() -> None:
    # Recorded histories hold `"amount": "100.00"`: the payload stays that string.
    request = IntentRequest(
        intent_id="i",
        project_id="p",
        customer_id="c",
        src_account_id="s",
        dest_account_id="d",
        amount=Decimal("100.00"),
        lifetime_seconds=60,
        fingerprint="f",
    )
    (payload,) = pydantic_data_converter.payload_converter.to_payloads([request])
    assert json.loads(payload.data)["amount"] == "100.00"
    (back,) = pydantic_data_converter.payload_converter.from_payloads([payload], [IntentRequest])
    assert back == request
    assert format_amount(back.amount) == "100.00"


FPS: dict[str, Any] = {
    "rails": "FPS",
    "currency": "GBP",
    "countryCode": "GB",
    "institutionName": "HSBC UK",
    "accountIdentifier": {"sortCode": "401276", "accountNumber": "41234567"},
    "beneficiary": {"name": "Alex Morgan", "taxId": "AB123456C"},
}


@pytest.mark.usefixtures("worker")
async def test_wei_are_kept_through_the_workflow_the_provider_and_the_database(
    client: httpx.AsyncClient, project: ProjectCredentials, customer: dict[str, Any]
) -> None:
    # 18 places: a float (or a NUMERIC with fewer places) would lose the last wei.
    amount = "1.000000000000000001"
    token = customer["access_token"]
    accounts = await register_accounts(
        client, token, "ETH_ETHEREUM", "GBP", wallet("ETH_ETHEREUM"), FPS
    )
    first = await create_intent(client, token, accounts, amount="0.5")
    assert first.status_code == 201, first.text
    await complete_onboarding(client, project, token, first.json()["intent"]["id"])

    opened = await create_intent(client, token, accounts, amount=amount)
    assert opened.status_code == 201, opened.text
    shown = await get_intent(client, token, opened.json()["intent"]["id"])
    assert shown["intent"]["transferAmount"] == {"amount": amount, "currencyCode": "ETH_ETHEREUM"}
    [instruction] = shown["transaction"]["context"]["depositInstructions"]
    assert instruction["instructions"]["amount"] == amount
    assert instruction["instructions"]["amountInSmallestUnit"] == "1000000000000000001"
    again = await get_intent(client, token, first.json()["intent"]["id"])
    assert again["intent"]["transferAmount"]["amount"] == "0.5"
