"""A crash between storing events and handing them to the dispatcher loses nothing and
delivers nothing twice.

`record_intent` commits the projection with the events and their deliveries (leased to
its process's dispatcher), then hands them over. Here the activity fails once, right
after the commit, as a worker dying at that point would leave it: the retried write
finds its rows and stores nothing twice; the deliveries' lease lapses, the dispatcher
claims them, and each event reaches the endpoint once.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
from sqlalchemy import func
from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession
from temporalio.client import Client
from temporalio.worker import Worker

from ramp.config import Settings
from ramp.db.tables import WebhookDelivery, WebhookEventRow
from ramp.security.encryption import SecretBox
from ramp.webhooks.dispatcher import DeliveryDispatcher
from ramp.webhooks.outbox import Outbound, WebhookOutbox
from tests.helpers.payments import create_intent, register_accounts
from tests.helpers.projects import ProjectCredentials, make_customer
from tests.helpers.servers import FAST_DELIVERY
from tests.helpers.webhook_api import add_endpoint, wait_for_deliveries
from tests.helpers.webhook_receiver import receiving
from worker import build_worker


class DispatchFailsOnce(WebhookOutbox):
    """The outbox, except that its first wake-up fails after the commit."""

    def __init__(self, dispatcher: DeliveryDispatcher) -> None:
        super().__init__(FAST_DELIVERY, dispatcher)
        self.failures = 0

    async def dispatch(self, outbound: Outbound) -> None:
        if outbound and self.failures == 0:
            self.failures += 1
            raise ConnectionError("the worker lost Temporal right after the commit")
        await super().dispatch(outbound)


@pytest.fixture(scope="module")
def dispatcher(
    sessions: async_sessionmaker[AsyncSession], secret_box: SecretBox
) -> DeliveryDispatcher:
    return DeliveryDispatcher(sessions, secret_box, FAST_DELIVERY)


@pytest.fixture(scope="module")
def outbox(dispatcher: DeliveryDispatcher) -> DispatchFailsOnce:
    return DispatchFailsOnce(dispatcher)


@pytest.fixture(scope="module")
async def own_worker(
    own_client: Client,
    sessions: async_sessionmaker[AsyncSession],
    secret_box: SecretBox,
    outbox: DispatchFailsOnce,
    dispatcher: DeliveryDispatcher,
    migrated: Settings,
) -> AsyncIterator[Worker]:
    async with build_worker(
        own_client,
        sessions,
        secret_box,
        outbox=outbox,
        dispatcher=dispatcher,
        task_queue=migrated.task_queue,
    ) as running:
        yield running


@pytest.mark.usefixtures("own_worker")
async def test_a_failed_start_after_the_commit_is_retried_without_duplicates(
    http: httpx.AsyncClient,
    project: ProjectCredentials,
    outbox: DispatchFailsOnce,
    db: AsyncSession,
) -> None:
    async with receiving() as receiver:
        await add_endpoint(http, project, receiver.url, eventTypes=["INTENT_STATUS_CHANGED"])
        customer = await make_customer(http, project, "dispatch")
        accounts = await register_accounts(http, customer["access_token"])
        response = await create_intent(http, customer["access_token"], accounts)
        assert response.status_code == 201, response.text
        (delivery,) = await wait_for_deliveries(
            http, project, lambda found: bool(found) and found[0]["status"] == "SUCCEEDED"
        )
        received = receiver.received
    assert outbox.failures == 1
    assert len(received) == 1
    assert received[0].headers["webhook-id"] == delivery["eventId"]
    assert await db.scalar(select(func.count()).select_from(WebhookEventRow)) == 1
    assert await db.scalar(select(func.count()).select_from(WebhookDelivery)) == 1
