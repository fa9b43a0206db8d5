"""Helpers for the webhook endpoints of the API."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import httpx
from sqlmodel import col, update
from sqlmodel.ext.asyncio.session import AsyncSession
from temporalio.client import Client

from ramp.config import Settings
from ramp.db.tables import Project, WebhookDelivery
from ramp.intents.events import IntentStatusChanged, WebhookEvent, WebhookEventType, event_id
from ramp.intents.states import IntentStatus
from ramp.webhooks import endpoints
from ramp.webhooks.models import DeliveryPolicy
from ramp.webhooks.outbox import WebhookOutbox
from tests.helpers.polling import pauses
from tests.helpers.projects import ProjectCredentials, make_project


async def add_endpoint(
    client: httpx.AsyncClient, project: ProjectCredentials, url: str, **fields: Any
) -> dict[str, Any]:
    response = await client.post(
        "/v1/webhooks/endpoints", json={"url": url, **fields}, headers=project.basic
    )
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body


async def deliveries(
    client: httpx.AsyncClient, project: ProjectCredentials, **filters: str
) -> list[dict[str, Any]]:
    response = await client.get(
        "/v1/webhooks/deliveries", params={"limit": "100", **filters}, headers=project.basic
    )
    assert response.status_code == 200, response.text
    body: list[dict[str, Any]] = response.json()
    return body


async def wait_for_deliveries(
    client: httpx.AsyncClient,
    project: ProjectCredentials,
    until: Callable[[list[dict[str, Any]]], bool],
    within: float = 20.0,
    **filters: str,
) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    waits = pauses()  # tests/helpers/polling.py
    try:
        async with asyncio.timeout(within):
            while True:
                found = await deliveries(client, project, **filters)
                if until(found):
                    return found
                await asyncio.sleep(next(waits))
    except TimeoutError:
        raise AssertionError(f"deliveries never reached the expected state: {found}") from None


async def stored_delivery(
    db: AsyncSession,
    settings: Settings,
    url: str,
    client: Client,
    policy: DeliveryPolicy,
    **stored_as: Any,
) -> str:
    """A new project with an endpoint at `url` and one stored event for it, as the intent
    workflow's write leaves them (due, nobody woken; or with the delivery's columns in
    `stored_as`); returns the delivery's id."""
    credentials = await make_project(db, settings)
    project = await db.get(Project, credentials.project_id)
    assert project is not None
    await endpoints.add_endpoint(db, project, url=url)
    (delivery_id,) = await stored_event(db, project.id, policy, **stored_as)
    return delivery_id


async def stored_event(
    db: AsyncSession, project_id: str, policy: DeliveryPolicy, **stored_as: Any
) -> list[str]:
    """One new event of the project stored as the intent workflow's write stores it, with
    a delivery per subscribed endpoint (columns in `stored_as` changed in the same
    transaction); returns the deliveries' ids."""
    intent_id = str(uuid.uuid4())
    event = WebhookEvent(
        event_id=event_id(intent_id, 1, "test"),
        event_type=WebhookEventType.INTENT_STATUS_CHANGED,
        timestamp=datetime.now(UTC),
        project_id=project_id,
        data=IntentStatusChanged(
            intent_id=intent_id,
            customer_id=str(uuid.uuid4()),
            status=IntentStatus.PENDING,
            previous_status=None,
            failure_reason=None,
        ),
    )
    delivery_ids = list(await WebhookOutbox(policy).enqueue(db, [event]))
    if stored_as:
        await db.exec(
            update(WebhookDelivery)
            .where(col(WebhookDelivery.id).in_(delivery_ids))
            .values(**stored_as)
        )
    await db.commit()
    return delivery_ids
