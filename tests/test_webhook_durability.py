"""A worker killed in the middle of a delivery loses nothing.

The worker runs as a real process (`python worker.py`) against a Temporal dev server of
this module's own. The receiver holds the first POST open; the worker is SIGKILLed
while it waits for the answer. A new worker retries the attempt once its start-to-close
timeout lapses, and the event arrives (twice in all: delivery is at least once, and the
receiver deduplicates on `webhook-id`).
"""

from __future__ import annotations

import signal
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from temporalio.client import Client

from ramp.config import Settings
from tests.helpers.payments import create_intent, register_accounts
from tests.helpers.processes import WorkerProcesses, worker_environment
from tests.helpers.projects import ProjectCredentials, make_customer
from tests.helpers.webhook_api import wait_for_deliveries
from tests.helpers.webhook_receiver import receiving

# The retried attempt starts when the killed one's start-to-close timeout (the POST's
# timeout plus 5 s) lapses.
WEBHOOK_TIMEOUT = "2"


@pytest.fixture
async def workers(
    own_client: Client, own_settings: Settings, tmp_path: Path
) -> AsyncIterator[WorkerProcesses]:
    environment = worker_environment(
        own_settings, RAMP_WEBHOOK_TIMEOUT=WEBHOOK_TIMEOUT, RAMP_WEBHOOK_RETRY_DELAYS="1,1,1,1,1"
    )
    processes = WorkerProcesses(own_client, environment, tmp_path)
    try:
        yield processes
    finally:
        await processes.stop_all()
        print(processes.output())


async def test_a_worker_killed_mid_delivery_still_delivers(
    http: httpx.AsyncClient, project: ProjectCredentials, workers: WorkerProcesses
) -> None:
    first = await workers.start()
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
        first.kill()
        assert await first.wait() == -signal.SIGKILL
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
