"""Webhook endpoint settings and the delivery log."""

from __future__ import annotations

from typing import Annotated

from pydantic import (
    AfterValidator,
    Field,
    StrictBool,
    StrictStr,
)

from api.schemas.core import RequestBody, Resource, absolute_http_url
from ramp.intents.events import WebhookEventType
from ramp.timestamps import Timestamp
from ramp.webhooks.models import DeliveryStatus

EndpointUrl = Annotated[
    StrictStr,
    Field(max_length=2000, examples=["https://app.example.com/webhooks/ramp"]),
    AfterValidator(absolute_http_url),
]
EventTypes = Annotated[
    list[Annotated[WebhookEventType, Field(strict=False)]],
    Field(min_length=1, description="The event types the endpoint receives"),
]
Description = Annotated[
    StrictStr, Field(max_length=200, pattern=r"^[^\x00-\x1f\x7f]*$", examples=["Production"])
]


class CreateWebhookEndpoint(RequestBody):
    url: EndpointUrl
    event_types: EventTypes = Field(default=list(WebhookEventType), alias="eventTypes")
    description: Description | None = None
    enabled: StrictBool = True


class UpdateWebhookEndpoint(RequestBody):
    """Only the fields given change. Enabling an endpoint clears `disabledReason`."""

    url: EndpointUrl | None = None
    event_types: EventTypes | None = Field(default=None, alias="eventTypes")
    description: Description | None = None
    enabled: StrictBool | None = None


class WebhookEndpointResource(Resource):
    id: str
    url: str
    event_types: list[WebhookEventType] = Field(alias="eventTypes")
    enabled: bool
    disabled_reason: str | None = Field(alias="disabledReason")
    description: str | None
    created_at: Timestamp = Field(alias="createdAt")
    updated_at: Timestamp = Field(alias="updatedAt")


class WebhookAttemptResource(Resource):
    number: int
    attempted_at: Timestamp = Field(alias="attemptedAt")
    status_code: int | None = Field(alias="statusCode", description="null: no HTTP answer")
    latency_ms: int = Field(alias="latencyMs")
    error: str | None


class WebhookDeliveryResource(Resource):
    id: str
    event_id: str = Field(alias="eventId")
    event_type: WebhookEventType = Field(alias="eventType")
    endpoint_id: str = Field(alias="endpointId")
    intent_id: str | None = Field(
        alias="intentId", description="null for an event about no intent (unmatched money)"
    )
    url: str
    status: DeliveryStatus
    attempt_count: int = Field(alias="attemptCount")
    max_attempts: int = Field(alias="maxAttempts")
    last_status_code: int | None = Field(alias="lastStatusCode")
    last_error: str | None = Field(alias="lastError")
    next_attempt_at: Timestamp | None = Field(alias="nextAttemptAt")
    redelivery_of: str | None = Field(
        alias="redeliveryOf", description="The delivery this one sends again, if any"
    )
    created_at: Timestamp = Field(alias="createdAt")
    updated_at: Timestamp = Field(alias="updatedAt")
    attempts: list[WebhookAttemptResource]


class WebhookRecoveryResource(Resource):
    endpoint_id: str = Field(alias="endpointId")
    since: Timestamp
    resent: int = Field(
        description="Events sent again, each as a new delivery (`redeliveryOf` names the "
        "last failed one) on the full retry schedule"
    )
