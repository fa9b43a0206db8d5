"""Sandbox clocks, the use case: `POST /v1/sandbox/intents/{id}/advance` moves one
intent's durable timers forward, and nothing of any other intent or project.

Two parts, since the timers live in two places: the intent's workflow measures its
expiry and provider polls on its own clock, moved by the `advance_clock` update
(ramp/intents/clock.py); the webhook retries of the intent's events are outbox rows,
made due sooner in the database (ramp/webhooks/clock.py). An intent whose workflow has
ended still has its webhook retries moved.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.db.engine import begin_write
from ramp.db.tables import IntentRow
from ramp.errors import NotFound
from ramp.intents.clock import ClockAdvance
from ramp.intents.workflow_client import IntentWorkflowClient, WorkflowEnded
from ramp.webhooks.clock import advance_deliveries


@dataclass(frozen=True)
class ClockMoved:
    intent_id: str
    seconds: int
    # The intent's clock ahead of the real one, all advances together; None once its
    # workflow has ended (no timer left to move).
    offset_seconds: float | None
    # Webhook deliveries of the intent's events made due sooner.
    deliveries: int


class SandboxClock:
    def __init__(
        self, db: async_sessionmaker[AsyncSession], workflows: IntentWorkflowClient
    ) -> None:
        self._db = db
        self._workflows = workflows

    async def advance(self, project_id: str, intent_id: str, seconds: int) -> ClockMoved:
        """Moves the project's intent `seconds` forward; NotFound for another project's.
        CLOCK_NOT_MOVABLE (Conflict) for an intent created before sandbox clocks."""
        advance = ClockAdvance(seconds=seconds)
        async with self._db() as session:
            intent = await session.get(IntentRow, intent_id)
        if intent is None or intent.project_id != project_id:
            raise NotFound("intent")
        try:
            offset: float | None = (
                await self._workflows.advance_clock(intent_id, advance)
            ).offset_seconds
        except WorkflowEnded:
            offset = None
        async with self._db() as session:
            await begin_write(session)
            moved = await advance_deliveries(session, project_id, intent_id, seconds)
            await session.commit()
        return ClockMoved(intent_id, seconds, offset, moved)
