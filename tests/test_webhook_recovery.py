"""Failing endpoints and shared backlogs, with dispatchers driven by the test (no worker
runs in this module): two dispatchers on one backlog never attempt a delivery twice; an
endpoint failing for 3 days is disabled, with the reason on its record.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from datetime import datetime, timedelta

import httpx
from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from temporalio.client import Client

from ramp.config import Settings
from ramp.db.tables import WebhookAttempt
from ramp.db.types import utcnow
from ramp.security.encryption import SecretBox
from ramp.webhooks.dispatcher import DeliveryDispatcher
from ramp.webhooks.models import DeliveryPolicy
from tests.helpers.projects import ProjectCredentials
from tests.helpers.webhook_api import (
    add_endpoint,
    stored_delivery,
    stored_event,
    wait_for_deliveries,
)
from tests.helpers.webhook_receiver import receiving

PATIENT = DeliveryPolicy(retry_delays_seconds=(0.2,) * 5, timeout_seconds=60)


async def test_two_dispatchers_on_one_backlog_attempt_each_delivery_once(
    db: AsyncSession,
    migrated: Settings,
    sessions: async_sessionmaker[AsyncSession],
    secret_box: SecretBox,
    temporal_client: Client,
) -> None:
    async with receiving() as receiver:
        stored = [
            await stored_delivery(db, migrated, receiver.url, temporal_client, PATIENT)
            for _ in range(30)
        ]
        first, second = (
            DeliveryDispatcher(sessions, secret_box, PATIENT, max_in_flight=4) for _ in range(2)
        )
        made = await asyncio.gather(first.drain(), second.drain())
        await receiver.wait_for(lambda got: len(got) == len(stored))

    assert sum(made) == len(stored)
    assert all(made), made  # both took part
    counts = Counter(hook.headers["webhook-id"] for hook in receiver.received)
    assert set(counts.values()) == {1}
    attempts = (
        await db.exec(
            select(WebhookAttempt.delivery_id).where(col(WebhookAttempt.delivery_id).in_(stored))
        )
    ).all()
    assert sorted(attempts) == sorted(stored)


class Clock:
    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


async def test_an_endpoint_failing_for_three_days_is_disabled_with_the_reason(
    client: httpx.AsyncClient,
    project: ProjectCredentials,
    db: AsyncSession,
    sessions: async_sessionmaker[AsyncSession],
    secret_box: SecretBox,
) -> None:
    clock = Clock(utcnow())
    dispatcher = DeliveryDispatcher(sessions, secret_box, PATIENT, clock=clock)
    async with receiving() as receiver:
        receiver.default_status = 500
        endpoint = await add_endpoint(client, project, receiver.url)
        (failing,) = await stored_event(db, project.project_id, PATIENT)
        clock.now = utcnow()
        assert await dispatcher.drain() == 1
        # Each drain makes the one retry due at the clock's time.
        clock.now += timedelta(days=2, hours=23)
        assert await dispatcher.drain() == 1
        found = await client.get("/v1/webhooks/endpoints", headers=project.basic)
        assert found.json()[0]["enabled"] is True
        # Three days after the first failure: disabled, its pending deliveries cancelled.
        clock.now += timedelta(hours=1)
        assert await dispatcher.drain() == 1
        assert await dispatcher.drain() == 0

    (found,) = (await client.get("/v1/webhooks/endpoints", headers=project.basic)).json()
    assert found["id"] == endpoint["id"]
    assert found["enabled"] is False
    assert found["disabledReason"].startswith("every attempt failed since ")
    assert "HTTP 500" in found["disabledReason"]
    (delivery,) = await wait_for_deliveries(client, project, lambda got: bool(got))
    assert delivery["id"] == failing
    assert delivery["status"] == "CANCELLED"
    assert [a["statusCode"] for a in delivery["attempts"]] == [500, 500, 500]


ONE_ATTEMPT = DeliveryPolicy(retry_delays_seconds=(), timeout_seconds=5)


async def test_recover_sends_again_every_event_that_failed_since_a_time(
    client: httpx.AsyncClient,
    project: ProjectCredentials,
    db: AsyncSession,
    sessions: async_sessionmaker[AsyncSession],
    secret_box: SecretBox,
) -> None:
    dispatcher = DeliveryDispatcher(sessions, secret_box, ONE_ATTEMPT)
    async with receiving() as receiver:
        endpoint = await add_endpoint(client, project, receiver.url)
        recover = f"/v1/webhooks/endpoints/{endpoint['id']}/recover"
        receiver.default_status = 500
        (before,) = await stored_event(db, project.project_id, ONE_ATTEMPT)
        await dispatcher.drain()
        since = utcnow()
        (failed,) = await stored_event(db, project.project_id, ONE_ATTEMPT)
        await dispatcher.drain()
        receiver.default_status = 200
        (delivered,) = await stored_event(db, project.project_id, ONE_ATTEMPT)
        await dispatcher.drain()

        answer = await client.post(
            recover, params={"since": since.isoformat()}, headers=project.basic
        )
        assert answer.status_code == 202, answer.text
        assert answer.json()["resent"] == 1
        assert answer.json()["endpointId"] == endpoint["id"]
        assert await dispatcher.drain() == 1
        # Recovered already: nothing left to send.
        again = await client.post(
            recover, params={"since": since.isoformat()}, headers=project.basic
        )
        assert again.json()["resent"] == 0

    by_id = {d["id"]: d for d in await wait_for_deliveries(client, project, bool)}
    assert by_id[before]["status"] == by_id[failed]["status"] == "EXHAUSTED"
    assert by_id[delivered]["status"] == "SUCCEEDED"
    (recovered,) = (d for d in by_id.values() if d["redeliveryOf"] is not None)
    assert recovered["redeliveryOf"] == failed
    assert recovered["eventId"] == by_id[failed]["eventId"]
    assert recovered["status"] == "SUCCEEDED"
    # On the full retry schedule (the service's settings), not once like a redelivery.
    assert recovered["maxAttempts"] == 6
    assert receiver.received[-1].headers["webhook-id"] == by_id[failed]["eventId"]


async def test_recover_refuses_what_it_cannot_do(
    client: httpx.AsyncClient, project: ProjectCredentials
) -> None:
    endpoint = await add_endpoint(client, project, "http://127.0.0.1:9/hooks")
    recover = f"/v1/webhooks/endpoints/{endpoint['id']}/recover"
    for params in ({}, {"since": "yesterday"}, {"since": "2026-11-20T10:00:00"}):
        refused = await client.post(recover, params=params, headers=project.basic)
        assert refused.status_code == 400, refused.text
        assert refused.json()["code"] == "VALIDATION_ERROR"
    since = {"since": "2026-11-20T10:00:00Z"}
    missing = await client.post(
        "/v1/webhooks/endpoints/nope/recover", params=since, headers=project.basic
    )
    assert missing.status_code == 404
    await client.patch(
        f"/v1/webhooks/endpoints/{endpoint['id']}", json={"enabled": False}, headers=project.basic
    )
    disabled = await client.post(recover, params=since, headers=project.basic)
    assert disabled.status_code == 409
    assert disabled.json()["code"] == "ENDPOINT_DISABLED"
    unauthenticated = await client.post(recover, params=since)
    assert unauthenticated.status_code == 401
