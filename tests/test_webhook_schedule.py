"""The real retry schedule (1 min, 5 min, 30 min, 2 h, 24 h), with a clock we move.

A delivery to an endpoint that keeps failing makes six attempts over about 26.6 hours
and ends EXHAUSTED; one that recovers is acknowledged at the attempt it recovers. The
waits are the delivery's `due_at` in the database: the dispatcher runs on a clock this
test moves, takes nothing before it is due, and the attempts' times in the log are
exactly the schedule apart.
"""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator
from datetime import datetime, timedelta

import pytest
from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from temporalio.client import Client

from ramp.config import Settings
from ramp.db.tables import WebhookAttempt, WebhookDelivery
from ramp.db.types import utcnow
from ramp.security.encryption import SecretBox
from ramp.webhooks.dispatcher import DeliveryDispatcher
from ramp.webhooks.models import RETRY_DELAYS_SECONDS, DeliveryPolicy, DeliveryStatus
from tests.helpers.webhook_api import stored_delivery
from tests.helpers.webhook_receiver import Receiver, receiving


class Clock:
    def __init__(self) -> None:
        self.now = utcnow()

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
async def receiver() -> AsyncIterator[Receiver]:
    async with receiving() as running:
        yield running


async def attempts(db: AsyncSession, delivery_id: str) -> list[WebhookAttempt]:
    db.expire_all()
    return list(
        (
            await db.exec(
                select(WebhookAttempt)
                .where(WebhookAttempt.delivery_id == delivery_id)
                .order_by(col(WebhookAttempt.number))
            )
        ).all()
    )


async def run_schedule(
    db: AsyncSession,
    sessions: async_sessionmaker[AsyncSession],
    secret_box: SecretBox,
    migrated: Settings,
    temporal_client: Client,
    url: str,
) -> str:
    """Stores one event for an endpoint at `url` and moves the clock from one due time to
    the next until the delivery ends; returns its id."""
    clock = Clock()
    dispatcher = DeliveryDispatcher(sessions, secret_box, DeliveryPolicy(), clock=clock)
    delivery_id = await stored_delivery(db, migrated, url, temporal_client, DeliveryPolicy())
    clock.now = utcnow()
    while True:
        assert await dispatcher.drain() == 1
        db.expire_all()
        delivery = await db.get(WebhookDelivery, delivery_id)
        assert delivery is not None
        if delivery.status != DeliveryStatus.RETRYING:
            return delivery_id
        assert delivery.due_at == delivery.next_attempt_at
        assert delivery.next_attempt_at is not None
        # Not a second early.
        clock.now = delivery.next_attempt_at - timedelta(seconds=1)
        assert await dispatcher.drain() == 0
        clock.now = delivery.next_attempt_at


def gaps(made: list[WebhookAttempt]) -> list[float]:
    return [(b.attempted_at - a.attempted_at).total_seconds() for a, b in itertools.pairwise(made)]


async def test_a_failing_endpoint_gets_six_attempts_over_a_day(
    receiver: Receiver,
    db: AsyncSession,
    sessions: async_sessionmaker[AsyncSession],
    secret_box: SecretBox,
    migrated: Settings,
    temporal_client: Client,
) -> None:
    receiver.default_status = 503
    delivery_id = await run_schedule(
        db, sessions, secret_box, migrated, temporal_client, receiver.url
    )
    made = await attempts(db, delivery_id)
    assert [a.number for a in made] == [1, 2, 3, 4, 5, 6]
    assert gaps(made) == list(RETRY_DELAYS_SECONDS)
    assert {a.status_code for a in made} == {503}
    assert len(receiver.received) == 6
    delivery = await db.get(WebhookDelivery, delivery_id)
    assert delivery is not None
    assert delivery.status == DeliveryStatus.EXHAUSTED
    assert delivery.next_attempt_at is None
    assert delivery.due_at is None


async def test_an_endpoint_that_recovers_gets_the_event_at_that_attempt(
    receiver: Receiver,
    db: AsyncSession,
    sessions: async_sessionmaker[AsyncSession],
    secret_box: SecretBox,
    migrated: Settings,
    temporal_client: Client,
) -> None:
    receiver.statuses = [500, 502, 504]
    delivery_id = await run_schedule(
        db, sessions, secret_box, migrated, temporal_client, receiver.url
    )
    made = await attempts(db, delivery_id)
    assert gaps(made) == [60, 300, 1800]
    assert [a.status_code for a in made] == [500, 502, 504, 200]
    delivery = await db.get(WebhookDelivery, delivery_id)
    assert delivery is not None
    assert delivery.status == DeliveryStatus.SUCCEEDED
    assert delivery.last_status_code == 200
