"""Webhook signatures, keyed with the project's client secret.

Two conventions, sent side by side, so a project verifies with nothing but its client
secret in whichever it already knows:

- Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature:
  v1,<base64 HMAC-SHA256 over "id.timestamp.body">`), with the secret's UTF-8 bytes as
  the key: what the `standardwebhooks` package's `Webhook(secret.encode()).sign` does
  (the tests verify with that package), done here with a keyed HMAC kept per secret;
- ours (`X-Ramp-Signature`: hex HMAC-SHA256 over `timestamp + "." + body` with
  `X-Ramp-Timestamp` in ISO 8601).

While a rotated secret is in its grace period both secrets sign: each header then
carries several signatures (space-separated in `webhook-signature`, as the standard
says; comma-separated in `X-Ramp-Signature`), and a receiver accepts any that matches.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from functools import lru_cache

from ramp.timestamps import format_timestamp

USER_AGENT = "ramp-webhooks/1"
# How old a signed timestamp a receiver should accept (what standardwebhooks enforces).
TOLERANCE = timedelta(minutes=5)


def signature_headers(
    *,
    message_id: str,
    event_type: str,
    client_id: str,
    secrets: Sequence[str],
    body: bytes,
    at: datetime,
) -> dict[str, str]:
    """Every header of one delivery attempt, signed with each of `secrets`."""
    if not secrets:
        raise ValueError("a webhook needs at least one secret to be signed with")
    seconds = str(int(at.timestamp()))
    timestamp = format_timestamp(at)
    standard_message = f"{message_id}.{seconds}.".encode() + body
    ours_message = timestamp.encode() + b"." + body
    standard = " ".join(
        "v1," + base64.b64encode(_signed(secret, standard_message)).decode() for secret in secrets
    )
    ours = ",".join(_signed(secret, ours_message).hex() for secret in secrets)
    return {
        "content-type": "application/json",
        "user-agent": USER_AGENT,
        "webhook-id": message_id,
        "webhook-timestamp": seconds,
        "webhook-signature": standard,
        "x-ramp-signature": ours,
        "x-ramp-timestamp": timestamp,
        "x-ramp-event-type": event_type,
        "x-ramp-client-id": client_id,
    }


@lru_cache(maxsize=1024)
def _keyed(secret: str) -> hmac.HMAC:
    """HMAC-SHA256 keyed with the secret, before any message: copied for each one."""
    return hmac.new(secret.encode(), digestmod=hashlib.sha256)


def _signed(secret: str, message: bytes) -> bytes:
    mac = _keyed(secret).copy()
    mac.update(message)
    return mac.digest()


def ramp_signature(secret: str, timestamp: str, body: bytes) -> str:
    """Hex HMAC-SHA256, keyed with the client secret, over `timestamp + "." + body`."""
    message = timestamp.encode() + b"." + body
    return hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()


class InvalidSignature(Exception):
    pass


def verify_ramp_signature(
    secret: str, headers: Mapping[str, str], body: bytes, *, now: datetime | None = None
) -> None:
    """Checks `X-Ramp-Signature` and the freshness of `X-Ramp-Timestamp`; raises
    `InvalidSignature` when either fails. What a receiver of our scheme does."""
    lowered = {key.lower(): value for key, value in headers.items()}
    timestamp = lowered.get("x-ramp-timestamp", "")
    given = lowered.get("x-ramp-signature", "")
    try:
        signed_at = datetime.fromisoformat(timestamp)
    except ValueError:
        raise InvalidSignature("missing or malformed X-Ramp-Timestamp") from None
    if signed_at.tzinfo is None:
        raise InvalidSignature("X-Ramp-Timestamp has no time zone")
    if abs((now or datetime.now(UTC)) - signed_at) > TOLERANCE:
        raise InvalidSignature("X-Ramp-Timestamp is too old or too new")
    expected = ramp_signature(secret, timestamp, body)
    if not any(hmac.compare_digest(expected, candidate) for candidate in given.split(",")):
        raise InvalidSignature("no signature matches")
