"""Bridge credentials: their JSON Schema, the documented hosts, and how to read them.

A Bridge account is an API key (sent as the `Api-Key` header) for one environment.
`baseUrl` overrides the documented host: tests point it at the simulator, staging at a
proxy. The webhook public key is not a credential the owner enters: Bridge returns it
when our endpoint is registered, so it travels in `ProviderContext.webhook_public_key`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from ramp.adapters.contract import ProviderContext
from ramp.adapters.http_common import CredentialsSpec
from ramp.adapters.http_common import InvalidCredentials as InvalidCredentials

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

# The schema check and the base URL are every HTTP connector's (ramp/adapters/http_common.py).
CREDENTIALS: Final = CredentialsSpec("Bridge", CREDENTIALS_SCHEMA, DOCUMENTED_HOSTS)
validate_credentials = CREDENTIALS.validate
base_url = CREDENTIALS.base_url
to_credentials = CREDENTIALS.to_credentials


def api_key(ctx: ProviderContext) -> str:
    key = ctx.credentials.secret("apiKey")
    if not key:
        raise InvalidCredentials("the provider account has no Bridge API key")
    return key
