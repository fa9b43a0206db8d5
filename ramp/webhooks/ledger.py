"""The dispatcher's two database steps: claiming due deliveries, recording attempts.

A delivery is due when its `due_at` has passed. Claiming pushes `due_at` past the
attempt's lease (its timeout plus a margin) and stamps a `lease_token`, in one write
transaction: on PostgreSQL the rows are read `FOR UPDATE SKIP LOCKED`, so dispatchers in
several processes never take the same delivery; on SQLite the transaction holds the
database's only write lock. A dispatcher that dies mid-attempt leaves the delivery
leased; once the lease lapses any dispatcher takes it again (at least once).

Recording logs the attempts of a batch in one transaction and moves each delivery on:
to its final status, or back to due at its next attempt on the retry schedule. It also
keeps each endpoint's health: `410 Gone`, or failing attempts for `disable_after`
straight, disables the endpoint and cancels its pending deliveries.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable, Collection, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, TypeVar

from sqlalchemy import bindparam, case, insert, or_
from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel import col, select, update
from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.db.engine import begin_write
from ramp.db.tables import (
    Project,
    WebhookAttempt,
    WebhookDelivery,
    WebhookEndpoint,
    WebhookEventRow,
)
from ramp.timestamps import format_timestamp
from ramp.webhooks.endpoints import cancel_pending
from ramp.webhooks.keys import ProjectKeys, project_keys, with_keys
from ramp.webhooks.models import DeliveryPolicy, DeliveryStatus
from ramp.webhooks.sending import Outgoing, Sent

logger = logging.getLogger("ramp.webhooks.ledger")

# An endpoint whose every attempt failed for this long is disabled.
DISABLE_AFTER = timedelta(days=3)
# The lease outlasts the attempt's timeout by this much: time to record it.
LEASE_MARGIN_SECONDS = 10.0


@dataclass(frozen=True)
class Claimed:
    """A delivery this dispatcher owns until it records the attempt or the lease lapses."""

    delivery_id: str
    endpoint_id: str
    project_id: str
    number: int
    url: str
    event: Outgoing
    token: str
    lease_until: datetime
    # The project's signing keys, read in the transaction that stored or claimed the
    # delivery: they sign an attempt that starts as it commits (one that waited for
    # its endpoint reads them again).
    keys: ProjectKeys
    # Seconds until the next attempt if this one fails; None: it is the last.
    retry_in: float | None


@dataclass(frozen=True)
class Attempted:
    claim: Claimed
    sent: Sent


def outcome(attempted: Attempted) -> DeliveryStatus:
    sent = attempted.sent
    if sent.acknowledged:
        return DeliveryStatus.SUCCEEDED
    if sent.status_code == 410:
        return DeliveryStatus.GONE
    if attempted.claim.retry_in is None:
        return DeliveryStatus.EXHAUSTED
    return DeliveryStatus.RETRYING


def retry_in(policy: DeliveryPolicy, number: int, max_attempts: int) -> float | None:
    """The wait after attempt `number` fails; None if it is the last."""
    delays = policy.retry_delays_seconds
    if number >= max_attempts or number > len(delays):
        return None
    return delays[number - 1]


def lease_seconds(policy: DeliveryPolicy) -> float:
    return policy.timeout_seconds + LEASE_MARGIN_SECONDS


class DeliveryLedger:
    def __init__(
        self,
        db: async_sessionmaker[AsyncSession],
        policy: DeliveryPolicy,
        *,
        clock: Callable[[], datetime],
        writer: AbstractAsyncContextManager[Any],
        disable_after: timedelta = DISABLE_AFTER,
    ) -> None:
        self._db = db
        self._policy = policy
        self._clock = clock
        self._writer = writer
        self._disable_after = disable_after
        self._lease_length = timedelta(seconds=lease_seconds(policy))

    async def any_due(self) -> bool:
        """A read, before taking the write lock (SQLite's is the whole database's)."""
        async with self._db() as session:
            found = await session.exec(
                select(WebhookDelivery.id)
                .where(col(WebhookDelivery.due_at) <= self._clock())
                .limit(1)
            )
            return found.first() is not None

    async def keys(self, project_id: str) -> ProjectKeys | None:
        """The project's signing keys as stored now; None if it is gone."""
        async with self._db() as session:
            row = (await session.exec(with_keys().where(col(Project.id) == project_id))).first()
            return None if row is None else project_keys(row)

    async def claim(
        self, limit: int, room: Mapping[str, int], per_endpoint: int
    ) -> tuple[list[Claimed], bool]:
        """Up to `limit` due deliveries, oldest first, at most `room[endpoint]` (else
        `per_endpoint`) per endpoint; and whether more may be due."""
        now = self._clock()
        full = [endpoint for endpoint, free in room.items() if free <= 0]
        async with self._writer, self._db() as session:
            await begin_write(session)
            query = select(WebhookDelivery).where(col(WebhookDelivery.due_at) <= now)
            if full:
                # Not behind a busy endpoint's backlog: other endpoints go first.
                query = query.where(col(WebhookDelivery.endpoint_id).not_in(full))
            rows = (
                await session.exec(
                    query.order_by(col(WebhookDelivery.due_at))
                    .limit(limit)
                    .with_for_update(skip_locked=True)
                )
            ).all()
            free = dict(room)
            taken: list[WebhookDelivery] = []
            for row in rows:
                left = free.get(row.endpoint_id, per_endpoint)
                if left > 0:
                    free[row.endpoint_id] = left - 1
                    taken.append(row)
            more = len(rows) == limit or len(taken) < len(rows)
            if not taken:
                await session.rollback()
                return [], more
            claimed = await self._lease_rows(session, taken, now)
            await session.commit()
        return claimed, more

    async def _lease_rows(
        self, session: AsyncSession, rows: Sequence[WebhookDelivery], now: datetime
    ) -> list[Claimed]:
        # Each endpoint with its project's signing keys (a missing project: no endpoint).
        endpoints = {
            row[0]: (row[1], row[2], project_keys(row))
            for row in (
                await session.exec(
                    with_keys(
                        col(WebhookEndpoint.id),
                        col(WebhookEndpoint.url),
                        col(WebhookEndpoint.enabled),
                    )
                    .join(Project, col(Project.id) == col(WebhookEndpoint.project_id))
                    .where(col(WebhookEndpoint.id).in_({r.endpoint_id for r in rows}))
                )
            ).all()
        }
        events = {
            id_: Outgoing(id_, event_type, body.encode())
            for id_, event_type, body in (
                await session.exec(
                    select(
                        WebhookEventRow.id, WebhookEventRow.event_type, WebhookEventRow.body
                    ).where(col(WebhookEventRow.id).in_({r.event_id for r in rows}))
                )
            ).all()
        }
        token = str(uuid.uuid4())
        lease_until = now + self._lease_length
        claimed: list[Claimed] = []
        lost: list[str] = []
        for row in rows:
            url, enabled, keys = endpoints.get(row.endpoint_id, ("", False, None))
            event = events.get(row.event_id)
            if not enabled or keys is None:
                # Disabled or removed since the delivery was stored.
                await cancel_pending(session, row.endpoint_id)
                continue
            if event is None:
                logger.warning("delivery %s lost its event", row.id)
                lost.append(row.id)
                continue
            number = row.attempt_count + 1
            claimed.append(
                Claimed(
                    delivery_id=row.id,
                    endpoint_id=row.endpoint_id,
                    project_id=row.project_id,
                    number=number,
                    # The endpoint's URL as it is now: a project that fixes a wrong URL
                    # gets the pending retries there.
                    url=url,
                    event=event,
                    token=token,
                    lease_until=lease_until,
                    keys=keys,
                    retry_in=retry_in(self._policy, number, row.max_attempts),
                )
            )
        if lost:
            await session.exec(
                update(WebhookDelivery)
                .where(col(WebhookDelivery.id).in_(lost))
                .values(status=DeliveryStatus.CANCELLED, due_at=None, lease_token=None)
            )
        if claimed:
            await session.exec(
                update(WebhookDelivery)
                .where(col(WebhookDelivery.id).in_([c.delivery_id for c in claimed]))
                .values(due_at=lease_until, lease_token=token)
            )
        return claimed

    async def record(self, batch: Sequence[Attempted]) -> None:
        """Logs each attempt and moves its delivery on, in one transaction of a few
        statements whatever the batch's size."""
        if not batch:
            return
        now = self._clock()
        async with self._writer, self._db() as session:
            await begin_write(session)
            stored = set(
                (
                    await session.exec(
                        select(WebhookDelivery.id)
                        .where(col(WebhookDelivery.id).in_({a.claim.delivery_id for a in batch}))
                        .with_for_update()
                    )
                ).all()
            )
            # A delivery deleted meanwhile (its retention, an operator) has nothing to log.
            attempts = sorted(
                (a for a in batch if a.claim.delivery_id in stored),
                key=lambda a: a.sent.attempted_at,
            )
            if not attempts:
                await session.rollback()
                return
            health = {
                id_: _Health(enabled, failing_since)
                for id_, enabled, failing_since in (
                    await session.exec(
                        select(
                            WebhookEndpoint.id,
                            WebhookEndpoint.enabled,
                            WebhookEndpoint.failing_since,
                        )
                        .where(col(WebhookEndpoint.id).in_({a.claim.endpoint_id for a in attempts}))
                        .with_for_update()
                    )
                ).all()
            }
            await session.exec(
                insert(_ATTEMPTS),
                params=[
                    {
                        "id": str(uuid.uuid4()),
                        "delivery_id": a.claim.delivery_id,
                        "number": a.claim.number,
                        "attempted_at": a.sent.attempted_at,
                        "status_code": a.sent.status_code,
                        "latency_ms": a.sent.latency_ms,
                        "error": a.sent.error,
                    }
                    for a in attempts
                ],
            )
            await session.exec(_COUNT, params=[_counted(a, now) for a in attempts])
            # Moved on only under the claim that made the attempt: a delivery cancelled
            # meanwhile stays cancelled; one whose lease lapsed is the newer claim's.
            await session.exec(_MOVE, params=[self._moved(a, now) for a in attempts])
            for attempted in attempts:
                endpoint = health.get(attempted.claim.endpoint_id)
                if endpoint is not None:
                    self._keep_health(endpoint, attempted)
            for endpoint_id, endpoint in health.items():
                if endpoint.changed:
                    await session.exec(
                        update(_ENDPOINTS)
                        .where(_ENDPOINTS.c.id == endpoint_id)
                        .values(endpoint.values(now))
                    )
                if endpoint.disabled_reason is not None:
                    await cancel_pending(session, endpoint_id)
            await session.commit()

    def _moved(self, attempted: Attempted, now: datetime) -> dict[str, Any]:
        claim, sent = attempted.claim, attempted.sent
        status = outcome(attempted)
        next_at = (
            now + timedelta(seconds=claim.retry_in)
            if status is DeliveryStatus.RETRYING and claim.retry_in is not None
            else None
        )
        return {
            "m_id": claim.delivery_id,
            "m_token": claim.token,
            "url": claim.url,
            "status": status.value,
            "last_status_code": sent.status_code,
            "last_error": sent.error,
            "next_attempt_at": next_at,
            "due_at": next_at,
        }

    def _keep_health(self, endpoint: _Health, attempted: Attempted) -> None:
        """The endpoint after an attempt: healthy again, failing since when, or disabled
        (410 Gone, or every attempt failed for `disable_after`)."""
        sent = attempted.sent
        if sent.acknowledged:
            if endpoint.failing_since is not None:
                endpoint.failing_since = None
                endpoint.changed = True
            return
        if endpoint.failing_since is None:
            endpoint.failing_since = sent.attempted_at
            endpoint.changed = True
        if not endpoint.enabled:
            return
        if sent.status_code == 410:
            reason = "the endpoint answered 410 Gone"
        elif sent.attempted_at - endpoint.failing_since >= self._disable_after:
            reason = (
                f"every attempt failed since {format_timestamp(endpoint.failing_since)}"
                f" (last: {sent.error})"
            )[:500]
        else:
            return
        endpoint.enabled = False
        endpoint.disabled_reason = reason
        endpoint.changed = True


@dataclass
class _Health:
    enabled: bool
    failing_since: datetime | None
    changed: bool = False
    # Set when this batch disabled the endpoint.
    disabled_reason: str | None = None

    def values(self, now: datetime) -> dict[str, Any]:
        changed: dict[str, Any] = {"failing_since": self.failing_since}
        if self.disabled_reason is not None:
            changed.update(enabled=False, disabled_reason=self.disabled_reason, updated_at=now)
        return changed


_ATTEMPTS = WebhookAttempt.__table__  # type: ignore[attr-defined]
_DELIVERIES = WebhookDelivery.__table__  # type: ignore[attr-defined]
_ENDPOINTS = WebhookEndpoint.__table__  # type: ignore[attr-defined]
# Statements run once per batch, with one set of parameters per attempt (executemany).
_COUNT = (
    update(_DELIVERIES)
    .where(_DELIVERIES.c.id == bindparam("c_id"))
    .values(
        attempt_count=case(
            (_DELIVERIES.c.attempt_count < bindparam("c_number"), bindparam("c_number")),
            else_=_DELIVERIES.c.attempt_count,
        ),
        updated_at=bindparam("c_now"),
    )
)
_MOVE = (
    update(_DELIVERIES)
    .where(
        _DELIVERIES.c.id == bindparam("m_id"),
        _DELIVERIES.c.lease_token == bindparam("m_token"),
        # Not IN (...): an expanding parameter, which executemany refuses.
        or_(
            _DELIVERIES.c.status == DeliveryStatus.PENDING.value,
            _DELIVERIES.c.status == DeliveryStatus.RETRYING.value,
        ),
    )
    .values(
        url=bindparam("url"),
        status=bindparam("status"),
        last_status_code=bindparam("last_status_code"),
        last_error=bindparam("last_error"),
        next_attempt_at=bindparam("next_attempt_at"),
        due_at=bindparam("due_at"),
        lease_token=None,
    )
)


def _counted(attempted: Attempted, now: datetime) -> dict[str, Any]:
    return {"c_id": attempted.claim.delivery_id, "c_number": attempted.claim.number, "c_now": now}


_Row = TypeVar("_Row", WebhookEndpoint, WebhookEventRow)


async def _by_id(
    session: AsyncSession, table: type[_Row], ids: Collection[str], *, lock: bool = False
) -> dict[str, _Row]:
    query = select(table).where(col(table.id).in_(ids))
    if lock:
        query = query.with_for_update()
    return {row.id: row for row in (await session.exec(query)).all()}
