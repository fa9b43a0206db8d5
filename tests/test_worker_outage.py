"""While no worker runs, an intent create answers 503 in the error envelope, not a
dropped connection; retried with its key once a worker is back, it answers 201.

The API is bound to a Temporal dev server of this module's own with no worker polling
it (what `ramp dev` has between a worker's crash and its restart); a real worker
process (`python worker.py`) is started afterwards.
"""

from __future__ import annotations

import time

import httpx
import pytest

from ramp.intents.waits import EXECUTE_TIMEOUT
from tests.helpers.payments import create_intent, register_accounts
from tests.helpers.processes import WorkerProcesses
from tests.helpers.projects import ProjectCredentials, bearer, make_customer

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


async def test_asking_for_the_transaction_without_a_worker_is_a_503_within_the_wait(
    http: httpx.AsyncClient, project: ProjectCredentials, workers: WorkerProcesses
) -> None:
    """`POST /intent/{id}/transaction` waits up to EXECUTE_TIMEOUT for its workflow (a
    network provider's order may take 20 s). A workflow nobody runs never answers: the
    call still ends, 503 in the envelope, once that wait is over. The SDK alone would
    have asked the server again every 20 s (its long poll) for as long as it took."""
    customer = await make_customer(http, project, "outage-execute")
    token = customer["access_token"]
    accounts = await register_accounts(http, token)
    await workers.start()
    created = await create_intent(http, token, accounts)
    assert created.status_code == 201, created.text
    intent_id = created.json()["intent"]["id"]
    await workers.stop_all()

    started = time.monotonic()
    asked = await http.post(f"/v1/intent/{intent_id}/transaction", headers=bearer(token))
    waited = time.monotonic() - started
    assert asked.status_code == 503, asked.text
    assert asked.json()["code"] == "TEMPORARILY_UNAVAILABLE"
    assert asked.headers["retry-after"] == "1"
    assert EXECUTE_TIMEOUT.total_seconds() - 1 <= waited < EXECUTE_TIMEOUT.total_seconds() + 10
