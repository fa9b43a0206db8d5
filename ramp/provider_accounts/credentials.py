"""Sealing a provider account's credentials: encrypted, bound to project + provider.

The ciphertext (the secret box's) holds the project id and provider code beside the
credentials; opening checks both, so a ciphertext copied onto another project's row (or
another provider's) is refused rather than used. Only a masked hint is ever shown.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ramp.security.encryption import SecretBox


class CredentialsMismatch(RuntimeError):
    """A sealed credential does not belong to the row it was read from."""


def seal(
    secret_box: SecretBox, *, project_id: str, provider_code: str, credentials: Mapping[str, Any]
) -> str:
    envelope = {"projectId": project_id, "provider": provider_code, "credentials": credentials}
    return secret_box.encrypt(json.dumps(envelope, separators=(",", ":"), sort_keys=True))


def unseal(
    secret_box: SecretBox, token: str, *, project_id: str, provider_code: str
) -> dict[str, Any]:
    envelope = json.loads(secret_box.decrypt(token))
    if envelope.get("projectId") != project_id or envelope.get("provider") != provider_code:
        raise CredentialsMismatch("the stored credentials belong to another provider account")
    credentials: dict[str, Any] = envelope["credentials"]
    return credentials


def seal_webhook_secret(
    secret_box: SecretBox, *, provider_account_id: str, provider_code: str, secret: str
) -> str:
    """The webhook secret we chose for an account (Monerium's), bound to that account: a
    ciphertext copied onto another row, or a credentials ciphertext, does not open."""
    envelope = {"providerAccountId": provider_account_id, "provider": provider_code,
                "webhookSecret": secret}  # fmt: skip
    return secret_box.encrypt(json.dumps(envelope, separators=(",", ":"), sort_keys=True))


def unseal_webhook_secret(
    secret_box: SecretBox, token: str, *, provider_account_id: str, provider_code: str
) -> str:
    envelope = json.loads(secret_box.decrypt(token))
    if (
        envelope.get("providerAccountId") != provider_account_id
        or envelope.get("provider") != provider_code
        or not isinstance(envelope.get("webhookSecret"), str)
    ):
        raise CredentialsMismatch("the stored webhook secret belongs to another provider account")
    secret: str = envelope["webhookSecret"]
    return secret


def masked_hint(credentials: Mapping[str, Any], schema: Mapping[str, Any]) -> str:
    """The secret field(s) of the schema (`writeOnly`), masked: a prefix, an ellipsis
    and the last four characters, enough to recognise a key and never to use one."""
    properties: Mapping[str, Any] = schema.get("properties", {})
    hints = []
    for name, spec in properties.items():
        value = credentials.get(name)
        if not isinstance(value, str) or not spec.get("writeOnly"):
            continue
        shown = value[:4] if len(value) >= 16 else ""
        hints.append(f"{name}: {shown}…{value[-4:] if len(value) >= 8 else ''}")
    return "; ".join(hints)[:64]
