"""The routes providers call: their signed events (issue 14). Part of the one route
table of api/routes.py."""

from __future__ import annotations

from starlette.routing import BaseRoute

from api import schemas
from api.operations import ApiRoute, Operation, path_parameter
from api.provider_webhooks import receive_provider_webhook

PROVIDER_ROUTES: list[BaseRoute] = [
    ApiRoute(
        "POST",
        "/provider-webhooks/{providerAccountId}",
        receive_provider_webhook,
        Operation(
            "receiveProviderWebhook",
            "A provider's signed event (Bridge: X-Webhook-Signature; Monerium: Standard "
            "Webhooks with the secret we sent it): verified, stored and "
            "acknowledged at once, then applied to the intent it names",
            auth=None,
            status=200,
            request=schemas.ProviderWebhookBody,
            response=schemas.ProviderWebhookReceived,
            parameters=(path_parameter("providerAccountId", "Provider account id"),),
            errors=(400, 401, 404, 413),
        ),
    ),
]
