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

from ramp.adapters.contract import ProviderContext
from ramp.adapters.http_common import CredentialsSpec
from ramp.adapters.http_common import InvalidCredentials as InvalidCredentials

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

# The schema check and the base URL are every HTTP connector's (ramp/adapters/http_common.py).
CREDENTIALS: Final = CredentialsSpec("Monerium", CREDENTIALS_SCHEMA, DOCUMENTED_HOSTS)
validate_credentials = CREDENTIALS.validate
base_url = CREDENTIALS.base_url
to_credentials = CREDENTIALS.to_credentials


def client_credentials(ctx: ProviderContext) -> tuple[str, str]:
    """The client id and secret of the account (the secret only to take a token)."""
    client_id = ctx.credentials.secret("clientId")
    client_secret = ctx.credentials.secret("clientSecret")
    if not client_id or not client_secret:
        raise InvalidCredentials("the provider account has no Monerium client credentials")
    return client_id, client_secret
