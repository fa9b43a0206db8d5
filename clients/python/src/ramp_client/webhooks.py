"""Verifying a webhook delivery with nothing but the project's client secret.

The service signs each delivery twice (docs/webhooks.md): Standard Webhooks headers
(`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64 HMAC-SHA256 of
"{id}.{timestamp}.{body}">`) and its own (`X-Ramp-Timestamp`, `X-Ramp-Signature: hex
HMAC-SHA256 of "{timestamp}.{body}"`), both keyed with the secret's UTF-8 bytes. While a
rotated secret's grace period runs, each header carries two signatures; either verifies.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import time
from collections.abc import Mapping
from datetime import datetime

from ramp_client.models import WebhookEvent

# A delivery signed further from our clock than this is refused (a captured one replayed).
TOLERANCE_SECONDS = 5 * 60


class WebhookVerificationError(Exception):
    """The delivery is not from the service, was altered, or is stale."""


def verify_webhook(
    headers: Mapping[str, str],
    body: bytes | str,
    secret: str,
    *,
    tolerance_seconds: int = TOLERANCE_SECONDS,
    now: float | None = None,
) -> WebhookEvent:
    """The event of a delivery whose signature holds; WebhookVerificationError if not.

    Give it the raw body, before any parsing. Standard Webhooks headers are checked when
    present, the service's own X-Ramp-* headers otherwise.
    """
    raw = body.encode() if isinstance(body, str) else body
    lowered = {name.lower(): value for name, value in headers.items()}
    clock = time.time() if now is None else now
    key = secret.encode()
    if "webhook-signature" in lowered:
        message_id = lowered.get("webhook-id", "")
        timestamp = lowered.get("webhook-timestamp", "")
        if not timestamp.isdigit():
            raise WebhookVerificationError("webhook-timestamp is not Unix seconds")
        _check_age(int(timestamp), clock, tolerance_seconds)
        signed = f"{message_id}.{timestamp}.".encode() + raw
        expected = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
        given = [
            part.partition(",")[2]
            for part in lowered["webhook-signature"].split()
            if part.startswith("v1,")
        ]
    elif "x-ramp-signature" in lowered:
        stamp = lowered.get("x-ramp-timestamp", "")
        try:
            sent = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
        except ValueError:
            raise WebhookVerificationError("X-Ramp-Timestamp is not an ISO 8601 time") from None
        if sent.tzinfo is None:
            raise WebhookVerificationError("X-Ramp-Timestamp has no time zone")
        _check_age(int(sent.timestamp()), clock, tolerance_seconds)
        expected = hmac.new(key, stamp.encode() + b"." + raw, hashlib.sha256).hexdigest()
        given = lowered["x-ramp-signature"].split(",")
    else:
        raise WebhookVerificationError("no signature header")
    if not any(hmac.compare_digest(expected, candidate.strip()) for candidate in given):
        raise WebhookVerificationError("no signature matches the secret")
    return WebhookEvent.model_validate_json(raw)


def _check_age(sent: int, clock: float, tolerance_seconds: int) -> None:
    if abs(clock - sent) > tolerance_seconds:
        raise WebhookVerificationError("the delivery's timestamp is too far from now")
