"""The webhook log's retention: the housekeeping workflow deletes ended deliveries (with
their attempts) and their events once older than the retention period (30 days unless
RAMP_WEBHOOK_RETENTION_DAYS says otherwise), and keeps what is still on its way. Events
nobody subscribed to go after RAMP_EVENT_RETENTION_DAYS (30 by default).
"""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta

import pytest
from sqlalchemy import update
from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from temporalio.client import Client, WorkflowHistory
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.testing import ActivityEnvironment
from temporalio.worker import Replayer

from activities.webhooks import WebhookActivities
from ramp.config import Settings
from ramp.db.tables import WebhookAttempt, WebhookDelivery, WebhookEventRow
from ramp.db.types import utcnow
from ramp.housekeeping import NoncePurge, NoncePurgeResult, WebhookLogPurge
from ramp.webhooks.models import DeliveryPolicy, DeliveryStatus
from tests.helpers.projects import make_project
from tests.helpers.webhook_api import stored_delivery, stored_event
from tests.histories.record import HISTORIES
from worker import workflow_runner
from workflows.housekeeping import PurgeExpiredNonces


async def aged(
    db: AsyncSession,
    migrated: Settings,
    client: Client,
    created: datetime,
    status: DeliveryStatus,
) -> str:
    """A delivery created at `created`, in `status`, with one attempt logged."""
    delivery_id = await stored_delivery(
        db, migrated, "http://127.0.0.1:9/hooks", client, DeliveryPolicy()
    )
    await db.exec(
        update(WebhookDelivery)
        .where(col(WebhookDelivery.id) == delivery_id)
        .values(created_at=created, status=status, due_at=None, attempt_count=1)
    )
    delivery = await db.get(WebhookDelivery, delivery_id)
    assert delivery is not None
    await db.exec(
        update(WebhookEventRow)
        .where(col(WebhookEventRow.id) == delivery.event_id)
        .values(occurred_at=created)
    )
    db.add(
        WebhookAttempt(
            id=str(uuid.uuid4()),
            delivery_id=delivery_id,
            number=1,
            attempted_at=created,
            status_code=500,
            latency_ms=3,
        )
    )
    await db.commit()
    return delivery_id


@pytest.mark.usefixtures("worker")
async def test_ended_deliveries_and_their_events_are_purged_after_30_days(
    db: AsyncSession, migrated: Settings, temporal_client: Client
) -> None:
    now = utcnow()
    old = now - timedelta(days=31)
    purged = [
        await aged(db, migrated, temporal_client, old, status)
        for status in (DeliveryStatus.SUCCEEDED, DeliveryStatus.EXHAUSTED)
    ]
    on_its_way = await aged(db, migrated, temporal_client, old, DeliveryStatus.RETRYING)
    recent = await aged(
        db, migrated, temporal_client, now - timedelta(days=29), DeliveryStatus.SUCCEEDED
    )

    async def housekeeping() -> NoncePurgeResult:
        result: NoncePurgeResult = await temporal_client.execute_workflow(
            PurgeExpiredNonces.run,
            NoncePurge(),
            id=f"purge-{uuid.uuid4()}",
            task_queue=migrated.task_queue,
        )
        return result

    result = await housekeeping()
    assert (result.webhook_deliveries_purged, result.webhook_events_purged) == (2, 2)
    db.expire_all()
    left = set((await db.exec(select(WebhookDelivery.id))).all())
    assert left == {on_its_way, recent}
    attempts = set((await db.exec(select(WebhookAttempt.delivery_id))).all())
    assert attempts == {on_its_way, recent}
    events = (await db.exec(select(WebhookEventRow.id))).all()
    assert len(events) == 2
    assert not set(purged) & left
    # Nothing more to do the next time.
    again = await housekeeping()
    assert (again.webhook_deliveries_purged, again.webhook_events_purged) == (0, 0)


@pytest.mark.parametrize(
    "name",
    [
        # Recorded on the code before the webhook log's retention: two activities.
        "housekeeping_submissions",
        # Recorded on this code: three, behind the `purge-webhook-log` patch marker.
        "housekeeping_webhook_log",
    ],
)
async def test_housekeeping_runs_before_and_after_the_webhook_log_purge_replay(name: str) -> None:
    history = WorkflowHistory.from_json(f"replay-{name}", (HISTORIES / f"{name}.json").read_text())
    replayer = Replayer(
        workflows=[PurgeExpiredNonces],
        data_converter=pydantic_data_converter,
        workflow_runner=workflow_runner(),
    )
    result = await replayer.replay_workflow(history)
    assert result.replay_failure is None


@pytest.mark.usefixtures("worker")
async def test_events_nobody_subscribed_to_are_kept_30_days(
    db: AsyncSession, migrated: Settings, temporal_client: Client
) -> None:
    """Issue 29: every event is stored; one without deliveries goes after its own
    retention (RAMP_EVENT_RETENTION_DAYS)."""
    project = await make_project(db, migrated)
    now = utcnow()
    ages = {"old": now - timedelta(days=31), "recent": now - timedelta(days=29)}
    stored: dict[str, str] = {}
    for name, occurred in ages.items():
        assert await stored_event(db, project.project_id, DeliveryPolicy()) == []
        (event_id,) = (
            await db.exec(
                select(WebhookEventRow.id).where(
                    col(WebhookEventRow.id).not_in(list(stored.values()))
                )
            )
        ).all()
        await db.exec(
            update(WebhookEventRow)
            .where(col(WebhookEventRow.id) == event_id)
            .values(occurred_at=occurred)
        )
        await db.commit()
        stored[name] = event_id
    result: NoncePurgeResult = await temporal_client.execute_workflow(
        PurgeExpiredNonces.run,
        NoncePurge(),
        id=f"purge-{uuid.uuid4()}",
        task_queue=migrated.task_queue,
    )
    assert result.webhook_events_purged == 1
    db.expire_all()
    assert (await db.exec(select(WebhookEventRow.id))).all() == [stored["recent"]]


async def test_events_have_a_retention_of_their_own(
    db: AsyncSession, migrated: Settings, sessions: async_sessionmaker[AsyncSession]
) -> None:
    """RAMP_EVENT_RETENTION_DAYS, not the delivery log's, decides when an event without
    deliveries goes."""
    project = await make_project(db, migrated)
    now = utcnow()
    ages = {"two days": now - timedelta(days=2), "half a day": now - timedelta(hours=12)}
    for occurred in ages.values():
        await stored_event(db, project.project_id, DeliveryPolicy())
        await db.exec(
            update(WebhookEventRow)
            .where(col(WebhookEventRow.occurred_at) > now - timedelta(minutes=5))
            .values(occurred_at=occurred)
        )
        await db.commit()
    purging = WebhookActivities(
        sessions, retention=timedelta(days=30), event_retention=timedelta(days=1)
    )
    result = await ActivityEnvironment().run(purging.purge_webhook_log, WebhookLogPurge())
    assert (result.deliveries, result.events) == (0, 1)
    db.expire_all()
    left = (await db.exec(select(WebhookEventRow.occurred_at))).all()
    assert left == [ages["half a day"]]
