"""Bridge's deposit instructions in our words, field by field: nothing the payer needs
is lost (the memo a chain asks for included), and an answer missing one is refused."""

from __future__ import annotations

from decimal import Decimal

import pytest

from ramp.adapters.bridge import transfers
from ramp.adapters.contract import ProviderRefused, TransactionOrder
from ramp.catalog import MovementType
from ramp.intents.models import CryptoDepositInstructions
from tests.simulators.bridge_data import us_account, wallet


def offramp() -> TransactionOrder:
    return TransactionOrder(
        transaction_id="txn-memo",
        movement_type=MovementType.OFFRAMP,
        amount=Decimal("25"),
        source=wallet("USDC_ETHEREUM"),
        destination=us_account(),
    )


def answer(**instructions: str) -> dict[str, object]:
    return {
        "id": "tr_memo",
        "state": "awaiting_funds",
        "source_deposit_instructions": {
            "payment_rail": "ethereum", "currency": "usdc", "amount": "25.0",
            "to_address": "0x52908400098527886E0F7030069857D2E4169EE7", **instructions,
        },
    }  # fmt: skip


def test_a_blockchain_memo_is_kept_for_the_payer() -> None:
    transfer = transfers.provider_transfer(answer(blockchain_memo="7712309"), offramp())
    [instruction] = transfer.context.deposit_instructions
    crypto = instruction.instructions
    assert isinstance(crypto, CryptoDepositInstructions)
    assert crypto.memo == "7712309"
    assert instruction.model_dump(mode="json")["instructions"]["memo"] == "7712309"


def test_no_memo_is_a_null_memo_on_the_wire() -> None:
    transfer = transfers.provider_transfer(answer(), offramp())
    shown = transfer.context.deposit_instructions[0].model_dump(mode="json")
    assert shown["instructions"]["memo"] is None
    assert shown["instructions"]["address"] == "0x52908400098527886E0F7030069857D2E4169EE7"


def test_an_answer_without_the_address_is_refused() -> None:
    broken = answer()
    del broken["source_deposit_instructions"]["to_address"]  # type: ignore[attr-defined]
    with pytest.raises(ProviderRefused):
        transfers.provider_transfer(broken, offramp())
