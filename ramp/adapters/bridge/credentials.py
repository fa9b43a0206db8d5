"""Bridge credentials: their JSON Schema, the documented hosts, and how to read them.

A Bridge account is an API key (sent as the `Api-Key` header) for one environment.
`baseUrl` overrides the documented host: tests point it at the simulator, staging at a
proxy. The webhook public key is not a credential the owner enters: Bridge returns it
when our endpoint is registered, so it travels in `ProviderContext.webhook_public_key`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

import jsonschema

from ramp.adapters.contract import ProviderContext, ProviderCredentials

# apidocs.bridge.xyz: production at api.bridge.xyz, sandbox at api.sandbox.bridge.xyz,
# every path under the API version `v0`.
DOCUMENTED_HOSTS: Final[Mapping[str, str]] = {
    "production": "https://api.bridge.xyz/v0",
    "sandbox": "https://api.sandbox.bridge.xyz/v0",
}

CREDENTIALS_SCHEMA: Final[Mapping[str, Any]] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "Bridge credentials",
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "apiKey": {
            "type": "string",
            "minLength": 8,
            "maxLength": 256,
            "pattern": "^\\S+$",
            "description": "API key from the Bridge dashboard (sent as the Api-Key header)",
            "writeOnly": True,
        },
        "environment": {
            "type": "string",
            "enum": ["sandbox", "production"],
            "description": "Which Bridge environment the key belongs to",
        },
        "baseUrl": {
            "type": "string",
            "pattern": "^https?://[^\\s]+$",
            "description": "Override of the documented host, with the /v0 prefix "
            "(tests and staging only)",
        },
    },
    "required": ["apiKey", "environment"],
}

_VALIDATOR = jsonschema.Draft202012Validator(CREDENTIALS_SCHEMA)


class InvalidCredentials(ValueError):
    """The credentials do not match the schema; the message never quotes a value."""


def validate_credentials(raw: Mapping[str, Any]) -> None:
    errors = sorted(_VALIDATOR.iter_errors(dict(raw)), key=lambda e: list(e.path))
    if errors:
        where = "/".join(str(p) for p in errors[0].path) or "(root)"
        # The validator's message may echo the value (an API key): name the field only.
        raise InvalidCredentials(f"invalid Bridge credentials at {where} ({errors[0].validator})")


def base_url(raw: Mapping[str, Any]) -> str:
    override = raw.get("baseUrl")
    if isinstance(override, str) and override:
        return override.rstrip("/")
    return DOCUMENTED_HOSTS[str(raw["environment"])]


def api_key(ctx: ProviderContext) -> str:
    key = ctx.credentials.secret("apiKey")
    if not key:
        raise InvalidCredentials("the provider account has no Bridge API key")
    return key


def to_credentials(raw: Mapping[str, Any]) -> ProviderCredentials:
    """Validated raw credentials as secrets (for building a `ProviderContext`)."""
    validate_credentials(raw)
    return ProviderCredentials.model_validate({"values": {k: str(v) for k, v in raw.items()}})
