"""Payout accounts at Bridge (external accounts), built from our account metadata.

An off-ramp pays out to a Bridge external account: a US account (ACH, wire), an IBAN
(SEPA) or a CLABE (SPEI). The body is built from the metadata our account schemas
validated; Bridge's validation errors point at Bridge's keys, mapped back to our JSON
pointers so the project sees which of its fields is wrong.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any, Final

from ramp.adapters.contract import (
    AccountDetails,
    NotSupported,
    ProviderAccountRef,
    ProviderCustomerRef,
)
from ramp.catalog import Rail

from .client import BridgeClient

# Bridge wants ISO 3166-1 alpha-3 countries; our schemas carry alpha-2.
ALPHA3: Final[Mapping[str, str]] = {
    "US": "USA", "MX": "MEX", "GB": "GBR", "AT": "AUT", "BE": "BEL", "BG": "BGR",
    "HR": "HRV", "CY": "CYP", "CZ": "CZE", "DK": "DNK", "EE": "EST", "FI": "FIN",
    "FR": "FRA", "DE": "DEU", "GR": "GRC", "HU": "HUN", "IS": "ISL", "IE": "IRL",
    "IT": "ITA", "LV": "LVA", "LI": "LIE", "LT": "LTU", "LU": "LUX", "MT": "MLT",
    "MC": "MCO", "NL": "NLD", "NO": "NOR", "PL": "POL", "PT": "PRT", "RO": "ROU",
    "SM": "SMR", "SK": "SVK", "SI": "SVN", "ES": "ESP", "SE": "SWE", "CH": "CHE",
}  # fmt: skip

# Bridge's field key -> our JSON pointer into the account metadata.
FIELD_POINTERS: Final[Mapping[str, str]] = {
    "bank_name": "/institutionName",
    "account_owner_name": "/beneficiary/name",
    "first_name": "/beneficiary/name",
    "last_name": "/beneficiary/name",
    "account.routing_number": "/accountIdentifier/routingNumber",
    "account.account_number": "/accountIdentifier/accountNumber",
    "routing_number": "/accountIdentifier/routingNumber",
    "account_number": "/accountIdentifier/accountNumber",
    "iban.account_number": "/accountIdentifier/iban",
    "iban.bic": "/accountIdentifier/bic",
    "iban.country": "/countryCode",
    "clabe.account_number": "/accountIdentifier/clabe",
    "address.street_line_1": "/beneficiaryAddress/line1",
    "address.street_line_2": "/beneficiaryAddress/line2",
    "address.city": "/beneficiaryAddress/city",
    "address.state": "/beneficiaryAddress/region",
    "address.postal_code": "/beneficiaryAddress/postalCode",
    "address.country": "/beneficiaryAddress/country",
}


def field_pointer(key: str) -> str | None:
    return FIELD_POINTERS.get(key)


def _alpha3(code: str | None) -> str | None:
    return ALPHA3.get(code or "", code)


def _address(meta: Mapping[str, Any]) -> dict[str, Any] | None:
    address = meta.get("beneficiaryAddress")
    if not isinstance(address, dict):
        return None
    body = {
        "street_line_1": address.get("line1"),
        "street_line_2": address.get("line2"),
        "city": address.get("city"),
        "state": address.get("region"),
        "postal_code": address.get("postalCode"),
        "country": _alpha3(address.get("country")),
    }
    return {k: v for k, v in body.items() if v}


def external_account_body(account: AccountDetails) -> dict[str, Any]:
    """Bridge's external account for one of our bank accounts."""
    meta = account.metadata
    identifier: Mapping[str, str] = meta.get("accountIdentifier") or {}
    owner = str((meta.get("beneficiary") or {}).get("name", ""))
    body: dict[str, Any] = {
        "currency": account.currency_code.lower(),
        "bank_name": meta.get("institutionName"),
        "account_owner_name": owner,
    }
    if account.rail in (Rail.ACH, Rail.WIRE):
        body["account_type"] = "us"
        body["account"] = {
            "routing_number": identifier.get("routingNumber"),
            "account_number": identifier.get("accountNumber"),
            "checking_or_savings": "checking",
        }
    elif account.rail is Rail.SEPA:
        first, _, last = owner.rpartition(" ")
        body["account_type"] = "iban"
        body["iban"] = {
            "account_number": identifier.get("iban"),
            "bic": identifier.get("bic"),
            "country": _alpha3(account.country_code),
        }
        # Bridge needs the owner's type, and an individual's first and last names.
        body.update(account_owner_type="individual", first_name=first or last, last_name=last)
    elif account.rail is Rail.SPEI:
        body["account_type"] = "clabe"
        body["clabe"] = {"account_number": identifier.get("clabe")}
    else:
        raise NotSupported(f"Bridge does not pay out over {account.rail}")
    address = _address(meta)
    if address:
        body["address"] = address
    return {k: v for k, v in body.items() if v is not None}


def external_account_idempotency_key(customer: ProviderCustomerRef, body: Mapping[str, Any]) -> str:
    # The same account registered twice for the same customer is one external account.
    canonical = json.dumps([customer.provider_customer_id, body], sort_keys=True)
    return "ramp-ea-" + hashlib.sha256(canonical.encode()).hexdigest()[:40]


async def register_account(
    client: BridgeClient, customer: ProviderCustomerRef, account: AccountDetails
) -> ProviderAccountRef:
    if account.rail is None:
        raise NotSupported("crypto addresses need no registration at Bridge")
    body = external_account_body(account)
    created = await client.post(
        f"/customers/{customer.provider_customer_id}/external_accounts",
        body,
        idempotency_key=external_account_idempotency_key(customer, body),
        fields=field_pointer,
    )
    return ProviderAccountRef(provider_account_ref=str(created["id"]))
