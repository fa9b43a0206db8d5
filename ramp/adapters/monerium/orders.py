"""Money movements at Monerium: the IBAN that mints (on-ramp) and the redeem order
that burns (off-ramp), their references and their states in our terms.

On-ramp (EUR over SEPA -> EURe): nothing is ordered. The customer's profile has one
IBAN, routed to one linked address and chain: every SEPA payment to it becomes an
`issue` order that mints EURe there. Placing an on-ramp therefore means making sure the
IBAN exists and points at the intent's address (`GET /ibans`, else `POST /ibans`, whose
202 means "being provisioned, announced by an `iban.updated` webhook"; or
`PATCH /ibans/{iban}` to move it), and telling the payer our reference to quote. Our
provider reference for it is `issue:<profile>:<reference>`: the issue order carrying
the reference in its memo (or structured `referenceNumber`) is the transfer.

Off-ramp (EURe -> EUR over SEPA): a `redeem` order burns EURe from the customer's
linked address and pays the payee's IBAN. It needs the wallet's signature of a message
naming amount, IBAN and a timestamp (ramp/adapters/monerium/signatures.py): prepare
(`redeem_request`), the customer signs, place (`redeem_body`). We choose the order's id
(derived from our transaction id), so a retried placement finds the first order.
"""

from __future__ import annotations

import hashlib
import re
import uuid
from collections.abc import Mapping, Sequence
from datetime import datetime
from decimal import Decimal
from typing import Any, Final

from ramp.adapters.contract import (
    NotSupported,
    ProviderRefused,
    ProviderTransferStatus,
    SignedMessage,
    SigningRequest,
    TransactionOrder,
)
from ramp.catalog import MovementType
from ramp.intents.models import BankDepositInstructions, DepositInstruction
from ramp.intents.states import ProviderEventType as E

from .amounts import order_amount, parse_amount
from .signatures import check_address, check_signature, redeem_deadline, redeem_message

# Our currency code -> Monerium's currency and chain, per environment: the sandbox runs
# on test networks (Monerium's `Chain`: chiado is Gnosis's, amoy Polygon's, sepolia
# Ethereum's, and each rollup's Sepolia its own).
TOKENS: Final[Mapping[str, tuple[str, Mapping[str, str]]]] = {
    "EURE_GNOSIS": ("eur", {"production": "gnosis", "sandbox": "chiado"}),
    "EURE_ETHEREUM": ("eur", {"production": "ethereum", "sandbox": "sepolia"}),
    "EURE_POLYGON": ("eur", {"production": "polygon", "sandbox": "amoy"}),
    "EURE_ARBITRUM": ("eur", {"production": "arbitrum", "sandbox": "arbitrumsepolia"}),
    "EURE_LINEA": ("eur", {"production": "linea", "sandbox": "lineasepolia"}),
    "EURE_BASE": ("eur", {"production": "base", "sandbox": "basesepolia"}),
}

ISSUE_PREFIX: Final = "issue:"
REFERENCE_PREFIX: Final = "RAMP"
_REFERENCE = re.compile(REFERENCE_PREFIX + r"[0-9A-F]{12}")

# Order state -> the path of our events leading to it, by order kind.
ISSUE_EVENTS: Final[Mapping[str, tuple[E, ...]]] = {
    "placed": (E.DEPOSIT_RECEIVED,),
    "pending": (E.DEPOSIT_RECEIVED,),
    "processed": (E.DEPOSIT_RECEIVED, E.PAYOUT_SENT, E.SETTLED),
    "rejected": (E.DEPOSIT_RECEIVED, E.FAILED),
}
REDEEM_EVENTS: Final[Mapping[str, tuple[E, ...]]] = {
    "placed": (),
    "pending": (E.DEPOSIT_RECEIVED,),
    "processed": (E.DEPOSIT_RECEIVED, E.PAYOUT_SENT, E.SETTLED),
    "rejected": (E.FAILED,),
}
AWAITING_FUNDS: Final = "awaiting_funds"  # no issue order carries our reference yet


# --- references --------------------------------------------------------------------------


def payment_reference(transaction_id: str) -> str:
    """What the payer quotes: short enough for any banking app, at least Monerium's five
    characters of memo, and found again in a memo however the bank spaced or cased it."""
    digest = hashlib.sha256(f"ramp-reference:{transaction_id}".encode()).hexdigest()
    return REFERENCE_PREFIX + digest[:12].upper()


def order_id(transaction_id: str) -> str:
    """The redeem order's id, ours (a version-4 UUID, as Monerium's schema wants)."""
    digest = hashlib.sha256(f"ramp-order:{transaction_id}".encode()).digest()[:16]
    return str(uuid.UUID(bytes=digest, version=4))


def issue_reference(profile: str, reference: str) -> str:
    return f"{ISSUE_PREFIX}{profile}:{reference}"


def parse_issue_reference(ref: str) -> tuple[str, str] | None:
    if not ref.startswith(ISSUE_PREFIX):
        return None
    profile, _, reference = ref.removeprefix(ISSUE_PREFIX).partition(":")
    return (profile, reference) if profile and reference else None


def quoted_reference(order: Mapping[str, Any]) -> str | None:
    """Our reference as the payer quoted it in an issue order's memo or structured
    reference, whatever spaces, dashes or case their bank added."""
    for field in ("referenceNumber", "memo"):
        text = re.sub(r"[^A-Z0-9]", "", str(order.get(field) or "").upper())
        found = _REFERENCE.search(text)
        if found:
            return found.group(0)
    return None


# --- the token and chain ------------------------------------------------------------------


def token_chain(currency_code: str, environment: str) -> tuple[str, str]:
    try:
        currency, chains = TOKENS[currency_code]
    except KeyError:
        raise NotSupported(f"Monerium does not issue {currency_code}") from None
    return currency, chains.get(environment, chains["production"])


# --- on-ramp: the IBAN --------------------------------------------------------------------


def matching_iban(
    ibans: Sequence[Mapping[str, Any]], address: str, chain: str
) -> Mapping[str, Any] | None:
    for iban in ibans:
        if str(iban.get("address", "")).lower() == address.lower() and iban.get("chain") == chain:
            return iban
    return None


def onramp_instruction(
    iban: Mapping[str, Any], order: TransactionOrder, reference: str
) -> DepositInstruction:
    number = re.sub(r"\s+", "", str(iban.get("iban") or ""))
    if not number:
        raise ProviderRefused("Monerium returned an IBAN record without an IBAN")
    identifier = {"iban": number}
    if iban.get("bic"):
        identifier["bic"] = str(iban["bic"])
    return DepositInstruction(
        type="BANK",
        instructions=BankDepositInstructions(
            rail="SEPA",
            amount=order.amount,
            currency_code=order.source.currency_code,
            # Monerium names the account after its owner, the customer.
            beneficiary_name=str(iban.get("name") or ""),
            bank_name="Monerium",
            account_identifier=identifier,
            reference=reference,
        ),
    )


# --- off-ramp: the redeem order -----------------------------------------------------------


def _payee(order: TransactionOrder) -> tuple[str, dict[str, str]]:
    meta = order.destination.metadata
    identifier = meta.get("accountIdentifier") or {}
    iban = re.sub(r"\s+", "", str(identifier.get("iban") or "")).upper()
    if not iban:
        raise ProviderRefused(
            "Monerium pays out to an IBAN",
            {"/destination/metadata/accountIdentifier/iban": "required"},
        )
    name = str((meta.get("beneficiary") or {}).get("name") or "").strip()
    first, _, last = name.rpartition(" ")
    country = order.destination.country_code or iban[:2]
    if meta.get("beneficiary", {}).get("type") == "business":
        details = {"companyName": name, "country": country}
    else:
        details = {"firstName": first or last, "lastName": last, "country": country}
    return iban, details


def redeem_request(order: TransactionOrder, environment: str, now: datetime) -> SigningRequest:
    """What the customer signs for an off-ramp (valid until its stamp)."""
    if order.movement_type is not MovementType.OFFRAMP:
        raise NotSupported("only a redeem (off-ramp) order is signed at Monerium")
    _, chain = token_chain(order.source.currency_code, environment)
    address = check_address(str(order.source.metadata.get("address") or ""))
    iban, _ = _payee(order)
    deadline = redeem_deadline(now)
    return SigningRequest(
        purpose="REDEEM_ORDER",
        address=address,
        chain=chain,
        message=redeem_message(order_amount(order.amount), iban, deadline),
        expires_at=deadline,
    )


def _stamp(message: str) -> datetime | None:
    found = re.search(r" at (\d{4}-\d{2}-\d{2}T\d{2}:\d{2})(?::00)?Z$", message)
    if not found:
        return None
    return datetime.fromisoformat(found.group(1) + ":00+00:00")


def redeem_body(
    order: TransactionOrder, signed: SignedMessage | None, environment: str, now: datetime
) -> dict[str, Any]:
    if signed is None:
        raise ProviderRefused(
            "a Monerium redeem order needs the customer's signature of the order: "
            "prepare it and have the wallet sign it",
            final=False,
        )
    currency, chain = token_chain(order.source.currency_code, environment)
    address = check_address(str(order.source.metadata.get("address") or ""))
    amount = order_amount(order.amount)
    iban, details = _payee(order)
    # The signed message must be this order's: its amount and payee, and not expired.
    expected = f"Send {currency.upper()} {amount} to {iban} at "
    stamp = _stamp(signed.message)
    if not signed.message.startswith(expected) or stamp is None:
        raise ProviderRefused(
            "the signed message is not this order's (amount or IBAN differ)",
            {"/authorization/message": f"must start with '{expected}'"},
        )
    if stamp < now:
        raise ProviderRefused(
            "the signature of the redeem order has expired: sign it again", final=False
        )
    check_signature(signed.message, signed.signature, address)
    return {
        "id": order_id(order.transaction_id),
        "kind": "redeem",
        "address": address,
        "chain": chain,
        "currency": currency,
        "amount": amount,
        "counterpart": {"identifier": {"standard": "iban", "iban": iban}, "details": details},
        "message": signed.message,
        "signature": signed.signature,
        "memo": payment_reference(order.transaction_id),
    }


# Monerium's field (an `errors` key) -> our JSON pointer into the order, for refusals.
FIELD_POINTERS: Final[Mapping[str, str]] = {
    "amount": "/amount",
    "address": "/source/metadata/address",
    "counterpart.identifier.iban": "/destination/metadata/accountIdentifier/iban",
    "iban": "/destination/metadata/accountIdentifier/iban",
    "signature": "/authorization/signature",
    "message": "/authorization/message",
}


# --- states -----------------------------------------------------------------------------


def _rejection(order: Mapping[str, Any]) -> str | None:
    meta = order.get("meta") if isinstance(order.get("meta"), dict) else {}
    reason = (meta or {}).get("rejectedReason")
    return f"Monerium rejected the order: {reason}" if reason else "Monerium rejected the order"


def order_status(order: Mapping[str, Any], reference: str | None = None) -> ProviderTransferStatus:
    """The status of an order (`reference`: our issue reference it answers to)."""
    state = str(order.get("state"))
    kind = str(order.get("kind"))
    events = (ISSUE_EVENTS if kind == "issue" else REDEEM_EVENTS).get(state, ())
    return ProviderTransferStatus(
        provider_reference=reference or str(order.get("id")),
        provider_state=state,
        events=events,
        reason=_rejection(order) if state == "rejected" else None,
        cancellable=False,  # Monerium's API voids no order
    )


def awaiting(reference: str) -> ProviderTransferStatus:
    return ProviderTransferStatus(
        provider_reference=reference, provider_state=AWAITING_FUNDS, events=(), cancellable=True
    )


def issue_for(orders: Sequence[Mapping[str, Any]], reference: str) -> Mapping[str, Any] | None:
    """The latest issue order quoting `reference` (a payer who paid twice: the latest)."""
    found = [
        order
        for order in orders
        if isinstance(order, dict)
        and order.get("kind") == "issue"
        and quoted_reference(order) == reference
    ]
    found.sort(key=lambda o: str((o.get("meta") or {}).get("placedAt") or ""))
    return found[-1] if found else None


def received(order: Mapping[str, Any]) -> Decimal | None:
    return parse_amount(order.get("amount"))
