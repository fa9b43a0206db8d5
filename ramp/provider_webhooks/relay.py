"""The worker's relay of stored provider events: what the API could not signal (Temporal
down, a crash after the answer, a transfer event ahead of its intent's record)."""

from __future__ import annotations

import asyncio
import contextlib
import logging

from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.intents.workflow_client import IntentWorkflowClient
from ramp.provider_webhooks.service import relay
from ramp.security.encryption import SecretBox

log = logging.getLogger(__name__)

RELAY_INTERVAL_SECONDS = 5.0


async def run_relay(
    db: async_sessionmaker[AsyncSession],
    workflows: IntentWorkflowClient,
    secret_box: SecretBox,
    stop: asyncio.Event,
    interval: float = RELAY_INTERVAL_SECONDS,
) -> None:
    while not stop.is_set():
        try:
            await relay(db, workflows, secret_box)
        except Exception as error:  # the database away: next round
            log.warning("provider event relay failed: %s", type(error).__name__)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), timeout=interval)
