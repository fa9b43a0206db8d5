"""Webhook endpoints of a project, and the log of deliveries to them (Basic auth).

Events are emitted by the intents' workflows and delivered by the dispatchers of the
worker processes (ramp/webhooks/dispatcher.py); the use cases are
ramp/webhooks/endpoints.py (settings) and ramp/webhooks/delivery_log.py (the log, and a
redelivery, a delivery of its own).
"""

from __future__ import annotations

from datetime import datetime

from starlette.requests import Request
from starlette.responses import Response

from api.auth import authenticate_project
from api.body import read_json
from api.errors import bad_request
from api.pagination import next_page_link, page_request
from api.render import json_list, json_resource
from api.schemas import (
    CreateWebhookEndpoint,
    UpdateWebhookEndpoint,
    WebhookAttemptResource,
    WebhookDeliveryResource,
    WebhookEndpointResource,
    WebhookRecoveryResource,
)
from api.services import services
from ramp.db.tables import WebhookAttempt, WebhookDelivery, WebhookEndpoint
from ramp.intents.events import WebhookEventType
from ramp.webhooks import delivery_log, endpoints
from ramp.webhooks.delivery_log import DeliveryFilters
from ramp.webhooks.models import DeliveryStatus

# Query parameters of GET /webhooks/deliveries: the filter each sets, the values it accepts.
_FILTERS = {
    "status": ("status", {s.value for s in DeliveryStatus}),
    "eventType": ("event_type", {t.value for t in WebhookEventType}),
    "endpointId": ("endpoint_id", None),
    "intentId": ("intent_id", None),
    "eventId": ("event_id", None),
}


async def create_endpoint(request: Request) -> Response:
    project = await authenticate_project(request)
    body = await read_json(request, CreateWebhookEndpoint)
    async with services(request).db() as session:
        endpoint = await endpoints.add_endpoint(
            session,
            project,
            url=body.url,
            event_types=body.event_types,
            description=body.description,
            enabled=body.enabled,
        )
    return json_resource(_endpoint(endpoint), 201)


async def list_endpoints(request: Request) -> Response:
    project = await authenticate_project(request)
    async with services(request).db() as session:
        found = await endpoints.project_endpoints(session, project.id)
    return json_list(_endpoint(endpoint) for endpoint in found)


async def update_endpoint(request: Request) -> Response:
    project = await authenticate_project(request)
    body = await read_json(request, UpdateWebhookEndpoint)
    async with services(request).db() as session:
        endpoint = await endpoints.owned_endpoint(session, project.id, request.path_params["id"])
        endpoint = await endpoints.change_endpoint(
            session,
            project,
            endpoint,
            url=body.url,
            event_types=body.event_types,
            description=body.description,
            enabled=body.enabled,
        )
    return json_resource(_endpoint(endpoint))


async def delete_endpoint(request: Request) -> Response:
    """Removes the endpoint; its deliveries stay in the log, pending ones are cancelled."""
    project = await authenticate_project(request)
    async with services(request).db() as session:
        endpoint = await endpoints.owned_endpoint(session, project.id, request.path_params["id"])
        await endpoints.remove_endpoint(session, endpoint)
    return Response(status_code=204)


async def list_deliveries(request: Request) -> Response:
    project = await authenticate_project(request)
    filters = _delivery_filters(request)
    page = await delivery_log.delivery_page(
        services(request).db,
        project.id,
        DeliveryFilters(**{_FILTERS[name][0]: value for name, value in filters.items()}),
        page_request(request, owner=project.id),
    )
    return json_list(
        (_delivery(logged.delivery, logged.attempts) for logged in page.items),
        headers=next_page_link(request, page.after, filters, owner=project.id),
    )


async def get_delivery(request: Request) -> Response:
    project = await authenticate_project(request)
    logged = await delivery_log.logged_delivery(
        services(request).db, project.id, request.path_params["id"]
    )
    return json_resource(_delivery(logged.delivery, logged.attempts))


async def redeliver(request: Request) -> Response:
    """Sends a delivery's event again, once, as a new delivery (202: it is on its way)."""
    project = await authenticate_project(request)
    async with services(request).db() as session:
        again = await delivery_log.redeliver(session, project.id, request.path_params["id"])
    return json_resource(_delivery(again, []), 202)


async def recover_endpoint(request: Request) -> Response:
    """Sends again every event whose deliveries to the endpoint since `since` all failed
    (202: on their way)."""
    app = services(request)
    project = await authenticate_project(request)
    since = _since(request)
    async with app.db() as session:
        again = await delivery_log.recover(
            session,
            project.id,
            request.path_params["id"],
            since,
            max_attempts=len(app.settings.webhook_retry_delays_seconds) + 1,
        )
    return json_resource(
        WebhookRecoveryResource(
            endpoint_id=request.path_params["id"], since=since, resent=len(again)
        ),
        202,
    )


def _since(request: Request) -> datetime:
    raw = request.query_params.get("since")
    try:
        since = datetime.fromisoformat(raw.replace("Z", "+00:00")) if raw else None
    except ValueError:
        since = None
    if since is None or since.tzinfo is None:
        raise bad_request(
            "VALIDATION_ERROR",
            "since must be an ISO 8601 time with its offset, e.g. 2026-11-22T10:05:00Z",
            {"fields": [{"pointer": "/since", "reason": "is not an ISO 8601 time with offset"}]},
        )
    return since


def _delivery_filters(request: Request) -> dict[str, str]:
    filters: dict[str, str] = {}
    for name, (_, allowed) in _FILTERS.items():
        value = request.query_params.get(name)
        if value is None:
            continue
        if allowed is not None and value not in allowed:
            raise bad_request(
                "VALIDATION_ERROR",
                f"{name} must be one of {', '.join(sorted(allowed))}",
                {"fields": [{"pointer": f"/{name}", "reason": "is not one of the allowed values"}]},
            )
        filters[name] = value
    return filters


def _endpoint(endpoint: WebhookEndpoint) -> WebhookEndpointResource:
    return WebhookEndpointResource(
        id=endpoint.id,
        url=endpoint.url,
        event_types=[WebhookEventType(value) for value in endpoint.event_types],
        enabled=endpoint.enabled,
        disabled_reason=endpoint.disabled_reason,
        description=endpoint.description,
        created_at=endpoint.created_at,
        updated_at=endpoint.updated_at,
    )


def _delivery(delivery: WebhookDelivery, attempts: list[WebhookAttempt]) -> WebhookDeliveryResource:
    return WebhookDeliveryResource(
        id=delivery.id,
        event_id=delivery.event_id,
        event_type=WebhookEventType(delivery.event_type),
        endpoint_id=delivery.endpoint_id,
        intent_id=delivery.intent_id,
        url=delivery.url,
        status=DeliveryStatus(delivery.status),
        attempt_count=delivery.attempt_count,
        max_attempts=delivery.max_attempts,
        last_status_code=delivery.last_status_code,
        last_error=delivery.last_error,
        next_attempt_at=delivery.next_attempt_at,
        redelivery_of=delivery.redelivery_of,
        created_at=delivery.created_at,
        updated_at=delivery.updated_at,
        attempts=[
            WebhookAttemptResource(
                number=attempt.number,
                attempted_at=attempt.attempted_at,
                status_code=attempt.status_code,
                latency_ms=attempt.latency_ms,
                error=attempt.error,
            )
            for attempt in attempts
        ],
    )
