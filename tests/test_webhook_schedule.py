"""The real retry schedule (1 min, 5 min, 30 min, 2 h, 24 h), on the time-skipping server.

A delivery to an endpoint that keeps failing makes six attempts over about 26.6 hours
and ends EXHAUSTED; one that recovers is acknowledged at the attempt it recovers. The
waits are the workflow's durable timers, read back from its history.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Worker

from ramp.config import Settings
from ramp.db.tables import WebhookAttempt, WebhookDelivery
from ramp.security.encryption import SecretBox
from ramp.webhooks.dispatch import delivery_workflow_id
from ramp.webhooks.models import (
    RETRY_DELAYS_SECONDS,
    AttemptOutcome,
    DeliveryOrder,
    DeliveryPolicy,
    DeliveryStatus,
)
from tests.helpers.servers import BIN
from tests.helpers.webhook_api import stored_delivery
from tests.helpers.webhook_receiver import Receiver, receiving
from worker import build_worker
from workflows.webhooks import WebhookDeliveryWorkflow


@pytest.fixture(scope="module")
async def skipping_env() -> AsyncIterator[WorkflowEnvironment]:
    async with await WorkflowEnvironment.start_time_skipping(
        test_server_existing_path=str(BIN / "temporal-test-server")
    ) as env:
        yield env


@pytest.fixture(scope="module")
def skipping_client(skipping_env: WorkflowEnvironment) -> Client:
    """The environment's client (it skips time while a result is awaited), with the
    service's payload converter."""
    config = skipping_env.client.config()
    config["data_converter"] = pydantic_data_converter
    return Client(**config)


@pytest.fixture(scope="module")
async def skipping_worker(
    skipping_client: Client,
    sessions: async_sessionmaker[AsyncSession],
    secret_box: SecretBox,
    migrated: Settings,
) -> AsyncIterator[Worker]:
    async with build_worker(
        skipping_client, sessions, secret_box, task_queue=migrated.task_queue
    ) as running:
        yield running


@pytest.fixture
async def receiver() -> AsyncIterator[Receiver]:
    async with receiving() as running:
        yield running


async def deliver_one(
    db: AsyncSession, migrated: Settings, client: Client, url: str
) -> tuple[str, AttemptOutcome]:
    """Stores one event for an endpoint at `url` and runs its delivery to the end."""
    delivery_id = await stored_delivery(db, migrated, url, client, DeliveryPolicy())
    outcome = await client.execute_workflow(
        WebhookDeliveryWorkflow.run,
        DeliveryOrder(delivery_id=delivery_id, policy=DeliveryPolicy()),
        id=delivery_workflow_id(delivery_id),
        task_queue=migrated.task_queue,
    )
    return delivery_id, outcome


async def timer_delays(client: Client, delivery_id: str) -> list[float]:
    handle = client.get_workflow_handle(delivery_workflow_id(delivery_id))
    return [
        event.timer_started_event_attributes.start_to_fire_timeout.ToTimedelta().total_seconds()
        async for event in handle.fetch_history_events()
        if event.event_type == EventType.EVENT_TYPE_TIMER_STARTED
    ]


async def attempts(db: AsyncSession, delivery_id: str) -> list[WebhookAttempt]:
    return list(
        (
            await db.exec(
                select(WebhookAttempt)
                .where(WebhookAttempt.delivery_id == delivery_id)
                .order_by(col(WebhookAttempt.number))
            )
        ).all()
    )


async def test_a_failing_endpoint_gets_six_attempts_over_a_day(
    skipping_worker: Worker,
    skipping_client: Client,
    receiver: Receiver,
    db: AsyncSession,
    migrated: Settings,
) -> None:
    receiver.default_status = 503
    delivery_id, outcome = await deliver_one(db, migrated, skipping_client, receiver.url)
    assert outcome.status is DeliveryStatus.EXHAUSTED
    assert await timer_delays(skipping_client, delivery_id) == list(RETRY_DELAYS_SECONDS)
    made = await attempts(db, delivery_id)
    assert [a.number for a in made] == [1, 2, 3, 4, 5, 6]
    assert {a.status_code for a in made} == {503}
    assert len(receiver.received) == 6
    db.expire_all()
    delivery = await db.get(WebhookDelivery, delivery_id)
    assert delivery is not None
    assert delivery.status == DeliveryStatus.EXHAUSTED
    assert delivery.next_attempt_at is None


async def test_an_endpoint_that_recovers_gets_the_event_at_that_attempt(
    skipping_worker: Worker,
    skipping_client: Client,
    receiver: Receiver,
    db: AsyncSession,
    migrated: Settings,
) -> None:
    receiver.statuses = [500, 502, 504]
    delivery_id, outcome = await deliver_one(db, migrated, skipping_client, receiver.url)
    assert outcome.status is DeliveryStatus.SUCCEEDED
    assert outcome.status_code == 200
    assert await timer_delays(skipping_client, delivery_id) == [60, 300, 1800]
    assert [a.status_code for a in await attempts(db, delivery_id)] == [500, 502, 504, 200]
