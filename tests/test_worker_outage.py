"""While no worker runs, an intent create answers 503 in the error envelope, not a
dropped connection; retried with its key once a worker is back, it answers 201.

The API is bound to a Temporal dev server of this module's own with no worker polling
it (what `ramp dev` has between a worker's crash and its restart); a real worker
process (`python worker.py`) is started afterwards.
"""

from __future__ import annotations

import httpx
import pytest

from tests.helpers.payments import create_intent, register_accounts
from tests.helpers.processes import WorkerProcesses
from tests.helpers.projects import ProjectCredentials, make_customer

# About Temporal and a worker process, not the database: one of the two passes runs it.
pytestmark = pytest.mark.either_database


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
