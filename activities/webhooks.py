"""Webhook activities: storing events for delivery, and each signed POST.

`WebhookOutbox` is used by `record_intent`: it stores an intent's events with one
delivery per subscribed endpoint in the same database transaction as the projection
write, then starts a delivery workflow for each. Ids are derived from the event and the
endpoint, so a retried write stores and starts nothing twice.
"""

from __future__ import annotations

import asyncio
import socket
import time
import uuid
from collections.abc import Coroutine, Sequence
from datetime import datetime, timedelta
from typing import Any, TypeVar
from urllib.parse import urlsplit

import httpx
from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from temporalio import activity
from temporalio.client import Client

from ramp import temporal
from ramp.config import Environment
from ramp.db.engine import begin_write
from ramp.db.tables import (
    Project,
    WebhookAttempt,
    WebhookDelivery,
    WebhookEndpoint,
    WebhookEventRow,
)
from ramp.db.types import utcnow
from ramp.db.upsert import insert_missing
from ramp.projects import signing_secrets
from ramp.security.encryption import SecretBox
from ramp.security.network import is_public_address
from ramp.webhooks.dispatch import start_delivery
from ramp.webhooks.endpoints import EndpointRefused, cancel_pending
from ramp.webhooks.events import WebhookEvent
from ramp.webhooks.models import (
    FINAL_DELIVERY_STATUSES,
    AttemptOutcome,
    DeliveryAttempt,
    DeliveryOrder,
    DeliveryPolicy,
    DeliveryStatus,
)
from ramp.webhooks.signing import signature_headers

T = TypeVar("T")
_DELIVERY_NAMESPACE = uuid.UUID("0b7f6a52-9a0e-5d3c-8f61-4c2e9d7b1a38")


def delivery_id(event_id: str, endpoint_id: str) -> str:
    return str(uuid.uuid5(_DELIVERY_NAMESPACE, f"{event_id}/{endpoint_id}"))


class WebhookOutbox:
    def __init__(
        self, client: Client, policy: DeliveryPolicy, task_queue: str = temporal.TASK_QUEUE
    ) -> None:
        self._client = client
        self._policy = policy
        self._task_queue = task_queue

    async def enqueue(self, session: AsyncSession, events: Sequence[WebhookEvent]) -> list[str]:
        """Stores the events that have subscribers, with their deliveries (caller commits);
        returns the ids of the deliveries to start."""
        if not events:
            return []
        endpoints = (
            await session.exec(
                select(WebhookEndpoint).where(
                    WebhookEndpoint.project_id == events[0].project_id,
                    col(WebhookEndpoint.enabled).is_(True),
                )
            )
        ).all()
        rows: list[WebhookEventRow] = []
        deliveries: list[WebhookDelivery] = []
        now = utcnow()
        for event in events:
            subscribed = [e for e in endpoints if event.event_type in e.event_types]
            if not subscribed:
                continue
            rows.append(
                WebhookEventRow(
                    id=event.event_id,
                    project_id=event.project_id,
                    intent_id=event.data.intent_id,
                    event_type=event.event_type,
                    body=event.body().decode(),
                    occurred_at=event.timestamp,
                )
            )
            deliveries.extend(
                WebhookDelivery(
                    id=delivery_id(event.event_id, endpoint.id),
                    project_id=event.project_id,
                    event_id=event.event_id,
                    endpoint_id=endpoint.id,
                    event_type=event.event_type,
                    intent_id=event.data.intent_id,
                    url=endpoint.url,
                    status=DeliveryStatus.PENDING,
                    max_attempts=self._policy.max_attempts,
                    created_at=now,
                    updated_at=now,
                )
                for endpoint in subscribed
            )
        # A retried write finds its rows: keep them as they are (a delivery may be under way).
        await insert_missing(session, rows, ["id"])
        await insert_missing(session, deliveries, ["id"])
        return [delivery.id for delivery in deliveries]

    async def dispatch(self, delivery_ids: Sequence[str]) -> None:
        """Starts each delivery's workflow (once the rows are committed)."""
        await asyncio.gather(
            *(
                start_delivery(
                    self._client,
                    DeliveryOrder(delivery_id=id_, policy=self._policy),
                    self._task_queue,
                )
                for id_ in delivery_ids
            )
        )


_MISSING_ROW_RETRIES = 5
_HEARTBEAT_EVERY = 2.0


# Built once: loading the CA bundle costs about 30 ms of CPU, per client otherwise.
_TLS = httpx.create_ssl_context()


async def _post(url: str, body: bytes, headers: dict[str, str], phase_timeout: float) -> int:
    # No proxies from the environment, no redirects: the POST goes where the project
    # said, or fails. The answer's body is not read: only its status counts.
    async with (
        httpx.AsyncClient(
            timeout=phase_timeout, verify=_TLS, trust_env=False, follow_redirects=False
        ) as http,
        http.stream("POST", url, content=body, headers=headers) as response,
    ):
        return response.status_code


async def _heartbeating(work: Coroutine[Any, Any, T]) -> T:
    task = asyncio.ensure_future(work)
    try:
        while True:
            done, _ = await asyncio.wait({task}, timeout=_HEARTBEAT_EVERY)
            if done:
                return task.result()
            activity.heartbeat()
    finally:
        task.cancel()


async def _refuse_private_addresses(url: str) -> None:
    """A production endpoint must resolve to public addresses only (what its name says
    today, not only when it was registered)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    port = parts.port or (443 if parts.scheme == "https" else 80)
    found = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    if not found or not all(is_public_address(str(entry[4][0])) for entry in found):
        raise EndpointRefused(f"{host} resolves to an address that is not public")


class WebhookActivities:
    def __init__(self, db: async_sessionmaker[AsyncSession], secret_box: SecretBox) -> None:
        self._db = db
        self._secret_box = secret_box

    @activity.defn
    async def attempt_delivery(self, attempt: DeliveryAttempt) -> AttemptOutcome:
        """One signed POST; records the attempt and the delivery's new status."""
        async with self._db() as session:
            delivery = await session.get(WebhookDelivery, attempt.delivery_id)
            if delivery is None:
                if activity.info().attempt < _MISSING_ROW_RETRIES:
                    # A redelivery's workflow starts just before its row is committed.
                    raise LookupError(f"delivery {attempt.delivery_id} is not stored (yet)")
                activity.logger.warning("delivery %s does not exist", attempt.delivery_id)
                return AttemptOutcome(
                    delivery_id=attempt.delivery_id, status=DeliveryStatus.CANCELLED
                )
            status = DeliveryStatus(delivery.status)
            if status in FINAL_DELIVERY_STATUSES:
                # A retry of an attempt whose outcome was recorded, or a delivery cancelled
                # with its endpoint: nothing more to do.
                return AttemptOutcome(delivery_id=delivery.id, status=status)
            endpoint = await session.get(WebhookEndpoint, delivery.endpoint_id)
            if endpoint is None or not endpoint.enabled:
                await cancel_pending(session, delivery.endpoint_id)
                await session.commit()
                return AttemptOutcome(delivery_id=delivery.id, status=DeliveryStatus.CANCELLED)
            event = await session.get(WebhookEventRow, delivery.event_id)
            project = await session.get(Project, delivery.project_id)
            if event is None or project is None:
                activity.logger.warning("delivery %s lost its event or project", delivery.id)
                return AttemptOutcome(delivery_id=delivery.id, status=DeliveryStatus.CANCELLED)
            secrets = signing_secrets(project, self._secret_box, utcnow())
            client_id = project.client_id
            production = project.environment == Environment.PRODUCTION
            # The endpoint's URL as it is now: a project that fixes a wrong URL gets
            # the pending retries there.
            url = endpoint.url

        body = event.body.encode()
        attempted_at = utcnow()
        headers = signature_headers(
            message_id=event.id,
            event_type=event.event_type,
            client_id=client_id,
            secrets=secrets,
            body=body,
            at=attempted_at,
        )
        started = time.perf_counter()
        status_code: int | None = None
        error: str | None = None
        try:
            if production:
                await _refuse_private_addresses(url)
            # The whole attempt (connect, send, answer) within the timeout; heartbeats
            # meanwhile, so an attempt cut short by a crash is retried within seconds.
            async with asyncio.timeout(attempt.timeout_seconds):
                status_code = await _heartbeating(
                    _post(url, body, headers, attempt.timeout_seconds)
                )
            if not 200 <= status_code < 300:
                error = f"HTTP {status_code}"
        except TimeoutError:
            error = f"no answer within {attempt.timeout_seconds:g} s"
        except (httpx.HTTPError, EndpointRefused) as failure:
            error = f"{type(failure).__name__}: {failure}"[:1000]
        latency_ms = round((time.perf_counter() - started) * 1000)

        if status_code is not None and 200 <= status_code < 300:
            outcome = DeliveryStatus.SUCCEEDED
        elif status_code == 410:
            outcome = DeliveryStatus.GONE
        elif attempt.retry_in_seconds is None:
            outcome = DeliveryStatus.EXHAUSTED
        else:
            outcome = DeliveryStatus.RETRYING
        outcome = await self._record(
            attempt, url, attempted_at, status_code, latency_ms, error, outcome
        )
        return AttemptOutcome(
            delivery_id=attempt.delivery_id, status=outcome, status_code=status_code
        )

    async def _record(
        self,
        attempt: DeliveryAttempt,
        url: str,
        attempted_at: datetime,
        status_code: int | None,
        latency_ms: int,
        error: str | None,
        outcome: DeliveryStatus,
    ) -> DeliveryStatus:
        """Logs the attempt and moves the delivery on; returns its status, which stays
        final if the delivery was cancelled (its endpoint disabled) meanwhile."""
        now = utcnow()
        async with self._db() as session:
            await begin_write(session)
            delivery = (
                await session.exec(
                    select(WebhookDelivery)
                    .where(WebhookDelivery.id == attempt.delivery_id)
                    .with_for_update()
                )
            ).first()
            if delivery is None:
                return DeliveryStatus.CANCELLED
            session.add(
                WebhookAttempt(
                    id=str(uuid.uuid4()),
                    delivery_id=delivery.id,
                    number=attempt.number,
                    attempted_at=attempted_at,
                    status_code=status_code,
                    latency_ms=latency_ms,
                    error=error,
                )
            )
            delivery.attempt_count = max(delivery.attempt_count, attempt.number)
            delivery.updated_at = now
            current = DeliveryStatus(delivery.status)
            if current in FINAL_DELIVERY_STATUSES:
                session.add(delivery)
                await session.commit()
                return current
            delivery.url = url
            delivery.status = outcome
            delivery.last_status_code = status_code
            delivery.last_error = error
            delivery.next_attempt_at = (
                now + timedelta(seconds=attempt.retry_in_seconds)
                if outcome is DeliveryStatus.RETRYING and attempt.retry_in_seconds is not None
                else None
            )
            session.add(delivery)
            if outcome is DeliveryStatus.GONE:
                endpoint = await session.get(WebhookEndpoint, delivery.endpoint_id)
                if endpoint is not None and endpoint.enabled:
                    endpoint.enabled = False
                    endpoint.disabled_reason = "the endpoint answered 410 Gone"
                    endpoint.updated_at = now
                    session.add(endpoint)
                await session.flush()
                await cancel_pending(session, delivery.endpoint_id)
            await session.commit()
            return outcome
