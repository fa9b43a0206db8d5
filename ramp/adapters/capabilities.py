"""Capabilities a connector may have beyond the contract (ramp/adapters/contract.py),
found with `isinstance` (the protocols are runtime-checkable): a provider that has
none of them, the sandbox's mocks, declares nothing."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from ramp.adapters.contract import (
    ComplianceHandoff,
    ProviderContext,
    ProviderCustomerRef,
    SigningRequest,
    TransactionOrder,
)

__all__ = ["GeneratesWebhookSecret", "SharesCustomerDetails", "SigningConnector"]


@runtime_checkable
class GeneratesWebhookSecret(Protocol):
    """A provider whose webhooks we sign-key ourselves (Monerium: Standard Webhooks with
    a `whsec_` secret we send when subscribing). The account's secret is generated,
    stored encrypted and committed *before* `register_webhook`, since the provider
    calls the endpoint to test it while subscribing (ramp/provider_accounts/service.py)."""

    def new_webhook_secret(self) -> str: ...


@runtime_checkable
class SigningConnector(Protocol):
    """A provider that takes the customer's wallet signature: for a compliance step
    (SIGN mode) and for an order (prepare, sign, place)."""

    def link_request(
        self, ctx: ProviderContext, address: str, currency_code: str
    ) -> SigningRequest:
        """What the customer signs to prove they own `address` (a SIGN step)."""
        ...

    async def address_linked(
        self, ctx: ProviderContext, customer: ProviderCustomerRef, address: str, chain: str
    ) -> bool:
        """Whether the customer already proved they own `address` at the provider."""
        ...

    async def link_address(
        self,
        ctx: ProviderContext,
        customer: ProviderCustomerRef,
        request: SigningRequest,
        signature: str,
    ) -> ComplianceHandoff:
        """Forwards a SIGN step's signature; the step's standing after it."""
        ...

    async def prepare_transfer(
        self, ctx: ProviderContext, customer: ProviderCustomerRef, order: TransactionOrder
    ) -> SigningRequest | None:
        """What the customer must sign before `create_transfer` can place `order`
        (its `authorization`); None when the order needs no signature."""
        ...

    def check_authorization(self, ctx: ProviderContext, order: TransactionOrder) -> None:
        """Refuses (`ProviderRefused`) an `order.authorization` that is not this order's
        or no longer valid, without calling the provider."""
        ...


@runtime_checkable
class SharesCustomerDetails(Protocol):
    """A provider whose own KYC flow collects the customer's identity and gives back
    part of it (Bridge's customer object: names, address): with the customer's consent,
    it fills the next provider's forms (ramp/onboarding/reuse.py)."""

    async def customer_details(
        self, ctx: ProviderContext, customer: ProviderCustomerRef
    ) -> dict[str, Any]: ...
