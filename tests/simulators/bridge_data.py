"""Our side of the Bridge tests: customers, accounts and orders in our own terms, as the
workflow would hand them to the connector (metadata shaped by our account schemas)."""

from __future__ import annotations

from decimal import Decimal

from ramp.adapters.contract import AccountDetails, CustomerProfile, TransactionOrder
from ramp.catalog import MovementType, Rail

WALLET = "0x52908400098527886E0F7030069857D2E4169EE7"


def profile(n: int = 1) -> CustomerProfile:
    return CustomerProfile(
        customer_id=f"cus_{n}", email=f"ada{n}@example.com", full_name="Ada Lovelace"
    )


def us_account(routing: str = "021000021") -> AccountDetails:
    return AccountDetails(
        currency_code="USD",
        rail=Rail.ACH,
        country_code="US",
        metadata={
            "rails": "ACH",
            "currency": "USD",
            "countryCode": "US",
            "institutionName": "JPMorgan Chase Bank",
            "accountIdentifier": {"routingNumber": routing, "accountNumber": "000123456789"},
            "beneficiary": {"name": "Ada Lovelace", "taxId": "123-45-6789"},
            "beneficiaryAddress": {
                "line1": "1 Main St",
                "city": "Austin",
                "postalCode": "73301",
                "country": "US",
            },
        },
    )


def sepa_account() -> AccountDetails:
    return AccountDetails(
        currency_code="EUR",
        rail=Rail.SEPA,
        country_code="DE",
        metadata={
            "rails": "SEPA",
            "currency": "EUR",
            "countryCode": "DE",
            "institutionName": "Commerzbank",
            "accountIdentifier": {"iban": "DE89370400440532013000", "bic": "COBADEFFXXX"},
            "beneficiary": {"name": "Ada King Lovelace", "taxId": "12345678901"},
        },
    )


def wallet(code: str = "USDC_ETHEREUM") -> AccountDetails:
    return AccountDetails(currency_code=code, metadata={"address": WALLET, "currency": code})


def spei_account() -> AccountDetails:
    return AccountDetails(
        currency_code="MXN",
        rail=Rail.SPEI,
        country_code="MX",
        metadata={
            "rails": "SPEI",
            "currency": "MXN",
            "countryCode": "MX",
            "institutionName": "BBVA México",
            "accountIdentifier": {"clabe": "032180000118359719"},
            "beneficiary": {"name": "Ada Lovelace", "taxId": "XAXX010101000"},
        },
    )


def onramp(rail: Rail = Rail.ACH, txn: str = "txn_1", amount: str = "250.00") -> TransactionOrder:
    source = {Rail.ACH: us_account, Rail.SEPA: sepa_account, Rail.SPEI: spei_account}[rail]()
    return TransactionOrder(
        transaction_id=txn,
        movement_type=MovementType.ONRAMP,
        amount=Decimal(amount),
        source=source,
        destination=wallet("USDC_ETHEREUM" if rail is Rail.ACH else "USDC_BASE"),
    )
