"""Waking webhook dispatchers on PostgreSQL: an INSERT into webhook_delivery of a
delivery due for any dispatcher sends a NOTIFY (a trigger, migration 0011), which
PostgreSQL delivers when the transaction commits and drops on rollback; dispatchers
LISTEN and claim at once instead of at their next poll. SQLite has no such thing and
needs none: there the dispatcher is in the writing process.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from ramp.config import libpq_database_url

logger = logging.getLogger("ramp.webhooks.wakeup")

CHANNEL = "ramp_webhook_deliveries"
RECONNECT_SECONDS = 1.0
# An idle listening connection whose peer vanished (a failover, a dropped NAT entry)
# would wait forever: TCP keepalives notice within about a minute, and it is opened
# again (libpq's parameters).
KEEPALIVES = {
    "keepalives": 1,
    "keepalives_idle": 30,
    "keepalives_interval": 10,
    "keepalives_count": 3,
}


async def listen(database_url: str, wake: Callable[[], None]) -> None:
    """Calls `wake` at each notification, until cancelled. A lost connection is opened
    again after a second; meanwhile the dispatcher's poll finds what is due."""
    # Imported here: only PostgreSQL deployments listen, and psycopg costs a process
    # on SQLite about 0.16 s of CPU at start.
    import psycopg
    from psycopg.conninfo import make_conninfo

    while True:
        try:
            async with await psycopg.AsyncConnection.connect(
                make_conninfo(libpq_database_url(database_url), **KEEPALIVES),
                autocommit=True,
            ) as connection:
                await connection.execute(f"LISTEN {CHANNEL}")
                wake()  # what was stored while nobody listened
                async for _ in connection.notifies():
                    wake()
        except Exception as error:  # the loop must outlive any one connection
            logger.warning("listening for webhook deliveries failed (%r); reconnecting", error)
        await asyncio.sleep(RECONNECT_SECONDS)
