"""Our webhook endpoint at Bridge: registered through the API, then enabled.

apidocs.bridge.xyz (webhooks overview, setting up webhooks): `POST /webhooks` with the
`url`, `event_epoch` and `event_categories` creates the endpoint *disabled* and assigns
it an RSA public key (PEM) that signs its events; `PUT /webhooks/<id>` with
`{"status": "active"}` enables it. An endpoint already registered for the same URL
(a second `set` of the account, a retry) is found with `GET /webhooks` and reused.
"""

from __future__ import annotations

import hashlib
from typing import Any, Final

from ramp.adapters.contract import ProviderRefused, WebhookRegistration

from .client import BridgeClient

# The categories our mapping reads (ramp/adapters/bridge/webhooks.py).
EVENT_CATEGORIES: Final = ("customer", "kyc_link", "transfer")


def _registration(endpoint: dict[str, Any]) -> WebhookRegistration:
    key = endpoint.get("public_key")
    return WebhookRegistration(
        endpoint_ref=str(endpoint["id"]), public_key=str(key) if key else None
    )


async def register_endpoint(client: BridgeClient, url: str) -> WebhookRegistration:
    listed = await client.get("/webhooks")
    found = next(
        (
            endpoint
            for endpoint in (listed or {}).get("data", [])
            if isinstance(endpoint, dict) and endpoint.get("url") == url
        ),
        None,
    )
    if found is None:
        found = await client.post(
            "/webhooks",
            {
                "url": url,
                # Events from the endpoint's creation on: older ones are not ours.
                "event_epoch": "webhook_creation",
                "event_categories": list(EVENT_CATEGORIES),
            },
            idempotency_key="ramp-webhook-" + hashlib.sha256(url.encode()).hexdigest()[:32],
        )
    if not isinstance(found, dict) or not found.get("id"):
        raise ProviderRefused("Bridge returned a webhook endpoint without an id")
    if found.get("status") != "active":
        await client.put(f"/webhooks/{found['id']}", {"status": "active"})
    return _registration(found)
