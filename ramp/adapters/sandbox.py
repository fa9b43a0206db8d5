"""The mock providers of the sandbox: realistic deposit instructions, no money.

Everything derives from our transaction id, so a retried order returns the same
reference and addresses, as a real provider's idempotency key would.
"""

from __future__ import annotations

import base64
import hashlib
import uuid
from datetime import UTC, datetime

import base58
import bech32
from eth_utils.address import to_checksum_address

from ramp.adapters.base import ProviderTransaction, TransactionCancellation, TransactionOrder
from ramp.adapters.sandbox_rates import sandbox_quote
from ramp.catalog import Currency, MovementType, Provider, Rail, currency_by_code
from ramp.errors import ProviderFailed, ProviderRefusal
from ramp.intents.models import (
    BankDepositInstructions,
    CryptoDepositInstructions,
    DepositInstruction,
    TransactionContext,
)
from ramp.money import Money, format_amount
from ramp.quotes.models import ProviderQuote, RailQuoteRequest

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
    return str(to_checksum_address(seed[:20]))


# Test value: an amount with these decimals makes the mock provider refuse the order.
REFUSED_AMOUNT_SUFFIX = ".91"


class SandboxProviderAdapter:
    def __init__(self, provider: Provider) -> None:
        self.provider = provider

    async def create_transaction(self, order: TransactionOrder) -> ProviderTransaction:
        if format_amount(order.amount).endswith(REFUSED_AMOUNT_SUFFIX):
            raise ProviderFailed(
                ProviderRefusal.PROVIDER_REFUSED,
                f"{self.provider.name} refused the order "
                f"(sandbox test amount ending in {REFUSED_AMOUNT_SUFFIX})",
            )
        source = currency_by_code(order.source.currency_code)
        assert source is not None, order.source.currency_code
        if order.movement_type is MovementType.ONRAMP:
            instruction = self._bank_instruction(order, source)
        else:
            instruction = self._crypto_instruction(order, source)
        short_code = self.provider.code.removeprefix("sandbox_")
        return ProviderTransaction(
            provider_reference=f"{short_code}_{_digest(order).hex()[:20]}",
            context=TransactionContext(deposit_instructions=[instruction]),
        )

    async def quote(self, request: RailQuoteRequest) -> ProviderQuote:
        """An indicative price from the sandbox's rate table (ramp/adapters/sandbox_rates.py)."""
        return await sandbox_quote(self.provider.code, request, datetime.now(UTC))

    async def cancel_transaction(self, cancellation: TransactionCancellation) -> None:
        # The mock provider holds no funds: voiding an order always succeeds.
        return None

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
