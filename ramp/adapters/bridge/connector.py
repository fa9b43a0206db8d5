"""The Bridge connector: the contract's flows, each delegated to its module."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

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
from ramp.adapters.http_common import HttpConnector

from .client import BridgeClient
from .credentials import CREDENTIALS


class BridgeConnector(HttpConnector[BridgeClient]):
    """What every HTTP connector shares (call mode, base URL, `_flow`) is
    `HttpConnector`'s; the flows are Bridge's, one module each."""

    code = "BRIDGE"
    amount_unit = transfers.AMOUNT_UNIT
    credentials_spec = CREDENTIALS
    credentials_schema: Mapping[str, Any] = CREDENTIALS.schema

    def _client(self, ctx: ProviderContext) -> BridgeClient:
        return BridgeClient(ctx, timeout=self._timeout, network=self._network)

    async def verify_credentials(self, ctx: ProviderContext) -> None:
        # The cheapest authenticated read: one customer of the account, if any.
        async with self._client(ctx) as client:
            await client.get("/customers", params={"limit": "1"})

    async def ensure_customer(
        self, ctx: ProviderContext, customer: CustomerProfile
    ) -> ProviderCustomerRef:
        return await self._flow(ctx, customers.ensure_customer, customer)

    async def compliance(
        self, ctx: ProviderContext, customer: ProviderCustomerRef, requirement: str
    ) -> ComplianceHandoff:
        return await self._flow(ctx, kyc.compliance, customer, requirement)

    async def customer_details(
        self, ctx: ProviderContext, customer: ProviderCustomerRef
    ) -> dict[str, Any]:
        """What Bridge's KYC flow collected and its customer object gives back (names,
        address), in our KYC_BASIC vocabulary: shared with another provider only with
        the customer's consent (ramp/onboarding/reuse.py)."""
        return await self._flow(ctx, customers.read_customer_details, customer)

    async def register_account(
        self, ctx: ProviderContext, customer: ProviderCustomerRef, account: AccountDetails
    ) -> ProviderAccountRef:
        return await self._flow(ctx, accounts.register_account, customer, account)

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
        return await self._flow(ctx, webhook_endpoints.register_endpoint, url)

    def parse_webhook(
        self, ctx: ProviderContext, headers: Mapping[str, str], body: bytes
    ) -> list[ProviderEvent]:
        if not ctx.webhook_public_key:
            raise WebhookRejected("no Bridge webhook key is registered for this account")
        webhooks.verify_signature(headers, body, ctx.webhook_public_key)
        return webhooks.parse_events(body)
