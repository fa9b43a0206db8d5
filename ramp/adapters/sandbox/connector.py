"""The mock providers of the sandbox: connectors like any other, with no credentials,
no network and no money; realistic deposit instructions.

Everything derives from our ids, so a retried order returns the same reference and
addresses, as a real provider's idempotency key would. They run in-process (`LOCAL`
calls: local activities) and count amounts in base units, as Bridge does.
"""

from __future__ import annotations

import base64
import hashlib
import uuid
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

import base58
import bech32

from ramp.adapters.contract import (
    AccountDetails,
    AmountUnit,
    CallMode,
    ComplianceHandoff,
    ComplianceMode,
    CustomerProfile,
    NotSupported,
    ProviderAccountRef,
    ProviderContext,
    ProviderCustomerRef,
    ProviderEvent,
    ProviderQuote,
    ProviderRefused,
    ProviderTransfer,
    ProviderTransferStatus,
    Quote,
    QuoteRequest,
    RailQuoteRequest,
    TransactionOrder,
    WebhookRegistration,
)
from ramp.adapters.sandbox.rates import sandbox_quote
from ramp.catalog import Currency, MovementType, Provider, Rail, currency_by_code
from ramp.intents.models import (
    BankDepositInstructions,
    CryptoDepositInstructions,
    DepositInstruction,
    TransactionContext,
)
from ramp.money import Money

# The provider's collection account per rail. Identifiers carry valid checksums so
# that client-side validation behaves as in production.
_COLLECTION_ACCOUNTS: dict[Rail, tuple[str, dict[str, str]]] = {
    Rail.ACH: (
        "JPMorgan Chase Bank",
        {"routingNumber": "021000021", "accountNumber": "900012345678"},
    ),
    Rail.WIRE: ("Bank of America", {"routingNumber": "026009593", "accountNumber": "900087654321"}),
    Rail.SEPA: ("ABN AMRO Bank", {"iban": "NL91ABNA0417164300", "bic": "ABNANL2A"}),
    Rail.SPEI: ("Banamex", {"clabe": "002010077777777771"}),
    Rail.FPS: ("Barclays Bank UK", {"sortCode": "200000", "accountNumber": "55779911"}),
}


def _digest(order: TransactionOrder) -> bytes:
    return hashlib.sha256(f"sandbox:{order.transaction_id}".encode()).digest()


def payment_reference(order: TransactionOrder) -> str:
    """Short enough for every rail (Faster Payments allows 18 characters)."""
    code = base64.b32encode(_digest(order)).decode()[:12]
    return f"RMP{code}"


def deposit_address(currency: Currency, seed: bytes) -> str:
    """An address of the right shape for the currency's chain."""
    if currency.blockchain == "BITCOIN":
        address = bech32.encode("bc", 0, list(seed[:20]))
        assert address is not None
        return address
    if currency.blockchain == "SOLANA":
        return base58.b58encode(seed[:32]).decode()
    # Imported here: eth_utils costs every process that imports the connectors 0.1 s.
    from eth_utils.address import to_checksum_address

    return str(to_checksum_address(seed[:20]))


# Test value: an amount with these decimals makes the mock provider refuse the order.
REFUSED_AMOUNT_SUFFIX = ".91"


class SandboxConnector:
    """One mock provider of the catalog (`Connector`). Compliance is ours: every
    requirement is a FORM our hosted onboarding collects and our verification decides,
    so `compliance` only says so; provider events come from the sandbox's endpoints
    (ramp/intents/sandbox.py), never from a webhook or a poll."""

    call_mode = CallMode.LOCAL
    amount_unit = AmountUnit.BASE
    # No credentials: a sandbox project's accounts are made with the project.
    credentials_schema: Mapping[str, Any] = {"type": "object", "additionalProperties": False}

    def __init__(self, provider: Provider) -> None:
        self.provider = provider
        self.code = provider.code

    def base_url(self, credentials: Mapping[str, Any]) -> str:
        return ""

    async def verify_credentials(self, ctx: ProviderContext) -> None:
        return None

    async def ensure_customer(
        self, ctx: ProviderContext, customer: CustomerProfile
    ) -> ProviderCustomerRef:
        # The mock provider knows our customers by our ids.
        return ProviderCustomerRef(provider_customer_id=customer.customer_id)

    async def compliance(
        self, ctx: ProviderContext, customer: ProviderCustomerRef, requirement: str
    ) -> ComplianceHandoff:
        return ComplianceHandoff(requirement=requirement, mode=ComplianceMode.FORM)

    async def register_account(
        self, ctx: ProviderContext, customer: ProviderCustomerRef, account: AccountDetails
    ) -> ProviderAccountRef:
        seed = hashlib.sha256(f"sandbox:{customer.provider_customer_id}:{account}".encode())
        return ProviderAccountRef(provider_account_ref=f"acct_{seed.hexdigest()[:20]}")

    async def quote(self, ctx: ProviderContext, request: QuoteRequest) -> Quote:
        """An indicative price from the sandbox's rate table (ramp/adapters/sandbox/rates.py);
        `NotSupported` without a rail (every sandbox price is per rail)."""
        if not isinstance(request, RailQuoteRequest):
            raise NotSupported("the sandbox prices a corridor's rail: ask with its rail")
        return await self.rail_quote(request)

    async def rail_quote(self, request: RailQuoteRequest) -> ProviderQuote:
        return await sandbox_quote(self.provider.code, request, datetime.now(UTC))

    async def create_transfer(
        self,
        ctx: ProviderContext,
        customer: ProviderCustomerRef,
        order: TransactionOrder,
        destination_account: ProviderAccountRef | None = None,
    ) -> ProviderTransfer:
        if order.amount_in(self.amount_unit).endswith(REFUSED_AMOUNT_SUFFIX):
            # Declined, not final: the intent stays, POST .../transaction answers 502.
            raise ProviderRefused(
                f"{self.provider.name} refused the order "
                f"(sandbox test amount ending in {REFUSED_AMOUNT_SUFFIX})",
                final=False,
            )
        source = currency_by_code(order.source.currency_code)
        assert source is not None, order.source.currency_code
        if order.movement_type is MovementType.ONRAMP:
            instruction = self._bank_instruction(order, source)
        else:
            instruction = self._crypto_instruction(order, source)
        short_code = self.provider.code.removeprefix("sandbox_")
        return ProviderTransfer(
            provider_reference=f"{short_code}_{_digest(order).hex()[:20]}",
            context=TransactionContext(deposit_instructions=[instruction]),
        )

    async def get_transfer(self, ctx: ProviderContext, ref: str) -> ProviderTransferStatus:
        # The sandbox's transfers move only when told (POST .../sandbox/provider-events).
        return ProviderTransferStatus(provider_reference=ref, provider_state="pending", events=())

    async def cancel_transfer(self, ctx: ProviderContext, ref: str) -> None:
        # The mock provider holds no funds: voiding an order always succeeds.
        return None

    async def register_webhook(self, ctx: ProviderContext, url: str) -> WebhookRegistration:
        raise NotSupported("the sandbox's providers send no webhooks")

    def parse_webhook(
        self, ctx: ProviderContext, headers: Mapping[str, str], body: bytes
    ) -> list[ProviderEvent]:
        raise NotSupported("the sandbox's providers send no webhooks")

    def _bank_instruction(self, order: TransactionOrder, currency: Currency) -> DepositInstruction:
        rail = order.source.rail
        assert rail is not None, "an on-ramp's source is a bank account"
        if rail is Rail.PIX:
            # PIX collections use a one-off random key (EVP) per payment.
            bank = "Banco do Brasil"
            identifier = {"pixKey": str(uuid.UUID(bytes=_digest(order)[:16], version=4))}
        else:
            bank, identifier = _COLLECTION_ACCOUNTS[rail]
        return DepositInstruction(
            type="BANK",
            instructions=BankDepositInstructions(
                rail=rail.value,
                amount=order.amount,
                currency_code=currency.code,
                beneficiary_name=f"{self.provider.name} client funds",
                bank_name=bank,
                account_identifier=dict(identifier),
                reference=payment_reference(order),
            ),
        )

    def _crypto_instruction(
        self, order: TransactionOrder, currency: Currency
    ) -> DepositInstruction:
        assert currency.blockchain is not None
        return DepositInstruction(
            type="CRYPTO",
            instructions=CryptoDepositInstructions(
                address=deposit_address(currency, _digest(order)),
                currency_code=currency.code,
                chain=currency.blockchain,
                chain_id=currency.chain_id,
                amount=order.amount,
                amount_in_smallest_unit=str(Money(order.amount, currency.code).in_smallest_units()),
                token_contract=currency.contract_address,
            ),
        )
