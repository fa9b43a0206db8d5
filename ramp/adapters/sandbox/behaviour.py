"""A mock provider as a sandbox project set it to behave (`POST /v1/sandbox/providers/
{providerId}/behaviour`, docs/sandbox.md): a `Connector` around the mock that fails its
calls the way a real provider would, for clients (and our tests) to see health and
failover at work before production does. Pure: the mode is read by the caller
(ramp/routing/behaviour.py)."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from enum import StrEnum
from typing import Any

from ramp.adapters.contract import (
    AccountDetails,
    ComplianceHandoff,
    Connector,
    CustomerProfile,
    ProviderAccountRef,
    ProviderContext,
    ProviderCustomerRef,
    ProviderEvent,
    ProviderOutOfService,
    ProviderTransfer,
    ProviderTransferStatus,
    Quote,
    QuoteRequest,
    TransactionOrder,
    WebhookRegistration,
)


class Behaviour(StrEnum):
    UP = "UP"
    # Every call fails at once, as a provider refusing connections does after retries.
    DOWN = "DOWN"
    # Every call answers after SLOW_SECONDS: past the timeout of any in-process call.
    SLOW = "SLOW"
    # Orders are refused for the provider's own reasons; everything else works.
    REFUSE_TRANSFERS = "REFUSE_TRANSFERS"


# Longer than an in-process provider call may take (20 s, workflows/provider_calls.py)
# and than a quote's budget (2 s).
SLOW_SECONDS = 25.0


class MisbehavingConnector:
    """`connector` behaving as `mode` says (any mode but UP)."""

    def __init__(self, connector: Connector, mode: Behaviour) -> None:
        self._connector = connector
        self.mode = mode
        self.code = connector.code
        self.call_mode = connector.call_mode
        self.amount_unit = connector.amount_unit
        self.credentials_schema = connector.credentials_schema

    async def _misbehave(self, transfer: bool = False) -> None:
        if self.mode is Behaviour.DOWN:
            raise ProviderOutOfService(
                f"connection refused: {self.code} is down (sandbox behaviour DOWN)"
            )
        if self.mode is Behaviour.SLOW:
            await asyncio.sleep(SLOW_SECONDS)
        if transfer and self.mode is Behaviour.REFUSE_TRANSFERS:
            raise ProviderOutOfService(
                f"{self.code} takes no transfers for now (sandbox behaviour REFUSE_TRANSFERS)"
            )

    def base_url(self, credentials: Mapping[str, Any]) -> str:
        return self._connector.base_url(credentials)

    async def verify_credentials(self, ctx: ProviderContext) -> None:
        await self._misbehave()
        await self._connector.verify_credentials(ctx)

    async def ensure_customer(
        self, ctx: ProviderContext, customer: CustomerProfile
    ) -> ProviderCustomerRef:
        await self._misbehave()
        return await self._connector.ensure_customer(ctx, customer)

    async def compliance(
        self, ctx: ProviderContext, customer: ProviderCustomerRef, requirement: str
    ) -> ComplianceHandoff:
        await self._misbehave()
        return await self._connector.compliance(ctx, customer, requirement)

    async def register_account(
        self, ctx: ProviderContext, customer: ProviderCustomerRef, account: AccountDetails
    ) -> ProviderAccountRef:
        await self._misbehave()
        return await self._connector.register_account(ctx, customer, account)

    async def quote(self, ctx: ProviderContext, request: QuoteRequest) -> Quote:
        await self._misbehave()
        return await self._connector.quote(ctx, request)

    async def create_transfer(
        self,
        ctx: ProviderContext,
        customer: ProviderCustomerRef,
        order: TransactionOrder,
        destination_account: ProviderAccountRef | None = None,
    ) -> ProviderTransfer:
        await self._misbehave(transfer=True)
        return await self._connector.create_transfer(ctx, customer, order, destination_account)

    async def get_transfer(self, ctx: ProviderContext, ref: str) -> ProviderTransferStatus:
        await self._misbehave()
        return await self._connector.get_transfer(ctx, ref)

    async def cancel_transfer(self, ctx: ProviderContext, ref: str) -> None:
        await self._misbehave()
        await self._connector.cancel_transfer(ctx, ref)

    async def register_webhook(self, ctx: ProviderContext, url: str) -> WebhookRegistration:
        await self._misbehave()
        return await self._connector.register_webhook(ctx, url)

    def parse_webhook(
        self, ctx: ProviderContext, headers: Mapping[str, str], body: bytes
    ) -> list[ProviderEvent]:
        return self._connector.parse_webhook(ctx, headers, body)
