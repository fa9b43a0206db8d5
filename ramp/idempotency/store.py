"""The stored-response store behind `Idempotency-Key` on creating requests.

A request with a key first claims it (a row keyed by the caller's scope and the key);
the one that claims it runs, the others wait for its response and replay it. Only
successful (2xx) responses are kept: a refusal stores nothing, so a retry re-evaluates
(as `POST /intent` always did). A claim whose request died is taken over once its
lease has run out. Records are purged 24 hours after they were created (housekeeping).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import delete, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel import col
from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.db.tables import IdempotencyRecord
from ramp.db.types import utcnow
from ramp.errors import Conflict, InvalidInput, RequestError, Unprocessable

# How long a key and its response are kept: a retry later than this creates anew.
RETENTION = timedelta(hours=24)
# A running request holds its claim this long; a waiter may take over afterwards.
LEASE = timedelta(seconds=60)
# How long a concurrent request with the same key waits for the first one's response.
WAIT = timedelta(seconds=30)
_POLL_SECONDS = 0.05


@dataclass(frozen=True)
class StoredResponse:
    status: int
    headers: Mapping[str, str]
    body: bytes


@dataclass(frozen=True)
class Claim:
    """This request runs: it must `complete` or `release` the claim."""

    scope: str
    key: str
    lease: datetime


def project_scope(project_id: str) -> str:
    return f"project:{project_id}"


def customer_scope(customer_id: str) -> str:
    # A customer belongs to one project: the customer id scopes the project too.
    return f"customer:{customer_id}"


def check_key(key: str) -> None:
    if not 1 <= len(key) <= 255 or not key.isprintable():
        raise InvalidInput(
            RequestError.INVALID_IDEMPOTENCY_KEY,
            "Idempotency-Key must be 1 to 255 printable characters",
        )


def request_fingerprint(method: str, path: str, body: bytes) -> str:
    """What tells a retry from another request: the method, the path and the body,
    its JSON canonical (key order and spacing do not count) when it is JSON."""
    try:
        canonical = json.dumps(json.loads(body), sort_keys=True, separators=(",", ":"))
    except ValueError:
        canonical = body.decode("utf-8", "replace")
    return hashlib.sha256(f"{method} {path}\n{canonical}".encode()).hexdigest()


def key_reused() -> Unprocessable:
    return Unprocessable(
        RequestError.IDEMPOTENCY_KEY_REUSED,
        "this Idempotency-Key was used with a different request",
    )


async def claim_or_replay(
    db: async_sessionmaker[AsyncSession],
    scope: str,
    key: str,
    fingerprint: str,
    *,
    wait: timedelta = WAIT,
) -> Claim | StoredResponse:
    """Claims the key for this request, or returns the response of the request that
    made it. Waits (up to `wait`) while another request with the key runs."""
    deadline = utcnow() + wait
    while True:
        outcome = await _attempt(db, scope, key, fingerprint)
        if outcome is not None:
            return outcome
        if utcnow() >= deadline:
            raise Conflict(
                RequestError.IDEMPOTENCY_KEY_IN_USE,
                "a request with this Idempotency-Key is still running; retry it later",
            )
        await asyncio.sleep(_POLL_SECONDS)


async def _attempt(
    db: async_sessionmaker[AsyncSession], scope: str, key: str, fingerprint: str
) -> Claim | StoredResponse | None:
    now = utcnow()
    async with db() as session:
        record = await session.get(IdempotencyRecord, (scope, key))
        if record is not None and record.created_at <= now - RETENTION:
            # Past its 24 hours but not purged yet: the key is free again.
            await session.delete(record)
            await session.commit()
            record = None
        if record is None:
            lease = now + LEASE
            session.add(
                IdempotencyRecord(
                    scope=scope,
                    key=key,
                    fingerprint=fingerprint,
                    locked_until=lease,
                    created_at=now,
                )
            )
            try:
                await session.commit()
            except IntegrityError:
                return None  # claimed concurrently: look again
            return Claim(scope, key, lease)
        if record.fingerprint != fingerprint:
            raise key_reused()
        if record.response_status is not None and record.response is not None:
            return StoredResponse(
                record.response_status,
                dict(record.response["headers"]),
                record.response["body"].encode(),
            )
        if record.locked_until > now:
            return None  # running: wait for its response
        # The claimant died (or gave up): take over, if nobody did in between.
        lease = now + LEASE
        taken = await session.exec(
            update(IdempotencyRecord)
            .where(
                col(IdempotencyRecord.scope) == scope,
                col(IdempotencyRecord.key) == key,
                col(IdempotencyRecord.locked_until) == record.locked_until,
                col(IdempotencyRecord.response_status).is_(None),
            )
            .values(locked_until=lease)
        )
        await session.commit()
        return Claim(scope, key, lease) if taken.rowcount == 1 else None


async def complete(
    db: async_sessionmaker[AsyncSession], claim: Claim, response: StoredResponse
) -> None:
    """Stores the response of the request that held `claim`."""
    async with db() as session:
        await session.exec(
            update(IdempotencyRecord)
            .where(
                col(IdempotencyRecord.scope) == claim.scope, col(IdempotencyRecord.key) == claim.key
            )
            .values(
                {
                    col(IdempotencyRecord.response_status): response.status,
                    col(IdempotencyRecord.response): {
                        "headers": dict(response.headers),
                        "body": response.body.decode(),
                    },
                }
            )
        )
        await session.commit()


async def release(db: async_sessionmaker[AsyncSession], claim: Claim) -> None:
    """Forgets the claim of a request that stored nothing (refused, or failed): the next
    request with the key runs again."""
    async with db() as session:
        await session.exec(
            delete(IdempotencyRecord).where(
                col(IdempotencyRecord.scope) == claim.scope,
                col(IdempotencyRecord.key) == claim.key,
                col(IdempotencyRecord.response_status).is_(None),
            )
        )
        await session.commit()


async def purge_expired(session: AsyncSession, now: datetime) -> int:
    """Deletes the records older than RETENTION; returns how many."""
    result = await session.exec(
        delete(IdempotencyRecord).where(col(IdempotencyRecord.created_at) <= now - RETENTION)
    )
    return int(result.rowcount)
