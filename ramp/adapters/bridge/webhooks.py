"""Bridge webhooks: signature verification first, then events in our terms.

Bridge's scheme (apidocs.bridge.xyz, webhook event signature verification):

- header `X-Webhook-Signature: t=<timestamp in milliseconds>,v0=<base64 signature>`;
- the signed content is the timestamp, a dot, and the raw request body;
- Bridge hashes that content with SHA-256 and signs the digest with RSA (PKCS#1 v1.5,
  SHA-256): two passes of hashing, so we verify the signature over the digest, not
  over the content;
- the verification key is the RSA public key Bridge assigns to the webhook endpoint;
- Bridge advises ignoring events older than about ten minutes (it signs every retry
  afresh, with a new timestamp), which is our staleness window, in both directions.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Final

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from cryptography.hazmat.primitives.serialization import load_pem_public_key

from ramp.adapters.contract import ProviderEvent, ProviderTransferEvent, WebhookRejected
from ramp.adapters.http_common import compliance_events, event_time, lowered, webhook_json

from .kyc import handoffs
from .transfers import transfer_status

SIGNATURE_HEADER: Final = "X-Webhook-Signature"
TOLERANCE: Final = timedelta(minutes=10)


def _parse_header(value: str) -> tuple[str, bytes]:
    parts: dict[str, str] = {}
    for item in value.split(","):
        name, sep, content = item.strip().partition("=")
        if sep:
            parts[name] = content
    timestamp, signature = parts.get("t"), parts.get("v0")
    if not timestamp or not timestamp.isdigit() or not signature:
        raise WebhookRejected("malformed Bridge signature header")
    try:
        # Strict decoding, as Bridge asks: characters outside the alphabet are an error.
        return timestamp, base64.b64decode(signature, validate=True)
    except (binascii.Error, ValueError):
        raise WebhookRejected("the Bridge signature is not valid base64") from None


def _public_key(pem: str) -> rsa.RSAPublicKey:
    try:
        key = load_pem_public_key(pem.encode())
    except ValueError:
        raise WebhookRejected("the webhook verification key is not a PEM public key") from None
    if not isinstance(key, rsa.RSAPublicKey):
        raise WebhookRejected("the webhook verification key is not an RSA key")
    return key


def verify_signature(
    headers: Mapping[str, str], body: bytes, public_key_pem: str, now: datetime | None = None
) -> None:
    """Raises `WebhookRejected` unless Bridge signed exactly this body, recently."""
    header = lowered(headers).get(SIGNATURE_HEADER.lower())
    if header is None:
        raise WebhookRejected("no Bridge signature header")
    timestamp, signature = _parse_header(header)
    try:
        signed_at = datetime.fromtimestamp(int(timestamp) / 1000, UTC)
    except (OverflowError, OSError, ValueError):
        raise WebhookRejected("the Bridge signature timestamp is out of range") from None
    if abs((now or datetime.now(UTC)) - signed_at) > TOLERANCE:
        raise WebhookRejected("stale Bridge webhook (outside the ten-minute window)")
    digest = hashlib.sha256(timestamp.encode() + b"." + body).digest()
    try:
        _public_key(public_key_pem).verify(signature, digest, padding.PKCS1v15(), hashes.SHA256())
    except InvalidSignature:
        raise WebhookRejected("the Bridge signature does not match") from None


def parse_events(body: bytes) -> list[ProviderEvent]:
    """The events of a verified body. Categories we do not use map to nothing."""
    event = webhook_json("Bridge", body)
    if not isinstance(event, dict) or not isinstance(event.get("event_object"), dict):
        raise WebhookRejected("the Bridge webhook has no event object")
    event_id = str(event.get("event_id") or "")
    if not event_id:
        raise WebhookRejected("the Bridge webhook has no event id")
    category, obj = event.get("event_category"), event["event_object"]
    if category == "transfer" and obj.get("id"):
        status = transfer_status(obj)
        return [
            ProviderTransferEvent(
                provider_event_id=event_id,
                provider_reference=status.provider_reference,
                provider_state=status.provider_state,
                events=status.events,
                reason=status.reason,
                occurred_at=event_time(event.get("event_created_at")),
            )
        ]
    if category == "kyc_link" and obj.get("customer_id"):
        # One event per requirement the link covers.
        return compliance_events(
            event_id, str(obj["customer_id"]), handoffs(obj),
            event_time(event.get("event_created_at")),
        )  # fmt: skip
    return []
