"""Wallet signatures Monerium takes: the address link and the redeem order.

Both are EIP-191 `personal_sign` signatures of a text message by the wallet:

- linking an address to a profile signs a fixed sentence (`LINK_MESSAGE`, Monerium's
  wording: it must be byte for byte what Monerium expects);
- a redeem order signs `Send <CURRENCY> <AMOUNT> to <IBAN> at <TIMESTAMP>`: the
  currency in capitals, the order's amount as written in the order, the payee's IBAN
  without spaces, and a UTC timestamp to the minute (RFC 3339, `Z`), which Monerium
  accepts from five minutes in the past on (any future time too). We stamp it a few
  minutes ahead so that the customer has time to sign, and refuse a signature past the
  stamp.

An externally owned account's signature (65 bytes) is checked here before it is sent:
the address it recovers must be the one named. A smart-contract wallet (a Safe) signs
otherwise (ERC-1271, on chain or off chain): `0x` (on-chain approval) and longer
signatures are left to Monerium, which verifies them against the contract.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Final

from ramp.adapters.contract import ProviderRefused

# Monerium's fixed address-link sentence (its API reference, POST /addresses).
LINK_MESSAGE: Final = "I hereby declare that I am the address owner."
# How far ahead a redeem message is stamped: the customer's time to sign.
SIGNING_WINDOW: Final = timedelta(minutes=10)
# Monerium takes a stamp up to this far in the past.
PAST_TOLERANCE: Final = timedelta(minutes=5)

_HEX_SIGNATURE = re.compile(r"^0x(?:[0-9a-fA-F]{2})*$")
_ADDRESS = re.compile(r"^0x[0-9a-fA-F]{40}$")
_EOA_SIGNATURE_HEX = 130  # r, s, v: 65 bytes


def minute_stamp(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:00Z")


def redeem_message(amount: str, iban: str, at: datetime, currency: str = "EUR") -> str:
    compact = re.sub(r"\s+", "", iban).upper()
    return f"Send {currency.upper()} {amount} to {compact} at {minute_stamp(at)}"


def redeem_deadline(now: datetime) -> datetime:
    """The stamp of a redeem message prepared at `now` (rounded up to the minute)."""
    ahead = now.astimezone(UTC) + SIGNING_WINDOW
    return ahead.replace(second=0, microsecond=0) + timedelta(minutes=1)


def check_address(address: str) -> str:
    if not _ADDRESS.match(address or ""):
        raise ProviderRefused(
            "Monerium links EVM addresses only (0x and 40 hex digits)",
            {"/destination/metadata/address": "not an EVM address"},
        )
    return address


def check_signature(message: str, signature: str, address: str) -> None:
    """Refuses a malformed signature, or an EOA signature by another wallet."""
    if not _HEX_SIGNATURE.match(signature or ""):
        raise ProviderRefused("the signature is not 0x-prefixed hex", {"/signature": "not hex"})
    if len(signature) - 2 != _EOA_SIGNATURE_HEX:
        return  # a Safe's: on-chain approval (0x) or ERC-1271 data, verified by Monerium
    # Imported here: eth_account costs every process that imports the service (the API,
    # the worker, each CLI command) about 0.15 s of CPU, for Monerium's signatures only.
    from eth_account import Account
    from eth_account.messages import encode_defunct

    try:
        signer = Account.recover_message(encode_defunct(text=message), signature=signature)
    except Exception:  # eth_account raises several types for a bad v, r or s
        raise ProviderRefused(
            "the signature does not verify", {"/signature": "does not verify"}
        ) from None
    if signer.lower() != address.lower():
        raise ProviderRefused(
            "the message was signed by another wallet than the one named",
            {"/signature": f"signed by {signer}, not {address}"},
        )
