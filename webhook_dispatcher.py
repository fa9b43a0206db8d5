"""The webhook dispatcher as a process of its own: `ramp dispatcher`.

With `RAMP_WEBHOOK_DISPATCH=separate` (PostgreSQL only), workers only store deliveries
(in the projection's transaction, due at once, with a NOTIFY) and processes started
from here make them: woken by the commit (LISTEN), they claim at once; a poll every
`RAMP_WEBHOOK_POLL_MS` finds retries as they come due, and anything stored while the
listening connection was down. Sending, signing and recording the attempts then
cost the worker nothing: a worker process runs on one core, and on a small machine its
CPU bounds the intents per second (docs/decisions.md, "Issue 16"). Several dispatchers
may run at once (on PostgreSQL, on several machines): claims are leased
(ramp/webhooks/ledger.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import sys

from ramp.config import Settings
from ramp.db.engine import create_engine, session_factory, sqlite_writer
from ramp.observability.backlog import sample_backlogs_until
from ramp.observability.process import configure_process_logging, observe_process
from ramp.security.encryption import SecretBox
from ramp.settings_loader import load_settings
from ramp.webhooks import wakeup
from ramp.webhooks.dispatcher import DeliveryDispatcher, delivery_policy

logger = logging.getLogger("ramp.dispatcher")

# On SQLite a second writing process waits for the one write lock behind the worker's
# transactions, seconds at a time under load.
NEEDS_POSTGRES = (
    "the webhook dispatcher runs as a process of its own only on PostgreSQL "
    "(DATABASE_URL=postgresql://...); on SQLite the worker sends the webhooks"
)


async def run(settings: Settings) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    metrics = observe_process(settings, "ramp-dispatcher")
    engine = create_engine(settings, pre_ping=False)
    db = session_factory(engine)
    dispatcher = DeliveryDispatcher(
        db,
        SecretBox.from_settings(settings),
        delivery_policy(settings),
        poll_seconds=settings.webhook_poll_ms / 1000,
        writer=sqlite_writer(db),
    )
    # Woken by the commits that store deliveries; the poll is for retries coming due.
    listening = asyncio.create_task(wakeup.listen(settings.database_url, dispatcher.wake))
    logger.info("webhook dispatcher listening, polling every %g ms", settings.webhook_poll_ms)
    sampling = asyncio.create_task(sample_backlogs_until(db, stop)) if metrics is not None else None
    try:
        await dispatcher.run(stop)
    finally:
        if sampling is not None:
            await sampling
        listening.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await listening
        logger.info("webhook dispatcher stopped")
        await engine.dispose()
        if metrics is not None:
            metrics.shutdown()


def main() -> None:
    settings = load_settings()
    if not settings.on_postgresql:
        sys.exit(f"Error: {NEEDS_POSTGRES}")
    configure_process_logging(settings)
    asyncio.run(run(settings))


if __name__ == "__main__":
    main()
