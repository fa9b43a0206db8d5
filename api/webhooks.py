"""Webhook endpoints of a project, and the log of deliveries to them (Basic auth).

Events are emitted by the intents' workflows and delivered by delivery workflows (see
workflows/webhooks.py); this module only manages settings and reads the log, apart from
a redelivery, which starts a delivery workflow of its own.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request
from starlette.responses import Response

from api.auth import authenticate_project
from api.body import read_json
from api.errors import ApiError, bad_request, not_found
from api.pagination import newest_first, next_page_headers, page_size
from api.render import json_list, json_resource
from api.schemas import (
    CreateWebhookEndpoint,
    UpdateWebhookEndpoint,
    WebhookAttemptResource,
    WebhookDeliveryResource,
    WebhookEndpointResource,
)
from api.services import services
from ramp.db.engine import read_snapshot
from ramp.db.tables import WebhookAttempt, WebhookDelivery, WebhookEndpoint
from ramp.webhooks import endpoints
from ramp.webhooks.dispatch import start_delivery
from ramp.webhooks.events import WebhookEventType
from ramp.webhooks.models import (
    REDELIVERY_POLICY_DELAYS,
    DeliveryOrder,
    DeliveryPolicy,
    DeliveryStatus,
)

# Query parameters of GET /webhooks/deliveries, and the values each accepts.
_FILTERS = {
    "status": (WebhookDelivery.status, {s.value for s in DeliveryStatus}),
    "eventType": (WebhookDelivery.event_type, {t.value for t in WebhookEventType}),
    "endpointId": (WebhookDelivery.endpoint_id, None),
    "intentId": (WebhookDelivery.intent_id, None),
    "eventId": (WebhookDelivery.event_id, None),
}


async def create_endpoint(request: Request) -> Response:
    async with services(request).db() as session:
        project = await authenticate_project(request, session)
        body = await read_json(request, CreateWebhookEndpoint)
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
    async with services(request).db() as session:
        project = await authenticate_project(request, session)
        found = await endpoints.project_endpoints(session, project.id)
    return json_list(_endpoint(endpoint) for endpoint in found)


async def update_endpoint(request: Request) -> Response:
    async with services(request).db() as session:
        project = await authenticate_project(request, session)
        body = await read_json(request, UpdateWebhookEndpoint)
        endpoint = await _owned_endpoint(session, project.id, request.path_params["id"])
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
    async with services(request).db() as session:
        project = await authenticate_project(request, session)
        endpoint = await _owned_endpoint(session, project.id, request.path_params["id"])
        await endpoints.remove_endpoint(session, endpoint)
    return Response(status_code=204)


async def list_deliveries(request: Request) -> Response:
    app = services(request)
    async with app.db() as session:
        await read_snapshot(session)
        project = await authenticate_project(request, session)
        filters = _delivery_filters(request)
        query = select(WebhookDelivery).where(WebhookDelivery.project_id == project.id)
        for name, value in filters.items():
            query = query.where(_FILTERS[name][0] == value)
        rows = list(
            (
                await session.exec(
                    newest_first(
                        request, query, col(WebhookDelivery.created_at), col(WebhookDelivery.id)
                    )
                )
            ).all()
        )
        page = rows[: page_size(request)]
        attempts = await _attempts(session, [delivery.id for delivery in page])
    headers = next_page_headers(request, rows, lambda row: (row.created_at, row.id), filters)
    return json_list(
        (_delivery(delivery, attempts.get(delivery.id, [])) for delivery in page), headers=headers
    )


async def get_delivery(request: Request) -> Response:
    async with services(request).db() as session:
        await read_snapshot(session)
        project = await authenticate_project(request, session)
        delivery = await _owned_delivery(session, project.id, request.path_params["id"])
        attempts = await _attempts(session, [delivery.id])
    return json_resource(_delivery(delivery, attempts.get(delivery.id, [])))


async def redeliver(request: Request) -> Response:
    """Sends a delivery's event again, once, as a new delivery (202: it is on its way)."""
    app = services(request)
    async with app.db() as session:
        project = await authenticate_project(request, session)
        original = await _owned_delivery(session, project.id, request.path_params["id"])
        endpoint = await session.get(WebhookEndpoint, original.endpoint_id)
        if endpoint is None or not endpoint.enabled:
            raise ApiError(
                409,
                "ENDPOINT_DISABLED",
                "the delivery's endpoint was removed or is disabled; enable it first",
                {"endpointId": original.endpoint_id},
            )
        policy = DeliveryPolicy(
            retry_delays_seconds=REDELIVERY_POLICY_DELAYS,
            timeout_seconds=app.settings.webhook_timeout_seconds,
        )
        again = endpoints.redelivery(original, endpoint, policy)
        session.add(again)
        await session.flush()
        # Started before the commit: if Temporal cannot be reached (503), nothing is
        # stored; the first attempt waits for the row if it runs before the commit.
        await start_delivery(app.temporal, DeliveryOrder(delivery_id=again.id, policy=policy))
        await session.commit()
        await session.refresh(again)
    return json_resource(_delivery(again, []), 202)


async def _owned_endpoint(session: AsyncSession, project_id: str, id_: str) -> WebhookEndpoint:
    endpoint = await endpoints.project_endpoint(session, project_id, id_)
    if endpoint is None:
        raise not_found("webhook endpoint")
    return endpoint


async def _owned_delivery(session: AsyncSession, project_id: str, id_: str) -> WebhookDelivery:
    delivery = await session.get(WebhookDelivery, id_)
    if delivery is None or delivery.project_id != project_id:
        raise not_found("webhook delivery")
    return delivery


async def _attempts(
    session: AsyncSession, delivery_ids: Sequence[str]
) -> dict[str, list[WebhookAttempt]]:
    if not delivery_ids:
        return {}
    found: dict[str, list[WebhookAttempt]] = {}
    rows = await session.exec(
        select(WebhookAttempt)
        .where(col(WebhookAttempt.delivery_id).in_(delivery_ids))
        .order_by(col(WebhookAttempt.attempted_at), col(WebhookAttempt.number))
    )
    for attempt in rows.all():
        found.setdefault(attempt.delivery_id, []).append(attempt)
    return found


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
