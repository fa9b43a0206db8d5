"""While no worker runs, an intent create answers 503 in the error envelope, not a
dropped connection; retried with its key once a worker is back, it answers 201.

The API is bound to a Temporal dev server of this module's own with no worker polling
it (what `ramp dev` has between a worker's crash and its restart); a real worker
process (`python worker.py`) is started afterwards.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from temporalio.client import Client

from ramp.config import Settings
from tests.helpers.payments import create_intent, register_accounts
from tests.helpers.processes import WorkerProcesses, worker_environment
from tests.helpers.projects import ProjectCredentials, make_customer


@pytest.fixture
async def workers(
    own_client: Client, own_settings: Settings, tmp_path: Path
) -> AsyncIterator[WorkerProcesses]:
    processes = WorkerProcesses(own_client, worker_environment(own_settings), tmp_path)
    try:
        yield processes
    finally:
        await processes.stop_all()
        print(processes.output())


async def test_a_create_without_a_worker_is_a_503_then_succeeds_with_its_key(
    http: httpx.AsyncClient, project: ProjectCredentials, workers: WorkerProcesses
) -> None:
    customer = await make_customer(http, project, "outage")
    token = customer["access_token"]
    accounts = await register_accounts(http, token)
    key = {"Idempotency-Key": "during-outage"}

    refused = await create_intent(http, token, accounts, headers=key)

    assert refused.status_code == 503, refused.text
    assert refused.json()["code"] == "TEMPORARILY_UNAVAILABLE"
    assert refused.headers["retry-after"] == "1"

    await workers.start()
    created = await create_intent(http, token, accounts, headers=key)
    assert created.status_code == 201, created.text
