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
