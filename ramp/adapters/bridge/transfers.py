"""Transfers at Bridge: the order we place, the deposit instructions, the state mapping.

An on-ramp is a transfer from a fiat rail (the payer pushes money to Bridge's account,
quoting the deposit message) to a stablecoin address; an off-ramp is a transfer from a
stablecoin (the payer sends to Bridge's deposit address) to a registered external
account. Bridge answers with `source_deposit_instructions`, mapped here to our BANK or
CRYPTO deposit instruction without dropping a field the payer needs.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from typing import Any, Final

from ramp.adapters.contract import (
    AmountUnit,
    NotSupported,
    ProviderAccountRef,
    ProviderCustomerRef,
    ProviderRefused,
    ProviderTransfer,
    ProviderTransferStatus,
    TransactionOrder,
)
from ramp.catalog import Currency, MovementType, Rail, currency_by_code
from ramp.intents.models import (
    BankDepositInstructions,
    CryptoDepositInstructions,
    DepositInstruction,
    TransactionContext,
)
from ramp.intents.states import ProviderEventType as E
from ramp.money import Money

# Our rail -> Bridge's payment_rail, for money coming in (the payer pushes) and out.
SOURCE_RAILS: Final[Mapping[Rail, str]] = {
    Rail.ACH: "ach_push", Rail.WIRE: "wire", Rail.SEPA: "sepa", Rail.SPEI: "spei",
}  # fmt: skip
DESTINATION_RAILS: Final[Mapping[Rail, str]] = {
    Rail.ACH: "ach", Rail.WIRE: "wire", Rail.SEPA: "sepa", Rail.SPEI: "spei",
}  # fmt: skip

# Bridge transfer state -> the path of our transaction events that leads to it.
STATE_EVENTS: Final[Mapping[str, tuple[E, ...]]] = {
    "awaiting_funds": (),
    "in_review": (),
    "funds_received": (E.DEPOSIT_RECEIVED,),
    "payment_submitted": (E.DEPOSIT_RECEIVED, E.PAYOUT_SENT),
    "payment_processed": (E.DEPOSIT_RECEIVED, E.PAYOUT_SENT, E.SETTLED),
    "undeliverable": (E.DEPOSIT_RECEIVED, E.FAILED),
    "returned": (E.DEPOSIT_RECEIVED, E.RETURNED),
    "refund_in_flight": (E.DEPOSIT_RECEIVED, E.RETURNED),
    "refunded": (E.DEPOSIT_RECEIVED, E.RETURNED),
    "refund_failed": (E.DEPOSIT_RECEIVED, E.FAILED),
    "missing_return_policy": (E.DEPOSIT_RECEIVED, E.FAILED),
    "canceled": (E.CANCELLED,),
    "error": (E.FAILED,),
}
STATE_REASONS: Final[Mapping[str, str]] = {
    "undeliverable": "Bridge could not deliver the payout (invalid or unsupported "
    "destination); the deposit is being refunded",
    "returned": "the payout was returned to Bridge; the deposit is being refunded",
    "refund_in_flight": "the deposit is being refunded to the payer",
    "refunded": "the deposit was refunded to the payer",
    "refund_failed": "the refund of the deposit failed: Bridge holds the funds",
    "missing_return_policy": "the crypto deposit cannot be returned until a return "
    "policy is configured at Bridge",
    "error": "Bridge reported an error on the transfer",
}
# Bridge's field key -> our JSON pointer into the order, for refusals.
FIELD_POINTERS: Final[Mapping[str, str]] = {
    "amount": "/amount",
    "source.from_address": "/source/metadata/address",
    "destination.to_address": "/destination/metadata/address",
}
AWAITING_FUNDS: Final = "awaiting_funds"
CANCELED: Final = "canceled"

# Bridge writes amounts as decimal strings of the currency's unit ("25.00").
AMOUNT_UNIT = AmountUnit.BASE


def _currency(code: str) -> Currency:
    currency = currency_by_code(code)
    if currency is None:
        raise NotSupported(f"unknown currency {code}")
    return currency


def _crypto_side(currency: Currency) -> dict[str, str]:
    assert currency.blockchain is not None
    return {"payment_rail": currency.blockchain.lower(), "currency": currency.ticker.lower()}


def transfer_body(
    customer: ProviderCustomerRef,
    order: TransactionOrder,
    destination_account: ProviderAccountRef | None,
) -> dict[str, Any]:
    source = _currency(order.source.currency_code)
    destination = _currency(order.destination.currency_code)
    if order.movement_type is MovementType.ONRAMP:
        rail = order.source.rail
        if rail is None or rail not in SOURCE_RAILS:
            raise NotSupported(f"Bridge does not collect over {rail}")
        source_side = {"payment_rail": SOURCE_RAILS[rail], "currency": source.code.lower()}
        destination_side = {
            **_crypto_side(destination),
            "to_address": str(order.destination.metadata["address"]),
        }
    else:
        rail = order.destination.rail
        if rail is None or rail not in DESTINATION_RAILS:
            raise NotSupported(f"Bridge does not pay out over {rail}")
        if destination_account is None:
            raise ValueError("an off-ramp pays out to a registered external account")
        source_side = {
            **_crypto_side(source),
            "from_address": str(order.source.metadata["address"]),
        }
        destination_side = {
            "payment_rail": DESTINATION_RAILS[rail],
            "currency": destination.code.lower(),
            "external_account_id": destination_account.provider_account_ref,
        }
    return {
        # Our transaction id, so Bridge's records lead back to our transaction.
        "client_reference_id": order.transaction_id,
        "amount": order.amount_in(AMOUNT_UNIT),
        "on_behalf_of": customer.provider_customer_id,
        "source": source_side,
        "destination": destination_side,
    }


def _required(instructions: Mapping[str, Any], *names: str) -> list[str]:
    values = [instructions.get(n) for n in names]
    missing = [n for n, v in zip(names, values, strict=True) if not v]
    if missing:
        # Without these the payer cannot pay, or Bridge cannot match the payment.
        raise ProviderRefused(f"Bridge's deposit instructions lack {', '.join(missing)}")
    return [str(v) for v in values]


def _amount(instructions: Mapping[str, Any], order: TransactionOrder) -> Decimal:
    try:
        return Decimal(str(instructions.get("amount") or order.amount))
    except InvalidOperation:
        raise ProviderRefused("Bridge's deposit instructions carry a malformed amount") from None


def deposit_instruction(
    instructions: Mapping[str, Any], order: TransactionOrder
) -> DepositInstruction:
    currency = _currency(order.source.currency_code)
    amount = _amount(instructions, order)
    if order.movement_type is MovementType.OFFRAMP:
        (address,) = _required(instructions, "to_address")
        memo = instructions.get("blockchain_memo")
        assert currency.blockchain is not None
        return DepositInstruction(
            type="CRYPTO",
            instructions=CryptoDepositInstructions(
                address=address,
                currency_code=currency.code,
                chain=currency.blockchain,
                chain_id=currency.chain_id,
                amount=amount,
                amount_in_smallest_unit=str(Money(amount, currency.code).in_smallest_units()),
                token_contract=currency.contract_address,
                memo=str(memo) if memo else None,
            ),
        )
    rail = order.source.rail
    assert rail is not None
    if rail is Rail.SEPA:
        iban, holder = _required(instructions, "iban", "account_holder_name")
        identifier = {"iban": iban}
    elif rail is Rail.SPEI:
        clabe, holder = _required(instructions, "clabe", "account_holder_name")
        identifier = {"clabe": clabe}
    else:
        routing, number, holder = _required(
            instructions, "bank_routing_number", "bank_account_number", "bank_beneficiary_name"
        )
        identifier = {"routingNumber": routing, "accountNumber": number}
    # Wires and SEPA transfers from some banks ask for the BIC and both addresses.
    for ours, theirs in (
        ("bic", "bic"),
        ("bankAddress", "bank_address"),
        ("beneficiaryAddress", "bank_beneficiary_address"),
    ):
        if instructions.get(theirs):
            identifier[ours] = str(instructions[theirs])
    (reference,) = _required(instructions, "deposit_message")
    return DepositInstruction(
        type="BANK",
        instructions=BankDepositInstructions(
            rail=rail.value,
            amount=amount,
            currency_code=currency.code,
            beneficiary_name=holder,
            bank_name=str(instructions.get("bank_name") or ""),
            account_identifier=identifier,
            reference=reference,
        ),
    )


def provider_transfer(transfer: Mapping[str, Any], order: TransactionOrder) -> ProviderTransfer:
    instructions = transfer.get("source_deposit_instructions")
    if not isinstance(instructions, dict):
        raise ProviderRefused("Bridge returned a transfer without deposit instructions")
    return ProviderTransfer(
        provider_reference=str(transfer["id"]),
        context=TransactionContext(deposit_instructions=[deposit_instruction(instructions, order)]),
    )


def transfer_status(transfer: Mapping[str, Any]) -> ProviderTransferStatus:
    state = str(transfer.get("state"))
    return ProviderTransferStatus(
        provider_reference=str(transfer["id"]),
        provider_state=state,
        events=STATE_EVENTS.get(state, ()),
        reason=STATE_REASONS.get(state),
        cancellable=state == AWAITING_FUNDS,
    )
