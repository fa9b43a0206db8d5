"""Monerium credentials: their JSON Schema, the documented hosts, and how to read them.

A Monerium account is an OAuth 2 client of the client-credentials kind (a whitelabel or
private application): `clientId` and `clientSecret` buy access tokens at
`POST /auth/token`. `environment` picks the documented host (sandbox: api.monerium.dev,
fake money; production: api.monerium.app); `baseUrl` overrides it for tests and
staging. The webhook secret is not a credential the owner enters: we generate it when
the account is set (ramp/adapters/monerium/webhooks.py) and keep it encrypted beside
the account, so it travels in `ProviderContext.webhook_secret`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

import jsonschema

from ramp.adapters.contract import ProviderContext, ProviderCredentials

DOCUMENTED_HOSTS: Final[Mapping[str, str]] = {
    "production": "https://api.monerium.app",
    "sandbox": "https://api.monerium.dev",
}

CREDENTIALS_SCHEMA: Final[Mapping[str, Any]] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "Monerium credentials",
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "clientId": {
            "type": "string",
            "minLength": 8,
            "maxLength": 128,
            "pattern": "^\\S+$",
            "description": "Client ID of the Monerium application (client credentials)",
        },
        "clientSecret": {
            "type": "string",
            "minLength": 8,
            "maxLength": 256,
            "pattern": "^\\S+$",
            "description": "Client secret of the Monerium application",
            "writeOnly": True,
        },
        "environment": {
            "type": "string",
            "enum": ["sandbox", "production"],
            "description": "Which Monerium environment the application belongs to",
        },
        "baseUrl": {
            "type": "string",
            "pattern": "^https?://[^\\s]+$",
            "description": "Override of the documented host (tests and staging only)",
        },
    },
    "required": ["clientId", "clientSecret", "environment"],
}

_VALIDATOR = jsonschema.Draft202012Validator(CREDENTIALS_SCHEMA)


class InvalidCredentials(ValueError):
    """The credentials do not match the schema; the message never quotes a value."""


def validate_credentials(raw: Mapping[str, Any]) -> None:
    errors = sorted(_VALIDATOR.iter_errors(dict(raw)), key=lambda e: list(e.path))
    if errors:
        where = "/".join(str(p) for p in errors[0].path) or "(root)"
        raise InvalidCredentials(f"invalid Monerium credentials at {where} ({errors[0].validator})")


def base_url(raw: Mapping[str, Any]) -> str:
    override = raw.get("baseUrl")
    if isinstance(override, str) and override:
        return override.rstrip("/")
    return DOCUMENTED_HOSTS[str(raw["environment"])]


def client_credentials(ctx: ProviderContext) -> tuple[str, str]:
    """The client id and secret of the account (the secret only to take a token)."""
    client_id = ctx.credentials.secret("clientId")
    client_secret = ctx.credentials.secret("clientSecret")
    if not client_id or not client_secret:
        raise InvalidCredentials("the provider account has no Monerium client credentials")
    return client_id, client_secret


def to_credentials(raw: Mapping[str, Any]) -> ProviderCredentials:
    """Validated raw credentials as secrets (for building a `ProviderContext`)."""
    validate_credentials(raw)
    return ProviderCredentials.model_validate({"values": {k: str(v) for k, v in raw.items()}})
