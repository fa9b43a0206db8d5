"""The outbox sweeper: a delivery committed whose workflow start was lost still goes out.

The row is stored exactly as `record_intent` stores it, and its workflow is never
started (what a crash between the commit and the start leaves). A real worker process
(`python worker.py`) against this module's own Temporal server finds it and delivers it
to a real receiver.
"""

from __future__ import annotations

import asyncio

from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel.ext.asyncio.session import AsyncSession
from temporalio.client import Client
from temporalio.worker import Worker

from ramp.config import Settings
from ramp.db.tables import WebhookDelivery
from ramp.webhooks.dispatch import delivery_workflow_id
from ramp.webhooks.models import DeliveryPolicy
from ramp.webhooks.sweeper import OutboxSweeper
from tests.helpers.processes import WorkerProcesses
from tests.helpers.webhook_api import stored_delivery
from tests.helpers.webhook_receiver import receiving


async def test_a_stored_delivery_whose_start_was_lost_is_delivered(
    db: AsyncSession,
    own_settings: Settings,
    own_client: Client,
    workers: WorkerProcesses,
) -> None:
    async with receiving() as receiver:
        delivery_id = await stored_delivery(
            db, own_settings, receiver.url, own_client, DeliveryPolicy()
        )
        await workers.start()

        # Grace period (5 s) plus one sweep interval (5 s), with room for a busy machine.
        (received,) = await receiver.wait_for(lambda got: len(got) == 1, within=30)

    assert received.headers["webhook-id"]
    description = await own_client.get_workflow_handle(delivery_workflow_id(delivery_id)).describe()
    assert description.id == delivery_workflow_id(delivery_id)
    # The attempt is recorded just after the receiver answers.
    async with asyncio.timeout(10):
        while True:
            db.expire_all()
            delivery = await db.get(WebhookDelivery, delivery_id)
            assert delivery is not None
            if delivery.status != "PENDING":
                break
            await asyncio.sleep(0.05)
    assert delivery.status == "SUCCEEDED"
    assert delivery.attempt_count == 1


async def test_the_sweeper_walks_a_backlog_in_batches_and_starts_each_once(
    db: AsyncSession,
    migrated: Settings,
    sessions: async_sessionmaker[AsyncSession],
    temporal_client: Client,
    worker: Worker,
) -> None:
    async with receiving() as receiver:
        stored = [
            await stored_delivery(db, migrated, receiver.url, temporal_client, DeliveryPolicy())
            for _ in range(3)
        ]
        sweeper = OutboxSweeper(
            sessions,
            temporal_client,
            DeliveryPolicy(),
            task_queue=migrated.task_queue,
            grace_seconds=0,
            batch_size=2,
        )

        # Two, then the one after them; then from the start again, where all are started.
        assert await sweeper.sweep_once() == 2
        assert await sweeper.sweep_once() == 1
        assert await sweeper.sweep_once() == 0

        received = await receiver.wait_for(lambda got: len(got) == 3)
    assert len({hook.headers["webhook-id"] for hook in received}) == 3
    for delivery_id in stored:
        await temporal_client.get_workflow_handle(delivery_workflow_id(delivery_id)).result()
