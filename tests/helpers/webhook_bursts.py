"""A burst of intents with a process killed in its middle, and the check that every
event stored reached the receiver once at least, as the delivery log says.

Used by the tests that kill workers (tests/test_webhook_durability.py) and webhook
dispatcher processes (tests/test_webhook_dispatcher_process.py).
"""

from __future__ import annotations

import asyncio
import signal
from collections import Counter
from collections.abc import Awaitable
from typing import Protocol

import httpx
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.db.tables import WebhookAttempt, WebhookDelivery, WebhookEventRow
from ramp.webhooks.models import DeliveryStatus
from tests.helpers.payments import create_intent, register_accounts
from tests.helpers.projects import ProjectCredentials, make_customer
from tests.helpers.webhook_api import add_endpoint
from tests.helpers.webhook_receiver import Receiver

# Enough for a kill to land with deliveries claimed, in flight and still to come (each
# intent emits about five events: 150 in all, the kill once the first 12 have arrived
# and a POST is seen in flight); bursts of 200, then 60, proved nothing more and cost
# more CPU (docs/performance.md, the test suite's rounds two and four).
INTENTS = 30
CALLERS = 20
# Events received before the kill.
KILL_AFTER = 12
# A create whose update was on the killed worker times out (503) and is sent again with
# its Idempotency-Key, as a client would, after the Retry-After the 503 gives, until it
# is answered. Bounded by time, not by a count: on a loaded machine a replacement
# worker's first workflow tasks can take longer than their 10 s timeout, and each retry
# in that window is refused at once ("workflow task in failed state").
RETRY_FOR_SECONDS = 240.0


class Processes(Protocol):
    """Worker or dispatcher processes: one more started on demand."""

    def start(self) -> Awaitable[asyncio.subprocess.Process]: ...


async def burst(
    http: httpx.AsyncClient, token: str, accounts: tuple[str, str]
) -> list[httpx.Response]:
    """INTENTS new intents, CALLERS at a time; each create that times out (503) is sent
    again with its Idempotency-Key after the answer's Retry-After."""
    numbers = iter(range(INTENTS))
    answers: list[httpx.Response] = []
    loop = asyncio.get_running_loop()

    async def caller() -> None:
        for number in numbers:
            key = {"Idempotency-Key": f"burst-{number}"}
            give_up_at = loop.time() + RETRY_FOR_SECONDS
            answer = await create_intent(http, token, accounts, headers=key)
            while answer.status_code == 503 and loop.time() < give_up_at:
                await asyncio.sleep(float(answer.headers.get("Retry-After", "1")))
                answer = await create_intent(http, token, accounts, headers=key)
            answers.append(answer)

    await asyncio.gather(*(caller() for _ in range(CALLERS)))
    return answers


async def burst_under_way(
    http: httpx.AsyncClient, project: ProjectCredentials, receiver: Receiver
) -> asyncio.Task[list[httpx.Response]]:
    """A burst of intents to a new customer, their events sent to `receiver`, once
    KILL_AFTER of them have arrived and a POST is being answered (the time to kill
    something: deliveries in flight and still to come)."""
    await add_endpoint(http, project, receiver.url)
    customer = await make_customer(http, project, "burst")
    token = customer["access_token"]
    accounts = await register_accounts(http, token)
    creating = asyncio.create_task(burst(http, token, accounts))
    await receiver.wait_for(
        lambda got: len(got) >= KILL_AFTER and receiver.in_flight > 0, within=120
    )
    return creating


async def kill_mid_burst(
    http: httpx.AsyncClient,
    project: ProjectCredentials,
    workers: Processes,
    receiver: Receiver,
    victim: asyncio.subprocess.Process,
    *,
    replace: bool,
) -> list[httpx.Response]:
    creating = await burst_under_way(http, project, receiver)
    victim.kill()
    assert await victim.wait() == -signal.SIGKILL
    if replace:
        await workers.start()
    return await creating


def assert_created(answers: list[httpx.Response]) -> None:
    """Every create was answered 201, retried with its key where the killed worker held
    its update (a first answer of 503: its events, if stored, are expected all the same)."""
    assert len(answers) == INTENTS
    assert [a.status_code for a in answers] == [201] * INTENTS, {a.text for a in answers}
    assert len({a.json()["intent"]["id"] for a in answers}) == INTENTS


async def assert_everything_delivered(
    db: AsyncSession, project: ProjectCredentials, receiver: Receiver, at_least: int = INTENTS
) -> None:
    """Every event stored reached the receiver; the log says SUCCEEDED for each, with
    the acknowledged attempt; no event was POSTed twice at once."""
    expected = set(
        (
            await db.exec(
                select(WebhookEventRow.id).where(WebhookEventRow.project_id == project.project_id)
            )
        ).all()
    )
    assert len(expected) >= at_least
    await receiver.wait_for(
        lambda got: expected <= {hook.headers["webhook-id"] for hook in got}, within=120
    )
    async with asyncio.timeout(60):
        while True:
            db.expire_all()
            deliveries = (
                await db.exec(
                    select(WebhookDelivery).where(WebhookDelivery.project_id == project.project_id)
                )
            ).all()
            if all(d.status == DeliveryStatus.SUCCEEDED for d in deliveries):
                break
            await asyncio.sleep(0.2)
    assert {d.event_id for d in deliveries} == expected
    assert len(deliveries) == len(expected)  # one endpoint: one delivery per event
    attempts = (
        await db.exec(
            select(WebhookAttempt).where(
                col(WebhookAttempt.delivery_id).in_([d.id for d in deliveries])
            )
        )
    ).all()
    by_delivery = Counter(attempt.delivery_id for attempt in attempts)
    assert set(by_delivery) == {d.id for d in deliveries}
    # A killed attempt never got to record itself. An attempt that failed on its own (a
    # timeout on a loaded machine) is logged and retried: every delivery's log ends
    # with the acknowledged attempt.
    acknowledged = {a.delivery_id for a in attempts if a.status_code == 200}
    assert acknowledged == {d.id for d in deliveries}
    assert {a.status_code for a in attempts} <= {200, None}
    assert receiver.overlaps == 0
