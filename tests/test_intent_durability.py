"""An intent survives the death of its worker.

The worker runs as a real process (`python worker.py`) against a Temporal dev server
of this module's own, so the session's in-process worker cannot take its tasks. It is
SIGKILLed while an intent waits for onboarding; a step outcome sent while no worker
runs is accepted, and a new worker applies it and carries the intent to COMPLETED.
"""

from __future__ import annotations

import asyncio
import signal

import httpx
import pytest
from temporalio.client import Client, WorkflowExecutionStatus

from ramp.intents.models import IntentOutcome
from ramp.intents.states import IntentStatus
from tests.helpers.payments import (
    create_intent,
    get_intent,
    provider_event,
    register_accounts,
    step_outcome,
    step_status,
    wait_for_intent,
)
from tests.helpers.processes import WorkerProcesses
from tests.helpers.projects import ProjectCredentials, bearer, make_customer
from workflows.intents import IntentWorkflow

# About a worker process dying, not the database: one of the two passes runs it.
pytestmark = pytest.mark.either_database

# After a SIGKILL the workflow's next task first goes to the dead worker's sticky queue
# and only reaches the new worker when that times out (about 10 s, shared notes).
AFTER_RESTART_TIMEOUT = 45.0


async def verify_step(
    http: httpx.AsyncClient, project: ProjectCredentials, intent_id: str, code: str
) -> None:
    accepted = await step_outcome(http, project, intent_id, code, "VERIFIED")
    assert accepted.status_code == 202, accepted.text


async def test_a_killed_worker_loses_nothing(
    http: httpx.AsyncClient,
    own_client: Client,
    project: ProjectCredentials,
    workers: WorkerProcesses,
) -> None:
    first = await workers.start()
    customer = await make_customer(http, project, "durable")
    token: str = customer["access_token"]
    accounts = await register_accounts(http, token)
    response = await create_intent(http, token, accounts)
    assert response.status_code == 201, response.text
    created = response.json()
    intent_id = created["intent"]["id"]
    assert created["intent"]["status"] == "PENDING"
    assert created["frontendUrl"]
    steps = [step["code"] for step in created["intent"]["compliancePlan"]["steps"]]
    assert steps == ["TERMS_OF_SERVICE", "KYC_BASIC", "SOURCE_OF_FUNDS"]

    await verify_step(http, project, intent_id, steps[0])
    await wait_for_intent(
        http, token, intent_id, lambda body: step_status(body, steps[0]) == "COMPLETED"
    )

    first.kill()
    assert await first.wait() == -signal.SIGKILL

    # No worker runs: the outcome is accepted, stored in the workflow's history, and
    # applied by whichever worker comes next.
    await verify_step(http, project, intent_id, steps[1])
    waiting = await get_intent(http, token, intent_id)
    assert step_status(waiting, steps[1]) == "PENDING"
    assert waiting["intent"]["compliancePlan"]["currentStepCode"] == steps[1]

    await workers.start()
    resumed = await wait_for_intent(
        http,
        token,
        intent_id,
        lambda body: step_status(body, steps[1]) == "COMPLETED",
        AFTER_RESTART_TIMEOUT,
    )
    assert resumed["intent"]["status"] == "PENDING"
    assert resumed["intent"]["compliancePlan"]["currentStepCode"] == steps[2]

    await verify_step(http, project, intent_id, steps[2])
    onboarded = await wait_for_intent(
        http,
        token,
        intent_id,
        lambda body: body["intent"]["compliancePlan"]["status"] == "COMPLETED",
    )
    assert all(
        step["status"] == "COMPLETED" for step in onboarded["intent"]["compliancePlan"]["steps"]
    )
    assert onboarded["intent"]["status"] == "PENDING"
    assert onboarded["transaction"] is None

    executed = await http.post(
        f"/v1/intent/{intent_id}/transaction", json={}, headers=bearer(token)
    )
    assert executed.status_code == 201, executed.text
    transaction = executed.json()["transaction"]
    assert transaction is not None
    assert transaction["status"] == "PENDING"
    assert executed.json()["intent"]["status"] == "PROCESSING"

    received = await provider_event(http, project, transaction["id"], "DEPOSIT_RECEIVED")
    assert received.status_code == 202, received.text
    await wait_for_intent(
        http, token, intent_id, lambda body: body["transaction"]["status"] == "IN_PROGRESS"
    )
    settled = await provider_event(http, project, transaction["id"], "SETTLED")
    assert settled.status_code == 202, settled.text
    done = await wait_for_intent(
        http, token, intent_id, lambda body: body["intent"]["status"] != "PROCESSING"
    )
    assert done["intent"]["status"] == "COMPLETED"
    assert done["transaction"]["status"] == "SUCCESS"

    handle = own_client.get_workflow_handle_for(IntentWorkflow.run, f"intent-{intent_id}")
    async with asyncio.timeout(10):
        outcome: IntentOutcome = await handle.result()
    assert outcome.status is IntentStatus.COMPLETED
    assert (await handle.describe()).status is WorkflowExecutionStatus.COMPLETED
