"""Crypto deposit instructions a wallet can pay as they are.

Beside the address and amount: a payment URI (EIP-681 on EVM chains, BIP-21 on
Bitcoin, Solana Pay on Solana) and, for an ERC-20 token, the ABI-encoded call of
`transfer(address,uint256)` (`encodedData`) to send to the token contract with a value
of zero. Derived from the instructions alone (the catalog's token contracts per chain,
ramp/catalog/currencies.py), so every provider's and every stored transaction's
instructions get them alike.
"""

from __future__ import annotations

from urllib.parse import quote, urlencode

from ramp.intents.models import CryptoDepositInstructions, DepositInstruction, TransactionContext

# keccak256("transfer(address,uint256)")[:4]
ERC20_TRANSFER_SELECTOR = "a9059cbb"


def erc20_transfer_calldata(recipient: str, amount_in_smallest_unit: int) -> str:
    """`transfer(recipient, amount)` ABI-encoded: the selector, then two 32-byte words."""
    address = recipient.lower().removeprefix("0x")
    if len(address) != 40 or any(c not in "0123456789abcdef" for c in address):
        raise ValueError("not an EVM address")
    if amount_in_smallest_unit < 0 or amount_in_smallest_unit >= 2**256:
        raise ValueError("amount out of uint256 range")
    return f"0x{ERC20_TRANSFER_SELECTOR}{address:0>64}{amount_in_smallest_unit:064x}"


def payment_uri(instructions: CryptoDepositInstructions) -> str | None:
    """The URI a wallet opens to pay these instructions, or None for a chain without a
    payment URI standard we support."""
    units = int(instructions.amount_in_smallest_unit)
    if instructions.chain_id is not None:  # EVM (EIP-681)
        if instructions.token_contract:
            query = urlencode({"address": instructions.address, "uint256": units})
            return (
                f"ethereum:{instructions.token_contract}@{instructions.chain_id}/transfer?{query}"
            )
        return f"ethereum:{instructions.address}@{instructions.chain_id}?value={units}"
    params: dict[str, str] = {"amount": str(instructions.amount)}
    if instructions.chain == "BITCOIN":  # BIP-21: the amount in BTC
        return f"bitcoin:{instructions.address}?{urlencode(params)}"
    if instructions.chain == "SOLANA":  # Solana Pay transfer request
        if instructions.token_contract:
            params["spl-token"] = instructions.token_contract
        if instructions.memo:
            params["memo"] = instructions.memo
        return f"solana:{instructions.address}?{urlencode(params, quote_via=quote)}"
    return None


def wallet_ready(instructions: CryptoDepositInstructions) -> CryptoDepositInstructions:
    """The instructions with `paymentUri` and `encodedData` filled where derivable (what
    a provider set itself is kept)."""
    updates: dict[str, str | None] = {}
    if instructions.payment_uri is None:
        updates["payment_uri"] = payment_uri(instructions)
    if instructions.encoded_data is None and instructions.chain_id and instructions.token_contract:
        updates["encoded_data"] = erc20_transfer_calldata(
            instructions.address, int(instructions.amount_in_smallest_unit)
        )
    return instructions.model_copy(update=updates) if updates else instructions


def wallet_ready_context(context: TransactionContext) -> TransactionContext:
    return TransactionContext(
        deposit_instructions=[
            DepositInstruction(
                type=item.type,
                encoding=item.encoding,
                instructions=wallet_ready(item.instructions),
            )
            if isinstance(item.instructions, CryptoDepositInstructions)
            else item
            for item in context.deposit_instructions
        ]
    )
