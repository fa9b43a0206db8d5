"""Customers at Bridge, opened through a KYC link.

A KYC link (`POST /kyc_links` with the name, e-mail and type) creates the Bridge
customer and returns, with its `customer_id`, the two hosted flows the customer
completes: identity verification (`kyc_link`) and terms of service (`tos_link`).

Idempotency: Bridge replays a POST with the same `Idempotency-Key` only for 24 hours.
So `ensure_customer` first looks for an existing link by e-mail (a returning customer,
perhaps approved long ago, keeps its customer), and only then creates one under a key
derived from our customer id; the caller remembers the returned id per provider account.
"""

from __future__ import annotations

from typing import Any

from ramp.adapters.contract import CustomerProfile, ProviderCustomerRef, ProviderRefused

from .accounts import ALPHA3
from .client import BridgeClient

KYC_LINK_HANDLE = "kycLinkId"


def customer_idempotency_key(profile: CustomerProfile) -> str:
    return f"ramp-customer-{profile.customer_id}"


def _ref(link: dict[str, Any]) -> ProviderCustomerRef:
    customer_id = link.get("customer_id")
    if not customer_id:
        raise ProviderRefused("Bridge returned a KYC link without a customer")
    return ProviderCustomerRef(
        provider_customer_id=str(customer_id), handles={KYC_LINK_HANDLE: str(link["id"])}
    )


async def ensure_customer(client: BridgeClient, profile: CustomerProfile) -> ProviderCustomerRef:
    existing = await client.get("/kyc_links", params={"email": profile.email})
    for link in (existing or {}).get("data", []):
        if isinstance(link, dict) and link.get("customer_id"):
            return _ref(link)
    created = await client.post(
        "/kyc_links",
        {"full_name": profile.full_name, "email": profile.email, "type": profile.type},
        idempotency_key=customer_idempotency_key(profile),
        fields={"full_name": "/fullName", "email": "/email", "type": "/type"}.get,
    )
    return _ref(created)


def _alpha2(code: object) -> str | None:
    text = str(code or "").upper()
    if len(text) == 2:
        return text
    return next((two for two, three in ALPHA3.items() if three == text), None)


def customer_details(customer: dict[str, Any]) -> dict[str, Any]:
    """What Bridge's customer object gives back of what the customer typed in Bridge's
    KYC flow, in our KYC_BASIC form's vocabulary (ramp/onboarding/forms.py): names, the
    residential address (`address`, or `residential_address`), the birth date and
    nationality when Bridge shows them. Nothing else is there to read: Bridge's
    reference shows no ID document or phone number on the customer object."""
    details: dict[str, Any] = {}
    for ours, theirs in (("firstName", "first_name"), ("lastName", "last_name"),
                         ("dateOfBirth", "birth_date")):  # fmt: skip
        if isinstance(customer.get(theirs), str) and customer[theirs].strip():
            details[ours] = customer[theirs].strip()
    nationality = _alpha2(customer.get("nationality"))
    if nationality:
        details["nationality"] = nationality
    raw = customer.get("residential_address") or customer.get("address")
    if isinstance(raw, dict):
        address = {
            "line1": raw.get("street_line_1"),
            "line2": raw.get("street_line_2"),
            "city": raw.get("city"),
            "region": raw.get("state") or raw.get("subdivision"),
            "postalCode": raw.get("postal_code"),
            "country": _alpha2(raw.get("country")),
        }
        address = {k: str(v).strip() for k, v in address.items() if v and str(v).strip()}
        if {"line1", "city", "postalCode", "country"} <= address.keys():
            details["address"] = address
    return details


async def read_customer_details(
    client: BridgeClient, customer: ProviderCustomerRef
) -> dict[str, Any]:
    found = await client.get(f"/customers/{customer.provider_customer_id}")
    return customer_details(found if isinstance(found, dict) else {})
