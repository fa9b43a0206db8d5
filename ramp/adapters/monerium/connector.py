"""The Monerium connector: the contract's flows, each delegated to its module, and the
signing flows of `SigningConnector` (address link; prepare, sign, place a redeem)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import httpx

# Modules, not the package: the package's __init__ imports this module.
import ramp.adapters.monerium.orders as orders
import ramp.adapters.monerium.profiles as profiles
import ramp.adapters.monerium.webhooks as webhooks
from ramp.adapters.contract import (
    AccountDetails,
    ComplianceHandoff,
    ComplianceMode,
    CustomerProfile,
    NotSupported,
    ProviderAccountRef,
    ProviderContext,
    ProviderCustomerRef,
    ProviderEvent,
    ProviderRefused,
    ProviderTransfer,
    ProviderTransferStatus,
    ProviderUnavailable,
    Quote,
    QuoteRequest,
    SigningRequest,
    TransactionOrder,
    WebhookRegistration,
    WebhookRejected,
)
from ramp.adapters.http_common import TIMEOUT, HttpConnector
from ramp.catalog import MovementType, Rail
from ramp.intents.models import TransactionContext
from ramp.intents.states import StepOutcome
from ramp.security.network import PUBLIC_ONLY, NetworkPolicy

from .amounts import AMOUNT_UNIT, order_amount
from .client import MoneriumClient
from .credentials import CREDENTIALS
from .signatures import LINK_MESSAGE, check_address, check_signature
from .tokens import TOKENS, TokenCache

# The compliance step of a wallet: the customer signs Monerium's address-link sentence.
WALLET_OWNERSHIP = "WALLET_OWNERSHIP"
# How soon an on-ramp's placement is tried again while Monerium provisions the IBAN.
IBAN_PROVISIONING_RETRY = 1.0


def _environment(ctx: ProviderContext) -> str:
    return ctx.credentials.secret("environment") or "production"


class MoneriumConnector(HttpConnector[MoneriumClient]):
    """What every HTTP connector shares (call mode, base URL, `_flow`) is
    `HttpConnector`'s; the flows, the token cache and the signing flows are Monerium's."""

    code = "MONERIUM"
    amount_unit = AMOUNT_UNIT
    credentials_spec = CREDENTIALS
    credentials_schema: Mapping[str, Any] = CREDENTIALS.schema

    def __init__(
        self,
        *,
        timeout: httpx.Timeout = TIMEOUT,
        network: NetworkPolicy = PUBLIC_ONLY,
        tokens: TokenCache = TOKENS,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        super().__init__(timeout=timeout, network=network)
        self._tokens = tokens
        self._clock = clock

    def _client(self, ctx: ProviderContext) -> MoneriumClient:
        return MoneriumClient(
            ctx, timeout=self._timeout, network=self._network, tokens=self._tokens
        )

    def new_webhook_secret(self) -> str:
        return webhooks.new_secret()

    async def verify_credentials(self, ctx: ProviderContext) -> None:
        # Taking a token is the check: the token endpoint alone judges the client.
        async with self._client(ctx) as client:
            await client.take_token()

    # --- customers and compliance --------------------------------------------------------

    async def ensure_customer(
        self, ctx: ProviderContext, customer: CustomerProfile
    ) -> ProviderCustomerRef:
        return await self._flow(ctx, profiles.ensure_profile, customer)

    async def compliance(
        self, ctx: ProviderContext, customer: ProviderCustomerRef, requirement: str
    ) -> ComplianceHandoff:
        return await self._flow(ctx, profiles.compliance, customer, requirement)

    async def submit_details(
        self,
        ctx: ProviderContext,
        customer: ProviderCustomerRef,
        kyc_basic: Mapping[str, Any],
        *,
        email: str,
        phone: str | None = None,
    ) -> None:
        """Forwards what our hosted onboarding collected for KYC_BASIC."""
        await self._flow(
            ctx, profiles.submit_details, customer, kyc_basic, email=email, phone=phone
        )

    async def forward_form(
        self,
        ctx: ProviderContext,
        customer: ProviderCustomerRef,
        requirement: str,
        payload: Mapping[str, Any],
        *,
        email: str,
    ) -> None:
        """What our hosted page collected for `requirement`, into the profile's sections:
        KYC_BASIC's details and ID document, PROOF_OF_ADDRESS's document."""
        if requirement not in profiles.VERIFICATION_KINDS:
            raise NotSupported(f"Monerium takes no form for {requirement}")
        async with self._client(ctx) as client:
            if requirement == profiles.KYC_BASIC:
                await profiles.submit_details(client, customer, payload, email=email)
                document = payload.get("idDocument") or {}
                await profiles.submit_document(
                    client, customer, requirement, document.get("file") or {},
                    document.get("documentType"),
                )  # fmt: skip
            else:
                await profiles.submit_document(
                    client, customer, requirement, payload.get("file") or {}
                )

    def link_request(
        self, ctx: ProviderContext, address: str, currency_code: str
    ) -> SigningRequest:
        """What the customer signs to link `address` (Monerium's fixed sentence)."""
        _, chain = orders.token_chain(currency_code, _environment(ctx))
        return SigningRequest(
            purpose="LINK_ADDRESS", address=check_address(address), chain=chain,
            message=LINK_MESSAGE,
        )  # fmt: skip

    async def address_linked(
        self, ctx: ProviderContext, customer: ProviderCustomerRef, address: str, chain: str
    ) -> bool:
        async with self._client(ctx) as client:
            answer = await client.get(
                "/addresses", {"profile": customer.provider_customer_id, "chain": chain}
            )
        listed = (answer.body or {}).get("addresses") if isinstance(answer.body, dict) else None
        return any(
            isinstance(item, dict)
            and str(item.get("address", "")).lower() == address.lower()
            and chain in (item.get("chains") or ())
            for item in listed or []
        )

    async def link_address(
        self,
        ctx: ProviderContext,
        customer: ProviderCustomerRef,
        request: SigningRequest,
        signature: str,
    ) -> ComplianceHandoff:
        """Links the wallet with the customer's signature: VERIFIED when Monerium
        verified it (201), SUBMITTED while it verifies a Safe's approval on chain (202)."""
        check_signature(request.message, signature, request.address)
        async with self._client(ctx) as client:
            answer = await client.post(
                "/addresses",
                {
                    "profile": customer.provider_customer_id,
                    "address": request.address,
                    "chain": request.chain,
                    "message": request.message,
                    "signature": signature,
                },
                fields={"signature": "/signature", "address": "/address"}.get,
            )
        return ComplianceHandoff(
            requirement=WALLET_OWNERSHIP,
            mode=ComplianceMode.SIGN,
            outcome=StepOutcome.SUBMITTED if answer.status == 202 else StepOutcome.VERIFIED,
            signing=request,
        )

    async def register_account(
        self, ctx: ProviderContext, customer: ProviderCustomerRef, account: AccountDetails
    ) -> ProviderAccountRef:
        # A payee is named in each redeem order: nothing to register. The reference is
        # the IBAN, which the order reads from the account's metadata anyway.
        if account.rail is not Rail.SEPA:
            raise NotSupported("Monerium pays out over SEPA only")
        identifier = account.metadata.get("accountIdentifier") or {}
        iban = str(identifier.get("iban") or "").replace(" ", "").upper()
        if not iban:
            raise ProviderRefused(
                "Monerium pays out to an IBAN",
                {"/destination/metadata/accountIdentifier/iban": "required"},
            )
        return ProviderAccountRef(provider_account_ref=iban)

    # --- quotes and transfers -------------------------------------------------------------

    async def quote(self, ctx: ProviderContext, request: QuoteRequest) -> Quote:
        # EURe is e-money: one EURe per euro, minted and redeemed without a spread;
        # Monerium's fees are contractual and billed outside the order.
        pair = (request.source_currency, request.destination_currency)
        token = pair[1] if pair[0] == "EUR" else pair[0] if pair[1] == "EUR" else None
        if token is None:
            raise NotSupported("Monerium quotes EUR to its tokens and back")
        orders.token_chain(token, _environment(ctx))
        zero = Decimal("0.00")
        return Quote(
            source_currency=request.source_currency,
            destination_currency=request.destination_currency,
            source_amount=request.amount,
            destination_amount=request.amount,
            fee=zero,
        )

    async def prepare_transfer(
        self, ctx: ProviderContext, customer: ProviderCustomerRef, order: TransactionOrder
    ) -> SigningRequest | None:
        if order.movement_type is MovementType.ONRAMP:
            return None  # the payer's SEPA payment is the authorization
        return orders.redeem_request(order, _environment(ctx), self._clock())

    def check_authorization(self, ctx: ProviderContext, order: TransactionOrder) -> None:
        orders.redeem_body(order, order.authorization, _environment(ctx), self._clock())

    async def create_transfer(
        self,
        ctx: ProviderContext,
        customer: ProviderCustomerRef,
        order: TransactionOrder,
        destination_account: ProviderAccountRef | None = None,
    ) -> ProviderTransfer:
        if order.movement_type is MovementType.ONRAMP:
            return await self._onramp(ctx, customer, order)
        return await self._redeem(ctx, order)

    async def _onramp(
        self, ctx: ProviderContext, customer: ProviderCustomerRef, order: TransactionOrder
    ) -> ProviderTransfer:
        if order.source.rail is not Rail.SEPA:
            raise NotSupported("Monerium collects over SEPA only")
        order_amount(order.amount)  # the limits, before anything is asked
        _, chain = orders.token_chain(order.destination.currency_code, _environment(ctx))
        address = check_address(str(order.destination.metadata.get("address") or ""))
        profile = customer.provider_customer_id
        if not await self.address_linked(ctx, customer, address, chain):
            raise ProviderRefused(
                f"the customer has not linked {address} at Monerium yet: they sign the "
                "address link on the hosted onboarding page first",
                final=False,
            )
        async with self._client(ctx) as client:
            listed = await client.get("/ibans", {"profile": profile})
            ibans = (listed.body or {}).get("ibans") if isinstance(listed.body, dict) else None
            ibans = [i for i in ibans or [] if isinstance(i, dict)]
            iban = orders.matching_iban(ibans, address, chain)
            if iban is None and ibans:
                # One IBAN per profile: it now mints to this intent's address.
                await client.patch(
                    f"/ibans/{str(ibans[0]['iban']).replace(' ', '')}",
                    {"address": address, "chain": chain},
                )
                iban = {**ibans[0], "address": address, "chain": chain}
            if iban is None:
                await client.post("/ibans", {"address": address, "chain": chain}, expect=(304,))
                # 202: provisioned in seconds, announced by `iban.updated`; the next
                # attempt of this placement reads it.
                raise ProviderUnavailable(
                    "Monerium is provisioning the customer's IBAN",
                    retry_after=IBAN_PROVISIONING_RETRY,
                )
        reference = orders.payment_reference(order.transaction_id)
        return ProviderTransfer(
            provider_reference=orders.issue_reference(profile, reference),
            context=TransactionContext(
                deposit_instructions=[orders.onramp_instruction(iban, order, reference)]
            ),
        )

    async def _redeem(self, ctx: ProviderContext, order: TransactionOrder) -> ProviderTransfer:
        body = orders.redeem_body(order, order.authorization, _environment(ctx), self._clock())
        async with self._client(ctx) as client:
            placed = await client.post(
                "/orders", body, expect=(409,), fields=orders.FIELD_POINTERS.get
            )
            if placed.status == 409:
                # Placed by an earlier attempt of this activity: the same order.
                await client.get(f"/orders/{body['id']}")
        # The tokens are burned from the customer's wallet: nothing to pay in.
        return ProviderTransfer(
            provider_reference=str(body["id"]), context=TransactionContext(deposit_instructions=[])
        )

    async def get_transfer(self, ctx: ProviderContext, ref: str) -> ProviderTransferStatus:
        async with self._client(ctx) as client:
            issue = orders.parse_issue_reference(ref)
            if issue is None:
                answer = await client.get(f"/orders/{ref}")
                return orders.order_status(answer.body or {})
            profile, reference = issue
            answer = await client.get("/orders", {"profile": profile})
        listed = (answer.body or {}).get("orders") if isinstance(answer.body, dict) else None
        found = orders.issue_for(listed or [], reference)
        return orders.awaiting(ref) if found is None else orders.order_status(found, ref)

    async def cancel_transfer(self, ctx: ProviderContext, ref: str) -> None:
        status = await self.get_transfer(ctx, ref)
        if status.provider_state == orders.AWAITING_FUNDS:
            return  # nothing placed: a payment that still comes is unmatched money
        if status.provider_state == "rejected":
            return
        raise NotSupported(f"Monerium holds the order ({status.provider_state})")

    # --- webhooks -----------------------------------------------------------------------

    async def register_webhook(self, ctx: ProviderContext, url: str) -> WebhookRegistration:
        if ctx.webhook_secret is None:
            raise ProviderRefused("no webhook secret was generated for this Monerium account")
        return await self._flow(
            ctx, webhooks.register_subscription, url, ctx.webhook_secret.get_secret_value()
        )

    def parse_webhook(
        self, ctx: ProviderContext, headers: Mapping[str, str], body: bytes
    ) -> list[ProviderEvent]:
        if ctx.webhook_secret is None:
            raise WebhookRejected("no Monerium webhook secret is stored for this account")
        message_id = webhooks.verify(headers, body, ctx.webhook_secret.get_secret_value())
        return webhooks.parse_events(message_id, body)
