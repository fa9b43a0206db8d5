"""The outbox sweeper: no stored delivery is left without a workflow to attempt it.

`record_intent` commits an event's deliveries, then starts one delivery workflow for
each. A crash (or Temporal being unreachable) between the two would leave a delivery
`PENDING` that nothing attempts. The sweeper runs in every worker: every few seconds it
lists the deliveries still `PENDING` with no attempt made, older than a grace period,
and starts their workflows again. The workflow id is derived from the delivery and
never reused, so a delivery whose workflow exists is not started twice (the start is
refused, which is the common, harmless case).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Sequence
from datetime import datetime, timedelta

from sqlalchemy import and_, or_
from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from temporalio.client import Client

from ramp import temporal
from ramp.db.tables import WebhookDelivery
from ramp.db.types import utcnow
from ramp.webhooks.dispatch import start_delivery
from ramp.webhooks.models import (
    REDELIVERY_POLICY_DELAYS,
    DeliveryOrder,
    DeliveryPolicy,
    DeliveryStatus,
)

logger = logging.getLogger("ramp.webhooks.sweeper")

SWEEP_INTERVAL_SECONDS = 5.0
# A delivery younger than this is most likely being started right now by its writer.
GRACE_SECONDS = 5.0
# Rows per sweep; a cursor walks a longer backlog over several sweeps.
BATCH_SIZE = 200


class OutboxSweeper:
    def __init__(
        self,
        db: async_sessionmaker[AsyncSession],
        client: Client,
        policy: DeliveryPolicy,
        *,
        task_queue: str = temporal.TASK_QUEUE,
        interval_seconds: float = SWEEP_INTERVAL_SECONDS,
        grace_seconds: float = GRACE_SECONDS,
        batch_size: int = BATCH_SIZE,
    ) -> None:
        self._db = db
        self._client = client
        self._task_queue = task_queue
        self._policy = policy
        self._redelivery_policy = DeliveryPolicy(
            retry_delays_seconds=REDELIVERY_POLICY_DELAYS, timeout_seconds=policy.timeout_seconds
        )
        self._interval = interval_seconds
        self._grace = timedelta(seconds=grace_seconds)
        self._batch_size = batch_size
        self._after: tuple[datetime, str] | None = None

    async def run(self, stop: asyncio.Event) -> None:
        """Sweeps until `stop` is set; a failed sweep (Temporal or the database away) is
        logged and tried again at the next tick."""
        while not stop.is_set():
            try:
                await self.sweep_once()
            except Exception as error:  # the loop must outlive any one sweep
                logger.warning("outbox sweep failed (%s); trying again", type(error).__name__)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), timeout=self._interval)

    async def sweep_once(self) -> int:
        """Starts the workflow of each unattempted delivery in the next batch; returns how
        many were started (not counting those whose workflow already existed)."""
        rows = await self._unattempted()
        # Past the batch's last row next time; back to the start once the end is reached.
        self._after = (rows[-1][1], rows[-1][0]) if len(rows) == self._batch_size else None
        started = await asyncio.gather(
            *(
                start_delivery(
                    self._client,
                    DeliveryOrder(
                        delivery_id=id_,
                        policy=self._policy if redelivery_of is None else self._redelivery_policy,
                    ),
                    self._task_queue,
                )
                for id_, _, redelivery_of in rows
            )
        )
        count = sum(started)
        if count:
            logger.warning("outbox sweep started %d delivery workflow(s) that were missing", count)
        return count

    async def _unattempted(self) -> Sequence[tuple[str, datetime, str | None]]:
        query = select(
            WebhookDelivery.id, WebhookDelivery.created_at, WebhookDelivery.redelivery_of
        ).where(
            WebhookDelivery.status == DeliveryStatus.PENDING,
            WebhookDelivery.attempt_count == 0,
            col(WebhookDelivery.created_at) <= utcnow() - self._grace,
        )
        if self._after is not None:
            at, id_ = self._after
            query = query.where(
                or_(
                    col(WebhookDelivery.created_at) > at,
                    and_(col(WebhookDelivery.created_at) == at, col(WebhookDelivery.id) > id_),
                )
            )
        query = query.order_by(col(WebhookDelivery.created_at), col(WebhookDelivery.id)).limit(
            self._batch_size
        )
        async with self._db() as session:
            return (await session.exec(query)).all()
