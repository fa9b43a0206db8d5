"""A worker killed in the middle of deliveries loses nothing.

The workers run as real processes (`python worker.py`) against a Temporal dev server of
this module's own. In the first test the receiver holds the first POST open and the
worker is SIGKILLed while it waits for the answer: once the delivery's lease lapses a
new worker's dispatcher makes the attempt again, and the event arrives (twice in all:
delivery is at least once, and the receiver deduplicates on `webhook-id`). The others
kill a worker in the middle of a burst of 30 intents (about 150 events, the kill once 12
have arrived and a POST is being answered), alone or beside a second worker: every event
stored reaches the receiver, the delivery log agrees, and no event is ever being POSTed
twice at the same time. A worker POSTs from a child process of its own
(ramp/webhooks/sender_process.py): killed mid-burst, it is replaced and loses nothing;
it leaves with a killed worker. The worker processes are the module's: the one a test
leaves running serves the next.
"""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from sqlmodel.ext.asyncio.session import AsyncSession
from temporalio.client import Client

from bench.sandbox import alive
from ramp.config import Settings
from tests.helpers.payments import create_intent, register_accounts
from tests.helpers.processes import WorkerProcesses, worker_environment
from tests.helpers.projects import ProjectCredentials, make_customer
from tests.helpers.webhook_api import wait_for_deliveries
from tests.helpers.webhook_bursts import (
    INTENTS,
    assert_created,
    assert_everything_delivered,
    burst_under_way,
    kill_mid_burst,
)
from tests.helpers.webhook_receiver import receiving

# The retried attempt starts when the killed one's lease (the POST's timeout plus 10 s)
# lapses.
WEBHOOK_TIMEOUT = "2"


@pytest.fixture(scope="module")
async def worker_pool(
    own_client: Client, own_settings: Settings, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[WorkerProcesses]:
    """Worker processes started for the module: a worker that survives a test serves the
    next (a start costs about 2.5 s of CPU), each test starting only those it lacks."""
    environment = worker_environment(
        own_settings, RAMP_WEBHOOK_TIMEOUT=WEBHOOK_TIMEOUT, RAMP_WEBHOOK_RETRY_DELAYS="1,1,1,1,1"
    )
    logs = tmp_path_factory.mktemp("workers")
    async with WorkerProcesses(own_client, environment, logs) as started:
        yield started


@pytest.fixture
async def workers(worker_pool: WorkerProcesses) -> AsyncIterator[WorkerProcesses]:
    yield worker_pool
    print(worker_pool.output())  # shown when the test fails


async def running(workers: WorkerProcesses, count: int) -> list[asyncio.subprocess.Process]:
    """`count` workers running, the oldest first: those left by the test before, and
    as many more as it takes."""
    while len(workers.running) < count:
        await workers.start()
    assert len(workers.running) == count, workers.output()
    return workers.running


async def test_a_worker_killed_mid_delivery_still_delivers(
    http: httpx.AsyncClient, project: ProjectCredentials, workers: WorkerProcesses
) -> None:
    (first,) = await running(workers, 1)
    async with receiving() as receiver:
        receiver.hold.set()
        added = await http.post(
            "/v1/webhooks/endpoints",
            json={"url": receiver.url, "eventTypes": ["INTENT_STATUS_CHANGED"]},
            headers=project.basic,
        )
        assert added.status_code == 201, added.text
        customer = await make_customer(http, project, "crash")
        accounts = await register_accounts(http, customer["access_token"])
        response = await create_intent(http, customer["access_token"], accounts)
        assert response.status_code == 201, response.text

        # The POST is in flight, held open by the receiver: kill the worker now.
        (held,) = await receiver.wait_for(lambda got: len(got) == 1)
        sender = webhook_sender_of(first.pid)
        first.kill()
        assert await first.wait() == -signal.SIGKILL
        # Its sender process leaves with it (its stdin closed), attempt and all.
        await gone(sender)
        receiver.hold.clear()
        receiver.release()

        await workers.start()
        received = await receiver.wait_for(lambda got: len(got) == 2, within=45)
    assert received[1].body == held.body
    assert received[1].headers["webhook-id"] == held.headers["webhook-id"]

    (delivery,) = await wait_for_deliveries(
        http, project, lambda found: bool(found) and found[0]["status"] == "SUCCEEDED"
    )
    # The killed attempt never got to record itself; its retry did.
    assert [a["statusCode"] for a in delivery["attempts"]] == [200]


async def test_a_worker_killed_mid_burst_loses_no_event(
    http: httpx.AsyncClient,
    project: ProjectCredentials,
    workers: WorkerProcesses,
    db: AsyncSession,
) -> None:
    (first,) = await running(workers, 1)
    async with receiving() as receiver:
        receiver.answer_delay = 0.02
        answers = await kill_mid_burst(http, project, workers, receiver, first, replace=True)
        assert_created(answers)
        await assert_everything_delivered(db, project, receiver)


async def test_two_workers_one_killed_mid_burst_lose_nothing_and_never_overlap(
    http: httpx.AsyncClient,
    project: ProjectCredentials,
    workers: WorkerProcesses,
    db: AsyncSession,
) -> None:
    first, _ = await running(workers, 2)
    async with receiving() as receiver:
        receiver.answer_delay = 0.02
        answers = await kill_mid_burst(http, project, workers, receiver, first, replace=False)
        assert_created(answers)
        await assert_everything_delivered(db, project, receiver)


async def test_the_webhook_sender_killed_mid_burst_is_replaced_and_loses_nothing(
    http: httpx.AsyncClient,
    project: ProjectCredentials,
    workers: WorkerProcesses,
    db: AsyncSession,
) -> None:
    (worker,) = await running(workers, 1)
    async with receiving() as receiver:
        receiver.answer_delay = 0.02
        creating = await burst_under_way(http, project, receiver)
        sender = webhook_sender_of(worker.pid)
        os.kill(sender, signal.SIGKILL)
        answers = await creating
        # Intents never noticed: the worker went on, and started another sender.
        assert [a.status_code for a in answers] == [201] * INTENTS
        await assert_everything_delivered(db, project, receiver)
    assert webhook_sender_of(worker.pid) != sender
    assert "the webhook sender process exited (-9); starting another" in workers.output_of(worker)


def webhook_sender_of(worker: int) -> int:
    """The pid of the worker's webhook sender process."""
    for task in Path(f"/proc/{worker}/task").iterdir():
        for child in (task / "children").read_text().split():
            command = Path(f"/proc/{child}/cmdline").read_bytes()
            if b"ramp.webhooks.sender_process" in command:
                return int(child)
    raise AssertionError(f"worker {worker} has no webhook sender process")


async def gone(pid: int) -> None:
    """Until the process has exited (reaped, or a zombie)."""
    async with asyncio.timeout(10):
        while alive(pid):  # noqa: ASYNC110  (another process's state: no event)
            await asyncio.sleep(0.05)
