"""The worker's housekeeping: expired wallet nonces are purged by a workflow."""

from __future__ import annotations

import uuid
from datetime import timedelta

from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession
from temporalio.client import Client

import worker
from ramp.db.tables import WalletNonce
from ramp.db.types import utcnow
from ramp.housekeeping import SCHEDULE_ID, NoncePurge, NoncePurgeResult
from ramp.security.encryption import SecretBox
from ramp.temporal import TASK_QUEUE
from workflows.housekeeping import PurgeExpiredNonces


async def test_purge_deletes_only_dead_nonces(
    temporal_client: Client,
    sessions: async_sessionmaker[AsyncSession],
    secret_box: SecretBox,
    db: AsyncSession,
) -> None:
    now = utcnow()
    day = timedelta(days=1)
    db.add_all(
        [
            WalletNonce(nonce="fresh", created_at=now, expires_at=now + timedelta(minutes=5)),
            WalletNonce(nonce="expiredlongago", created_at=now - 3 * day, expires_at=now - 2 * day),
            WalletNonce(
                nonce="usedlongago",
                created_at=now - 3 * day,
                expires_at=now + day,
                consumed_at=now - 2 * day,
            ),
            WalletNonce(
                nonce="justexpired", created_at=now - day, expires_at=now - timedelta(hours=1)
            ),
        ]
    )
    await db.commit()
    async with worker.build_worker(temporal_client, sessions, secret_box):
        result = await temporal_client.execute_workflow(
            PurgeExpiredNonces.run,
            NoncePurge(retention_seconds=24 * 3600),
            id=f"purge-{uuid.uuid4()}",
            task_queue=TASK_QUEUE,
        )
    assert result == NoncePurgeResult(deleted=2)
    left = set((await db.exec(select(WalletNonce.nonce))).all())
    assert left == {"fresh", "justexpired"}


async def test_worker_creates_the_housekeeping_schedule_once(temporal_client: Client) -> None:
    await worker.ensure_schedules(temporal_client)
    await worker.ensure_schedules(temporal_client)  # a second worker start must not fail
    description = await temporal_client.get_schedule_handle(SCHEDULE_ID).describe()
    assert description.schedule.spec.intervals[0].every == timedelta(minutes=15)
    await temporal_client.get_schedule_handle(SCHEDULE_ID).delete()
