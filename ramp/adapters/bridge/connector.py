"""The Bridge connector: the contract's flows, each delegated to its module."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

import httpx

# Modules, not the package: the package's __init__ imports this module.
import ramp.adapters.bridge.accounts as accounts
import ramp.adapters.bridge.customers as customers
import ramp.adapters.bridge.kyc as kyc
import ramp.adapters.bridge.quotes as quotes
import ramp.adapters.bridge.transfers as transfers
import ramp.adapters.bridge.webhook_endpoints as webhook_endpoints
import ramp.adapters.bridge.webhooks as webhooks
from ramp.adapters.contract import (
    AccountDetails,
    CallMode,
    ComplianceHandoff,
    CustomerProfile,
    NotSupported,
    ProviderAccountRef,
    ProviderContext,
    ProviderCustomerRef,
    ProviderEvent,
    ProviderRefused,
    ProviderTransfer,
    ProviderTransferStatus,
    Quote,
    QuoteRequest,
    TransactionOrder,
    WebhookRegistration,
    WebhookRejected,
)
from ramp.adapters.http_common import TIMEOUT
from ramp.security.network import PUBLIC_ONLY, NetworkPolicy

from .client import BridgeClient
from .credentials import CREDENTIALS_SCHEMA
from .credentials import base_url as credentials_base_url


class BridgeConnector:
    code = "BRIDGE"
    # Across the network: regular activities on the providers' queue.
    call_mode = CallMode.REMOTE
    amount_unit = transfers.AMOUNT_UNIT
    credentials_schema: Mapping[str, Any] = CREDENTIALS_SCHEMA

    def __init__(
        self, *, timeout: httpx.Timeout = TIMEOUT, network: NetworkPolicy = PUBLIC_ONLY
    ) -> None:
        self._timeout = timeout
        self._network = network

    def _client(self, ctx: ProviderContext) -> BridgeClient:
        return BridgeClient(ctx, timeout=self._timeout, network=self._network)

    def base_url(self, credentials: Mapping[str, Any]) -> str:
        return credentials_base_url(credentials)

    async def verify_credentials(self, ctx: ProviderContext) -> None:
        # The cheapest authenticated read: one customer of the account, if any.
        async with self._client(ctx) as client:
            await client.get("/customers", params={"limit": "1"})

    async def ensure_customer(
        self, ctx: ProviderContext, customer: CustomerProfile
    ) -> ProviderCustomerRef:
        async with self._client(ctx) as client:
            return await customers.ensure_customer(client, customer)

    async def compliance(
        self, ctx: ProviderContext, customer: ProviderCustomerRef, requirement: str
    ) -> ComplianceHandoff:
        async with self._client(ctx) as client:
            return await kyc.compliance(client, customer, requirement)

    async def customer_details(
        self, ctx: ProviderContext, customer: ProviderCustomerRef
    ) -> dict[str, Any]:
        """What Bridge's KYC flow collected and its customer object gives back (names,
        address), in our KYC_BASIC vocabulary: shared with another provider only with
        the customer's consent (ramp/onboarding/reuse.py)."""
        async with self._client(ctx) as client:
            return await customers.read_customer_details(client, customer)

    async def register_account(
        self, ctx: ProviderContext, customer: ProviderCustomerRef, account: AccountDetails
    ) -> ProviderAccountRef:
        async with self._client(ctx) as client:
            return await accounts.register_account(client, customer, account)

    async def quote(self, ctx: ProviderContext, request: QuoteRequest) -> Quote:
        pair = quotes.rate_pair(request)
        rates = None
        if not pair.one_to_one:
            async with self._client(ctx) as client:
                rates = await client.get("/exchange_rates", params=pair.params())
        rate = quotes.exchange_rate(pair, rates)
        return quotes.provider_quote(request, pair, rate, datetime.now(UTC))

    async def create_transfer(
        self,
        ctx: ProviderContext,
        customer: ProviderCustomerRef,
        order: TransactionOrder,
        destination_account: ProviderAccountRef | None = None,
    ) -> ProviderTransfer:
        body = transfers.transfer_body(customer, order, destination_account)
        async with self._client(ctx) as client:
            # Our transaction id is the idempotency key: a retry after a timeout finds
            # the transfer the first attempt created instead of placing a second one.
            created = await client.post(
                "/transfers",
                body,
                idempotency_key=order.transaction_id,
                fields=transfers.FIELD_POINTERS.get,
            )
        return transfers.provider_transfer(created, order)

    async def get_transfer(self, ctx: ProviderContext, ref: str) -> ProviderTransferStatus:
        async with self._client(ctx) as client:
            return transfers.transfer_status(await client.get(f"/transfers/{ref}"))

    async def cancel_transfer(self, ctx: ProviderContext, ref: str) -> None:
        async with self._client(ctx) as client:
            status = transfers.transfer_status(await client.get(f"/transfers/{ref}"))
            if status.provider_state == transfers.CANCELED:
                return  # already void: cancelling is idempotent
            if not status.cancellable:
                raise NotSupported(f"Bridge holds the deposit ({status.provider_state})")
            try:
                await client.delete(f"/transfers/{ref}")
            except ProviderRefused:
                # The deposit may have arrived between the read and the delete.
                after = transfers.transfer_status(await client.get(f"/transfers/{ref}"))
                if after.provider_state == transfers.CANCELED:
                    return
                raise NotSupported(f"Bridge holds the deposit ({after.provider_state})") from None

    async def register_webhook(self, ctx: ProviderContext, url: str) -> WebhookRegistration:
        async with self._client(ctx) as client:
            return await webhook_endpoints.register_endpoint(client, url)

    def parse_webhook(
        self, ctx: ProviderContext, headers: Mapping[str, str], body: bytes
    ) -> list[ProviderEvent]:
        if not ctx.webhook_public_key:
            raise WebhookRejected("no Bridge webhook key is registered for this account")
        webhooks.verify_signature(headers, body, ctx.webhook_public_key)
        return webhooks.parse_events(body)
