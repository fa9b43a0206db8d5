"""The delivery dispatcher: drains the webhook outbox, inside each worker process or in
processes of its own (webhook_dispatcher.py; PostgreSQL only).

`record_intent` stores an intent's events and their deliveries in the projection's
transaction. When this process's dispatcher has room, the deliveries are stored already
leased to it (`reserve`) and handed over after the commit (`hand_over`): their first
attempts go at once, with no database round trip of their own. Otherwise they are
stored due now and the dispatcher, woken, claims them (ramp/webhooks/ledger.py). It
also polls, for deliveries stored by another process (a redelivery from the API, a
worker that died) and for retries as they come due.

Each attempt runs on a task of its own, and its POST goes through a `Sender`: from this
process, or (the worker's dispatcher) from a child process of its own
(ramp/webhooks/sender_process.py). Outcomes are recorded in batches. Bounds keep
one endpoint from holding up the rest: at most `per_endpoint` attempts per endpoint and
`max_in_flight` in all are under way in a process; what waits for its endpoint waits in
that endpoint's queue, and an endpoint with 4 times its bound under way and queued is
left out of the next claims, so a slow or dead endpoint's backlog waits behind itself
only. A queued delivery whose lease would lapse before its attempt ends is dropped from
the queue: once the lease lapses, a dispatcher claims it again, so no delivery is ever
attempted twice at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections import deque
from collections.abc import Callable, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from opentelemetry.trace import SpanKind
from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.config import Settings
from ramp.db.types import utcnow
from ramp.observability import metrics
from ramp.observability.tracing import tracer, tracing_on
from ramp.security.encryption import SecretBox
from ramp.webhooks.keys import ProjectKeys, SecretCache
from ramp.webhooks.ledger import (
    DISABLE_AFTER,
    Attempted,
    Claimed,
    DeliveryLedger,
    lease_seconds,
    outcome,
)
from ramp.webhooks.models import DeliveryPolicy
from ramp.webhooks.sender_process import SenderGone
from ramp.webhooks.sending import Sender, Sent, inline_sender

logger = logging.getLogger("ramp.webhooks.dispatcher")

POLL_SECONDS = 0.5
MAX_IN_FLIGHT = 64
PER_ENDPOINT = 8
# Deliveries waiting in this process for their endpoint; past this, new ones are stored
# due and claimed as room comes.
MAX_QUEUED = 512
# ...and per endpoint, this many times its bound of attempts at once.
QUEUE_PER_ENDPOINT = 4
# Attempts recorded per transaction.
RECORD_BATCH = 200
# How long the first outcome of a batch waits for others before it is recorded (well
# within the lease's margin).
RECORD_LINGER_SECONDS = 0.25
# On shutdown, attempts under way get this long to finish; the rest are made again by
# whichever dispatcher takes them once their lease lapses.
SHUTDOWN_GRACE_SECONDS = 5.0


def delivery_policy(settings: Settings) -> DeliveryPolicy:
    return DeliveryPolicy(
        retry_delays_seconds=settings.webhook_retry_delays_seconds,
        timeout_seconds=settings.webhook_timeout_seconds,
    )


@dataclass(frozen=True)
class Reservation:
    """A lease for deliveries being stored: they are this dispatcher's from the commit."""

    token: str
    lease_until: datetime


class DeliveryDispatcher:
    def __init__(
        self,
        db: async_sessionmaker[AsyncSession],
        secret_box: SecretBox,
        policy: DeliveryPolicy,
        *,
        poll_seconds: float = POLL_SECONDS,
        max_in_flight: int = MAX_IN_FLIGHT,
        per_endpoint: int = PER_ENDPOINT,
        disable_after: timedelta = DISABLE_AFTER,
        clock: Callable[[], datetime] = utcnow,
        writer: AbstractAsyncContextManager[Any] | None = None,
        record_linger: float = RECORD_LINGER_SECONDS,
        sending: Callable[[int], AbstractAsyncContextManager[Sender]] = inline_sender,
    ) -> None:
        self._ledger = DeliveryLedger(
            db,
            policy,
            clock=clock,
            writer=writer or contextlib.nullcontext(),
            disable_after=disable_after,
        )
        self.policy = policy
        self._clock = clock
        self._poll = poll_seconds
        self._linger = record_linger
        self._max_in_flight = max_in_flight
        self._per_endpoint = per_endpoint
        self._lease = timedelta(seconds=lease_seconds(policy))
        self._wake = asyncio.Event()
        self._to_record = asyncio.Event()
        self._attempts: set[asyncio.Task[None]] = set()
        self._by_endpoint: dict[str, int] = {}
        self._queues: dict[str, deque[Claimed]] = {}
        self._queued = 0
        self._secrets = SecretCache(secret_box)
        self._key_reads: dict[str, asyncio.Future[ProjectKeys | None]] = {}
        self._done: list[Attempted] = []
        self._backlog = False
        self._running = False
        self._closing = False
        self._sending = sending
        self._sender: Sender | None = None

    def wake(self) -> None:
        """Deliveries are due now (called after the commit that stored them)."""
        self._wake.set()

    def reserve(self) -> Reservation | None:
        """A lease for deliveries about to be stored, if this dispatcher runs and has room
        to queue them; None: store them due, to be claimed."""
        if not self._running or self._closing or self._queued >= MAX_QUEUED:
            return None
        return Reservation(str(uuid.uuid4()), self._clock() + self._lease)

    def has_room(self, endpoint_id: str) -> bool:
        """Whether a delivery to the endpoint stored now would be attempted soon here
        (its attempts under way and queued are few)."""
        waiting = self._by_endpoint.get(endpoint_id, 0) + len(self._queues.get(endpoint_id, ()))
        return waiting < QUEUE_PER_ENDPOINT * self._per_endpoint

    def hand_over(self, claims: Sequence[Claimed]) -> None:
        """Deliveries stored under a reservation, committed: attempted as room allows."""
        for claim in claims:
            self._queue(claim)

    @property
    def in_flight(self) -> int:
        return len(self._attempts)

    async def run(self, stop: asyncio.Event) -> None:
        """Dispatches until `stop` is set; a failed round (the database away) is logged
        and tried again at the next poll."""
        async with self._sending(self._max_in_flight) as sender:
            self._sender = sender
            self._running = True
            recorder = asyncio.create_task(self._record_loop())
            stopping = asyncio.create_task(stop.wait())
            try:
                while not stop.is_set():
                    try:
                        again = await self.dispatch_once()
                    except Exception as error:  # the loop must outlive any one round
                        logger.warning("webhook dispatch failed (%s); trying again", error)
                        again = False
                    if again:
                        continue
                    waking = asyncio.create_task(self._wake.wait())
                    await asyncio.wait(
                        {waking, stopping}, timeout=self._poll, return_when="FIRST_COMPLETED"
                    )
                    waking.cancel()
                    self._wake.clear()
            finally:
                stopping.cancel()
                await self._finish(recorder)

    async def dispatch_once(self) -> bool:
        """Claims what is due, within the bounds, and starts the attempts; True when more
        is due and there is room for it now."""
        claimed = await self._claim_round()
        return claimed > 0 and self._backlog and len(self._attempts) < self._max_in_flight

    async def _claim_round(self) -> int:
        free = self._max_in_flight - len(self._attempts)
        if free <= 0:
            self._backlog = True
            return 0
        if not await self._ledger.any_due():
            self._backlog = False
            return 0
        # An endpoint takes what its queue holds, as a hand-over would: claiming only what
        # can start at once cost a claim (a write) per few deliveries, and a dispatcher
        # process fell behind (measured; docs/decisions.md, "Issue 16"). A slow
        # endpoint's queued claims may then wait until their leases are too short to
        # start: they are dropped and claimed again once the lease lapses. In all, no
        # more than there is room to attempt: other dispatchers share a backlog.
        capacity = QUEUE_PER_ENDPOINT * self._per_endpoint
        room = {endpoint: capacity - count for endpoint, count in self._by_endpoint.items()}
        for endpoint, queue in self._queues.items():
            room[endpoint] = room.get(endpoint, capacity) - len(queue)
        claimed, self._backlog = await self._ledger.claim(free, room, capacity)
        for claim in claimed:
            self._queue(claim)
        return len(claimed)

    async def drain(self) -> int:
        """Without the loop: makes every attempt due now (and those that come due while
        it runs), waits for them and records them; returns how many were made. For a
        one-off pass (tests, an operator), beside or instead of `run`."""
        if self._sender is not None:
            return await self._drain()
        async with self._sending(self._max_in_flight) as sender:
            self._sender = sender
            try:
                return await self._drain()
            finally:
                self._sender = None

    async def _drain(self) -> int:
        made = 0
        while True:
            made += await self._claim_round()
            if not self._attempts:
                break
            await asyncio.wait(set(self._attempts), return_when="FIRST_COMPLETED")
            await self._record_all()
        await self._record_all()
        return made

    # --- attempts ------------------------------------------------------------------

    def _queue(self, claim: Claimed) -> None:
        self._queues.setdefault(claim.endpoint_id, deque()).append(claim)
        self._queued += 1
        # Started now: as the transaction that stored or claimed it (and read its
        # project's keys) commits.
        self._pump(claim.endpoint_id, keys_fresh=True)

    def _pump(self, endpoint_id: str, *, keys_fresh: bool = False) -> None:
        """Starts the endpoint's queued attempts while its bound and the global one allow;
        unless `keys_fresh`, they read their project's keys again when they start."""
        queue = self._queues.get(endpoint_id)
        timeout = timedelta(seconds=self.policy.timeout_seconds)
        while (
            queue
            and self._by_endpoint.get(endpoint_id, 0) < self._per_endpoint
            and len(self._attempts) < self._max_in_flight
        ):
            claim = queue.popleft()
            self._queued -= 1
            if self._clock() + timeout >= claim.lease_until:
                # Waited too long: its lease could lapse mid-attempt. Claimed again later.
                continue
            self._start(claim, keys_fresh)
        if queue is not None and not queue:
            del self._queues[endpoint_id]

    def _start(self, claim: Claimed, keys_fresh: bool) -> None:
        self._by_endpoint[claim.endpoint_id] = self._by_endpoint.get(claim.endpoint_id, 0) + 1
        task = asyncio.create_task(self._attempt(claim, keys_fresh))
        self._attempts.add(task)
        task.add_done_callback(lambda done: self._ended(claim, done))

    async def _attempt(self, claim: Claimed, keys_fresh: bool) -> None:
        keys = claim.keys if keys_fresh else await self._keys(claim.project_id)
        if keys is None:
            return  # the project is gone: its lease lapses, and nothing is sent
        if tracing_on():
            with tracer().start_as_current_span(
                "webhook delivery attempt",
                kind=SpanKind.PRODUCER,
                attributes={
                    "ramp.webhook.delivery_id": claim.delivery_id,
                    "ramp.webhook.event_type": str(claim.event.event_type),
                    "ramp.webhook.attempt": claim.number,
                },
            ):
                sent = await self._send(claim, keys)
        else:
            sent = await self._send(claim, keys)
        if sent is None:
            metrics.WEBHOOK_ATTEMPTS.labels("lost").inc()
            return
        attempted = Attempted(claim, sent)
        moved_to = outcome(attempted).value.lower()
        metrics.WEBHOOK_ATTEMPTS.labels(moved_to).inc()
        # With the request id of the work that stored it, when handed over in its context.
        logger.debug(
            "webhook attempt %d of delivery %s: %s (%s)",
            claim.number,
            claim.delivery_id,
            moved_to,
            sent.error or sent.status_code,
        )
        metrics.WEBHOOK_ATTEMPT_DURATION.observe(sent.latency_ms / 1000)
        self._done.append(attempted)
        self._to_record.set()

    async def _send(self, claim: Claimed, keys: ProjectKeys) -> Sent | None:
        """The attempt's outcome; None if the sender process died under it twice, or
        once too late to try again within the lease (it lapses, and the delivery is
        claimed again: at least once)."""
        assert self._sender is not None
        timeout = self.policy.timeout_seconds
        for _ in range(2):
            now = self._clock()
            if now + timedelta(seconds=timeout) >= claim.lease_until:
                return None
            try:
                return await self._sender.send(
                    claim.url, claim.event, self._secrets.signer(keys, now), timeout, now
                )
            except SenderGone as gone:
                logger.warning("webhook attempt of delivery %s lost: %s", claim.delivery_id, gone)
        return None

    async def _keys(self, project_id: str) -> ProjectKeys | None:
        """The project's keys as stored now, for an attempt that waited for its endpoint
        (a rotation meanwhile signs it): attempts that start together share one read."""
        read = self._key_reads.get(project_id)
        if read is None:
            read = asyncio.ensure_future(self._ledger.keys(project_id))
            self._key_reads[project_id] = read
            read.add_done_callback(lambda done: self._read_done(project_id, done))
        return await asyncio.shield(read)

    def _read_done(self, project_id: str, read: asyncio.Future[ProjectKeys | None]) -> None:
        if self._key_reads.get(project_id) is read:
            del self._key_reads[project_id]

    def _ended(self, claim: Claimed, task: asyncio.Task[None]) -> None:
        self._attempts.discard(task)
        left = self._by_endpoint[claim.endpoint_id] - 1
        if left:
            self._by_endpoint[claim.endpoint_id] = left
        else:
            del self._by_endpoint[claim.endpoint_id]
        if not task.cancelled() and task.exception() is not None:
            logger.error("webhook attempt failed", exc_info=task.exception())
        self._pump(claim.endpoint_id)
        for endpoint_id in list(self._queues):
            self._pump(endpoint_id)
        if self._backlog:
            # Room again for what was left due.
            self._wake.set()

    # --- recording -----------------------------------------------------------------

    async def _record_loop(self) -> None:
        while not (self._closing and not self._done):
            await self._to_record.wait()
            if not self._closing and len(self._done) < RECORD_BATCH:
                # Let the outcomes of a few more attempts join the transaction: one per
                # intent's worth of attempts costs the worker more than the intent itself
                # when intents come one at a time (and holds SQLite's write lock as often).
                await asyncio.sleep(self._linger)
            self._to_record.clear()
            await self._record_all()

    async def _record_all(self) -> None:
        while self._done:
            batch = self._done[:RECORD_BATCH]
            try:
                await self._ledger.record(batch)
            except Exception as error:
                # Kept for the next try; if this process dies first, the leases lapse
                # and the attempts are made again.
                logger.warning("recording webhook attempts failed (%s); retrying", error)
                await asyncio.sleep(self._poll)
                continue
            del self._done[: len(batch)]

    async def _finish(self, recorder: asyncio.Task[None]) -> None:
        self._running = False
        self._queues.clear()
        self._queued = 0
        if self._attempts:
            await asyncio.wait(set(self._attempts), timeout=SHUTDOWN_GRACE_SECONDS)
        for task in list(self._attempts):
            task.cancel()
        await asyncio.gather(*self._attempts, return_exceptions=True)
        # What finished is recorded before leaving, if the database lets it in time (the
        # leases cover the rest).
        self._closing = True
        self._to_record.set()
        with contextlib.suppress(TimeoutError, asyncio.CancelledError):
            await asyncio.wait_for(recorder, timeout=SHUTDOWN_GRACE_SECONDS)
        self._sender = None
