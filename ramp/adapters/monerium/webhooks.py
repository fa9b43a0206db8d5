"""Monerium webhooks: our subscription, Standard Webhooks verification, events in our terms.

Subscribing (`POST /webhooks` with `url`, `secret`, `types`): the secret is ours, a
`whsec_` prefix and 32 random bytes in base64 (Monerium takes 24 to 64), generated
and stored encrypted before the subscription is created, because Monerium calls the
URL at once with a signed `subscription.created` notification and creates nothing
unless it is answered with a 2xx. A subscription already there for the URL (a second
`set`, a retry) is found with `GET /webhooks` and made active with the types we read
(`PATCH /webhooks/{id}`); its secret is the one we stored the first time.

Verification (Standard Webhooks, standardwebhooks.com): headers `webhook-id`,
`webhook-timestamp` (seconds) and `webhook-signature` (`v1,<base64 HMAC-SHA256>` of
`<id>.<timestamp>.<body>` under the secret), five minutes of tolerance either way; the
`standardwebhooks` package does it. The message id is the same on every redelivery,
so it is the event id we deduplicate on.
"""

from __future__ import annotations

import base64
import binascii
import secrets
from collections.abc import Mapping
from decimal import Decimal
from typing import Any, Final

from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from ramp.adapters.contract import (
    DepositMatch,
    ProviderEvent,
    ProviderRefused,
    ProviderTransferEvent,
    WebhookRegistration,
    WebhookRejected,
)
from ramp.adapters.http_common import compliance_events, event_time, lowered, webhook_json

from .amounts import parse_amount
from .client import MoneriumClient
from .orders import issue_reference, order_status, quoted_reference
from .profiles import handoffs

SECRET_PREFIX: Final = "whsec_"  # noqa: S105 (the format's prefix)
SECRET_BYTES: Final = 32
# The notifications our mapping reads.
EVENT_TYPES: Final = ("iban.updated", "order.created", "order.updated", "profile.updated")
# The provider reference of an issue order that quotes none of ours: no intent has it,
# so the relay matches it by customer, amount and payer, or reports it as unmatched
# money (docs/providers.md).
UNMATCHED_PREFIX: Final = "issue-unmatched:"


def new_secret() -> str:
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(SECRET_BYTES)).decode()


async def register_subscription(
    client: MoneriumClient, url: str, secret: str
) -> WebhookRegistration:
    listed = await client.get("/webhooks")
    body = listed.body if isinstance(listed.body, dict) else {}
    subscriptions = body.get("subscriptions")
    found = next(
        (
            s
            for s in subscriptions or []
            if isinstance(s, dict) and s.get("url") == url and s.get("id")
        ),
        None,
    )
    if found is None:
        created = await client.post(
            "/webhooks", {"url": url, "secret": secret, "types": list(EVENT_TYPES)}
        )
        found = created.body if isinstance(created.body, dict) else None
    elif found.get("state") != "active" or set(found.get("types") or ()) != set(EVENT_TYPES):
        await client.patch(
            f"/webhooks/{found['id']}", {"state": "active", "types": list(EVENT_TYPES)}
        )
    if not isinstance(found, dict) or not found.get("id"):
        raise ProviderRefused("Monerium returned a webhook subscription without an id")
    return WebhookRegistration(endpoint_ref=str(found["id"]))


def verify(headers: Mapping[str, str], body: bytes, secret: str) -> str:
    """The message id, once the signature verifies; `WebhookRejected` otherwise."""
    by_name = lowered(headers)
    try:
        Webhook(secret).verify(body, by_name, json_parse=False)
    except (WebhookVerificationError, ValueError, binascii.Error, UnicodeDecodeError) as error:
        raise WebhookRejected(f"the Monerium signature does not verify ({error})") from None
    return by_name["webhook-id"]


def order_reference(order: Mapping[str, Any]) -> str:
    """The provider reference an order's events answer to: the redeem order's id; for an
    issue order, our issue reference when its memo quotes one of ours."""
    if order.get("kind") != "issue":
        return str(order["id"])
    quoted = quoted_reference(order)
    if quoted is None:
        return UNMATCHED_PREFIX + str(order["id"])
    return issue_reference(str(order.get("profile")), quoted)


def _match(
    order: Mapping[str, Any], amount: Decimal | None, currency: str | None
) -> DepositMatch | None:
    """An issue order (the payment): its profile, amount, payer's IBAN and order id, for
    when no transfer of ours has its reference."""
    if amount is None or not currency or not order.get("profile"):
        return None
    counterpart = order.get("counterpart") if isinstance(order.get("counterpart"), dict) else {}
    identifier = (counterpart or {}).get("identifier") or {}
    iban = str(identifier.get("iban") or "").replace(" ", "").upper() or None
    return DepositMatch(
        provider_customer_id=str(order["profile"]), amount=amount, currency=currency,
        payer_iban=iban, payment_reference=str(order["id"]),
    )  # fmt: skip


def parse_events(message_id: str, body: bytes) -> list[ProviderEvent]:
    """The events of a verified body; notifications we do not map give none (the
    subscription's test call among them: answered 2xx, nothing stored)."""
    event = webhook_json("Monerium", body)
    if not isinstance(event, dict):
        raise WebhookRejected("the Monerium webhook body is not an object")
    kind, data = event.get("type"), event.get("data")
    if not isinstance(data, dict):
        return []
    if kind in ("order.created", "order.updated") and data.get("id"):
        reference = order_reference(data)
        status = order_status(data, reference)
        # An issue order is the payment received: its amount is compared with the order's.
        amount = parse_amount(data.get("amount")) if data.get("kind") == "issue" else None
        currency = str(data.get("currency") or "").upper() or None
        return [
            ProviderTransferEvent(
                provider_event_id=message_id,
                provider_reference=reference,
                provider_state=status.provider_state,
                events=status.events,
                reason=status.reason,
                occurred_at=event_time(event.get("timestamp")),
                received_amount=amount,
                received_currency=currency if amount is not None else None,
                # Every payment: one quoting a reference no transfer of ours has (a
                # typo, an ended intent's) is matched the same way, else unmatched.
                match=_match(data, amount, currency) if data.get("kind") == "issue" else None,
                incoming=data.get("kind") == "issue",
            )
        ]
    if kind == "profile.updated" and data.get("id"):
        return compliance_events(
            message_id, str(data["id"]), handoffs(data), event_time(event.get("timestamp"))
        )
    # iban.updated: the IBAN is provisioned; the on-ramp's next placement attempt finds
    # it (ramp/adapters/monerium/connector.py). subscription.created: the test call.
    return []
