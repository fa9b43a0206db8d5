"""`POST /v1/provider-webhooks/{providerAccountId}`: a provider's events about our
intents. Verified and stored before the answer; relayed to the workflows after it."""

from __future__ import annotations

from starlette.background import BackgroundTask
from starlette.requests import Request
from starlette.responses import Response

from api.render import json_resource
from api.schemas import ProviderWebhookReceived
from api.services import Services, services
from ramp.intents.workflow_client import IntentWorkflowClient
from ramp.provider_webhooks.service import receive, relay
from ramp.security.encryption import cached_secret_box


async def receive_provider_webhook(request: Request) -> Response:
    app = services(request)
    # The signature covers the exact bytes: read them as they came.
    body = await request.body()
    box = cached_secret_box(app.settings.encryption_keys.get_secret_value())
    async with app.db() as session:
        received = await receive(
            session,
            provider_account_id=request.path_params["providerAccountId"],
            headers=request.headers,
            body=body,
            secret_box=box,
        )
    answer = ProviderWebhookReceived(received=received.stored, duplicates=received.duplicates)
    response = json_resource(answer, 200)
    if received.stored:
        # After the answer: the provider's deadline does not wait on Temporal.
        response.background = BackgroundTask(_relay, app)
    return response


async def _relay(app: Services) -> None:
    box = cached_secret_box(app.settings.encryption_keys.get_secret_value())
    await relay(app.db, IntentWorkflowClient(app.temporal, app.settings.task_queue), box)
