"""A project's webhook endpoints and deliveries: what the API and `ramp webhook` share."""

from __future__ import annotations

import uuid
from collections.abc import Iterable

from sqlmodel import col, select, update
from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.config import Environment
from ramp.db.tables import Project, WebhookDelivery, WebhookEndpoint
from ramp.db.types import utcnow
from ramp.errors import NotFound
from ramp.intents.events import WebhookEventType
from ramp.security import network
from ramp.security.network import UrlRefused
from ramp.webhooks.models import DeliveryStatus

MAX_ENDPOINTS_PER_PROJECT = 20


class EndpointRefused(ValueError):
    """An endpoint setting the service does not accept (the message says why;
    `pointer` names the field refused, as a JSON pointer into the request)."""

    def __init__(self, message: str, pointer: str | None = None) -> None:
        super().__init__(message)
        self.pointer = pointer


def check_url(url: str, environment: str) -> str:
    """An endpoint URL we are willing to POST to: on the network the project's
    environment may reach (ramp/security/network.py; checked again on the addresses
    connected to at each attempt), https in production."""
    try:
        parts = network.for_project(environment).check_url(url)
    except UrlRefused as refused:
        raise EndpointRefused(f"the endpoint {refused}", "/url") from None
    if environment == Environment.PRODUCTION and parts.scheme != "https":
        raise EndpointRefused("a production endpoint must use https", "/url")
    return url


async def add_endpoint(
    session: AsyncSession,
    project: Project,
    *,
    url: str,
    event_types: Iterable[WebhookEventType] = tuple(WebhookEventType),
    description: str | None = None,
    enabled: bool = True,
) -> WebhookEndpoint:
    check_url(url, project.environment)
    count = len(
        (
            await session.exec(
                select(WebhookEndpoint.id).where(WebhookEndpoint.project_id == project.id)
            )
        ).all()
    )
    if count >= MAX_ENDPOINTS_PER_PROJECT:
        raise EndpointRefused(f"a project has at most {MAX_ENDPOINTS_PER_PROJECT} endpoints")
    endpoint = WebhookEndpoint(
        id=str(uuid.uuid4()),
        project_id=project.id,
        url=url,
        event_types=_event_types(event_types),
        enabled=enabled,
        description=description,
    )
    session.add(endpoint)
    await session.commit()
    await session.refresh(endpoint)
    return endpoint


async def change_endpoint(
    session: AsyncSession,
    project: Project,
    endpoint: WebhookEndpoint,
    *,
    url: str | None = None,
    event_types: Iterable[WebhookEventType] | None = None,
    description: str | None = None,
    enabled: bool | None = None,
) -> WebhookEndpoint:
    if url is not None:
        endpoint.url = check_url(url, project.environment)
    if event_types is not None:
        endpoint.event_types = _event_types(event_types)
    if description is not None:
        endpoint.description = description
    if enabled is not None:
        endpoint.enabled = enabled
        endpoint.disabled_reason = None if enabled else "disabled by the project"
        if not enabled:
            await cancel_pending(session, endpoint.id)
    endpoint.updated_at = utcnow()
    session.add(endpoint)
    await session.commit()
    await session.refresh(endpoint)
    return endpoint


async def remove_endpoint(session: AsyncSession, endpoint: WebhookEndpoint) -> None:
    """Removes the endpoint; its deliveries stay in the log, the pending ones cancelled."""
    await cancel_pending(session, endpoint.id)
    await session.delete(endpoint)
    await session.commit()


async def project_endpoint(
    session: AsyncSession, project_id: str, endpoint_id: str
) -> WebhookEndpoint | None:
    endpoint = await session.get(WebhookEndpoint, endpoint_id)
    return endpoint if endpoint is not None and endpoint.project_id == project_id else None


async def owned_endpoint(
    session: AsyncSession, project_id: str, endpoint_id: str
) -> WebhookEndpoint:
    """The project's endpoint; NotFound if it has none by that id."""
    endpoint = await project_endpoint(session, project_id, endpoint_id)
    if endpoint is None:
        raise NotFound("webhook endpoint")
    return endpoint


async def project_endpoints(session: AsyncSession, project_id: str) -> list[WebhookEndpoint]:
    return list(
        (
            await session.exec(
                select(WebhookEndpoint)
                .where(WebhookEndpoint.project_id == project_id)
                .order_by(col(WebhookEndpoint.created_at), col(WebhookEndpoint.id))
            )
        ).all()
    )


def redelivery(
    original: WebhookDelivery, endpoint: WebhookEndpoint, max_attempts: int = 1
) -> WebhookDelivery:
    """A new delivery of `original`'s event to its (enabled) endpoint's current URL, due
    now; by default attempted once (retrying it is the caller's decision)."""
    now = utcnow()
    return WebhookDelivery(
        id=str(uuid.uuid4()),
        project_id=original.project_id,
        event_id=original.event_id,
        endpoint_id=endpoint.id,
        event_type=original.event_type,
        intent_id=original.intent_id,
        url=endpoint.url,
        status=DeliveryStatus.PENDING,
        max_attempts=max_attempts,
        redelivery_of=original.id,
        created_at=now,
        updated_at=now,
        due_at=now,
    )


def _event_types(event_types: Iterable[WebhookEventType]) -> list[str]:
    chosen = {WebhookEventType(value) for value in event_types}
    if not chosen:
        raise EndpointRefused("an endpoint must receive at least one event type", "/eventTypes")
    return [value.value for value in WebhookEventType if value in chosen]


async def cancel_pending(session: AsyncSession, endpoint_id: str) -> None:
    """Ends the pending deliveries of a disabled or removed endpoint (caller commits); an
    attempt under way is still logged, and its delivery stays cancelled."""
    await session.exec(
        update(WebhookDelivery)
        .where(
            col(WebhookDelivery.endpoint_id) == endpoint_id,
            col(WebhookDelivery.status).in_([DeliveryStatus.PENDING, DeliveryStatus.RETRYING]),
        )
        .values(
            status=DeliveryStatus.CANCELLED,
            last_error="the endpoint was disabled or removed",
            next_attempt_at=None,
            due_at=None,
            lease_token=None,
            updated_at=utcnow(),
        )
    )
