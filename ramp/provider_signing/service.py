"""Wallet signatures for an intent: what the customer signs, and what we do with it.

For a provider with the `SigningConnector` capability (Monerium), an intent may need
the customer's wallet signature before its order can be placed:

1. linking the wallet to the customer at the provider (`LINK_ADDRESS`): the on-ramp's
   destination or the off-ramp's source address; the signature is forwarded at once;
2. an off-ramp's order (`REDEEM_ORDER`): the message names amount, IBAN and a deadline;
   the signature is kept (encrypted, `provider_authorization`) for the placement, which
   reads it (activities/providers.py).

`signing_request` says what is to be signed next (the link first); `submit_signature`
takes the signature of exactly that message (the request is made again here and the
message compared: a client cannot have another message signed in its place). Then the
client asks for the transaction again (`POST /intent/{id}/transaction`): a declined
order is placed again when asked (workflows/declined_orders.py).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.adapters.capabilities import SigningConnector
from ramp.adapters.contract import (
    ProviderContext,
    ProviderCustomerRef,
    ProviderError,
    ProviderRefused,
    ProviderUnavailable,
    SignedMessage,
    SigningRequest,
    TransactionOrder,
)
from ramp.adapters.registry import Connectors
from ramp.catalog import MovementType
from ramp.db.tables import IntentRow, ProviderAuthorization, ProviderCustomer, TransactionRow
from ramp.db.types import utcnow
from ramp.db.upsert import insert_missing
from ramp.errors import Conflict, IntentError, InvalidInput, NotFound, ProviderFailed
from ramp.external_accounts.lookup import account_details, accounts_by_id
from ramp.intents.lifecycle import derived_id
from ramp.provider_accounts.service import provider_context
from ramp.security.encryption import SecretBox

NOTHING_TO_SIGN = IntentError.NOTHING_TO_SIGN
SIGNATURE_REFUSED = IntentError.SIGNATURE_REFUSED
LINK_ADDRESS = "LINK_ADDRESS"
REDEEM_ORDER = "REDEEM_ORDER"


@dataclass(frozen=True)
class _Signing:
    connector: SigningConnector
    ctx: ProviderContext
    customer: ProviderCustomerRef
    order: TransactionOrder
    wallet: str
    provider: str


async def _signing(
    session: AsyncSession,
    customer_id: str,
    intent_id: str,
    secret_box: SecretBox,
    connectors: Connectors | None,
) -> _Signing:
    intent = await session.get(IntentRow, intent_id)
    if intent is None or intent.customer_id != customer_id:
        raise NotFound("intent")
    _, connector, ctx = await provider_context(
        session,
        provider_account_id=intent.provider_account_id,
        secret_box=secret_box,
        connectors=connectors,
    )
    if not isinstance(connector, SigningConnector):
        raise Conflict(NOTHING_TO_SIGN, f"{intent.provider_name} asks for no wallet signature")
    known = (
        await session.exec(
            select(ProviderCustomer).where(
                ProviderCustomer.provider_account_id == intent.provider_account_id,
                ProviderCustomer.customer_id == customer_id,
            )
        )
    ).first()
    if known is None:
        raise Conflict(
            NOTHING_TO_SIGN,
            f"the customer is not set up at {intent.provider_name} yet: try again shortly",
        )
    accounts = await accounts_by_id(session, [intent.src_account_id, intent.dest_account_id])
    movement = MovementType(intent.movement_type)
    order = TransactionOrder(
        transaction_id=derived_id(intent.id, "transaction"),
        movement_type=movement,
        amount=intent.amount,
        source=account_details(accounts[intent.src_account_id]),
        destination=account_details(accounts[intent.dest_account_id]),
    )
    side = order.destination if movement is MovementType.ONRAMP else order.source
    await session.commit()  # no connection held across the provider's calls
    return _Signing(
        connector=connector,
        ctx=ctx,
        customer=ProviderCustomerRef(
            provider_customer_id=known.provider_customer_id, handles=known.handles
        ),
        order=order,
        wallet=str(side.metadata.get("address") or ""),
        provider=intent.provider_name,
    )


async def _placed(session: AsyncSession, intent_id: str) -> bool:
    query = select(TransactionRow.id).where(TransactionRow.intent_id == intent_id)
    found = await session.exec(query)
    return found.first() is not None


async def _next_request(signing: _Signing) -> SigningRequest:
    currency = (
        signing.order.destination.currency_code
        if signing.order.movement_type is MovementType.ONRAMP
        else signing.order.source.currency_code
    )
    link = signing.connector.link_request(signing.ctx, signing.wallet, currency)
    linked = await signing.connector.address_linked(
        signing.ctx, signing.customer, link.address, link.chain or ""
    )
    if not linked:
        return link
    connector, ctx = signing.connector, signing.ctx
    prepared = await connector.prepare_transfer(ctx, signing.customer, signing.order)
    if prepared is None:
        raise Conflict(NOTHING_TO_SIGN, "nothing is left to sign for this intent")
    return prepared


def _provider_error(error: ProviderError, provider: str) -> Exception:
    """The provider's answer as the API's 502 (its reason, and our field pointers)."""
    if isinstance(error, ProviderUnavailable):
        return ProviderFailed(IntentError.PROVIDER_ERROR, f"{provider} did not answer: {error}")
    if isinstance(error, ProviderRefused):
        return ProviderFailed(
            IntentError.PROVIDER_ERROR, f"{provider}: {error.reason}", {"fields": error.fields}
        )
    return ProviderFailed(IntentError.PROVIDER_ERROR, f"{provider}: {error}")


async def signing_request(
    session: AsyncSession,
    *,
    customer_id: str,
    intent_id: str,
    secret_box: SecretBox,
    connectors: Connectors | None = None,
) -> SigningRequest:
    """What the customer signs next for the intent (409 when nothing is left)."""
    if await _placed(session, intent_id):
        raise Conflict(NOTHING_TO_SIGN, "the intent's order is placed: nothing is left to sign")
    signing = await _signing(session, customer_id, intent_id, secret_box, connectors)
    try:
        return await _next_request(signing)
    except ProviderError as error:
        raise _provider_error(error, signing.provider) from None


async def submit_signature(
    session: AsyncSession,
    *,
    customer_id: str,
    intent_id: str,
    purpose: str,
    message: str,
    signature: str,
    secret_box: SecretBox,
    connectors: Connectors | None = None,
) -> str:
    """Takes the signature of the message `signing_request` gave; the outcome:
    `LINKED`, `PENDING` (a Safe's approval verified on chain) or `STORED` (a redeem's,
    kept for its placement)."""
    if await _placed(session, intent_id):
        raise Conflict(NOTHING_TO_SIGN, "the intent's order is placed: nothing is left to sign")
    signing = await _signing(session, customer_id, intent_id, secret_box, connectors)
    try:
        expected = await _next_request(signing)
    except ProviderError as error:
        raise _provider_error(error, signing.provider) from None
    if purpose != expected.purpose:
        raise Conflict(NOTHING_TO_SIGN, f"the next signature is {expected.purpose}, not {purpose}")
    if purpose == LINK_ADDRESS:
        if message != expected.message:
            raise InvalidInput(
                SIGNATURE_REFUSED,
                "the message is not the one to sign",
                {"fields": [{"pointer": "/message", "reason": "differs"}]},
            )
        try:
            handoff = await signing.connector.link_address(
                signing.ctx, signing.customer, expected, signature
            )
        except ProviderError as error:
            raise _provider_error(error, signing.provider) from None
        return "LINKED" if handoff.outcome and handoff.outcome.value == "VERIFIED" else "PENDING"
    # A redeem's message carries its deadline: the one the customer was shown (made a
    # little earlier) is taken if it is this order's and still valid; the connector
    # checks both again when it places the order.
    signed = SignedMessage(message=message, signature=signature)
    probe = signing.order.model_copy(update={"authorization": signed})
    try:
        signing.connector.check_authorization(signing.ctx, probe)
    except ProviderRefused as refused:
        raise InvalidInput(SIGNATURE_REFUSED, refused.reason,
                           {"fields": [{"pointer": k, "reason": v}
                                       for k, v in refused.fields.items()]}) from None  # fmt: skip
    sealed = secret_box.encrypt(
        json.dumps({"intentId": intent_id, "message": message, "signature": signature})
    )
    row = ProviderAuthorization(intent_id=intent_id, signed_encrypted=sealed)
    existing = await session.get(ProviderAuthorization, intent_id)
    if existing is not None:
        existing.signed_encrypted, existing.created_at = sealed, utcnow()
        session.add(existing)
    else:
        await insert_missing(session, [row], ["intent_id"])
    await session.commit()
    return "STORED"


async def stored_authorization(
    session: AsyncSession, intent_id: str, secret_box: SecretBox
) -> SignedMessage | None:
    """The customer's signature of the intent's order, for its placement."""
    row = await session.get(ProviderAuthorization, intent_id)
    if row is None:
        return None
    opened = json.loads(secret_box.decrypt(row.signed_encrypted))
    if opened.get("intentId") != intent_id:
        return None  # a ciphertext copied from another intent's row
    return SignedMessage(message=opened["message"], signature=opened["signature"])
