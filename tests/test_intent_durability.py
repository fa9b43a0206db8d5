"""An intent survives the death of its worker.

The worker runs as a real process (`python worker.py`) against a Temporal dev server
of this module's own, so the session's in-process worker cannot take its tasks. It is
SIGKILLed while an intent waits for onboarding; a step outcome sent while no worker
runs is accepted, and a new worker applies it and carries the intent to COMPLETED.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from temporalio.api.enums.v1 import TaskQueueKind, TaskQueueType
from temporalio.api.taskqueue.v1 import TaskQueue
from temporalio.api.workflowservice.v1 import DescribeTaskQueueRequest
from temporalio.client import Client, WorkflowExecutionStatus
from temporalio.testing import WorkflowEnvironment

from api.app import create_app
from ramp.config import Settings
from ramp.intents.models import IntentOutcome
from ramp.intents.states import IntentStatus
from ramp.temporal import TASK_QUEUE
from tests.conftest import (
    ProjectCredentials,
    bearer,
    derive_settings,
    dev_server,
    make_customer,
    serve,
    service_client,
)
from tests.payments import (
    create_intent,
    get_intent,
    provider_event,
    register_accounts,
    step_outcome,
    step_status,
    wait_for_intent,
)
from workflows.intents import IntentWorkflow

ROOT = Path(__file__).resolve().parents[1]
# After a SIGKILL the workflow's next task first goes to the dead worker's sticky queue
# and only reaches the new worker when that times out (about 10 s, shared notes).
AFTER_RESTART_TIMEOUT = 45.0
WORKER_START_TIMEOUT = 30.0


@pytest.fixture(scope="module")
async def own_server() -> AsyncIterator[WorkflowEnvironment]:
    async with dev_server() as env:
        yield env


@pytest.fixture(scope="module")
def own_settings(migrated: Settings, own_server: WorkflowEnvironment) -> Settings:
    address = own_server.client.service_client.config.target_host
    return derive_settings(migrated, TEMPORAL_ADDRESS=address)


@pytest.fixture(scope="module")
def own_client(own_server: WorkflowEnvironment) -> Client:
    return service_client(own_server)


@pytest.fixture(scope="module")
async def http(own_settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    """The API bound to this module's server."""
    async with serve(create_app(own_settings)) as client:
        yield client


def worker_environment(settings: Settings) -> dict[str, str]:
    """The test's settings as a worker process reads them (nothing inherited)."""
    inherited = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("RAMP_", "TEMPORAL_", "DATABASE_"))
    }
    return {
        **inherited,
        "PYTHONUNBUFFERED": "1",
        "RAMP_ENV": settings.ramp_env.value,
        "DATABASE_URL": settings.database_url,
        "TEMPORAL_ADDRESS": settings.temporal_address,
        "TEMPORAL_NAMESPACE": settings.temporal_namespace,
        "RAMP_DATA_DIR": str(settings.data_dir),
        "RAMP_PUBLIC_URL": settings.public_url,
        "RAMP_SIGNING_KEY": settings.signing_key.get_secret_value(),
        "RAMP_ENCRYPTION_KEYS": settings.encryption_keys.get_secret_value(),
    }


class WorkerProcesses:
    """`python worker.py` processes, each logging to a file of its own."""

    def __init__(self, client: Client, env: dict[str, str], logs: Path) -> None:
        self._client = client
        self._env = env
        self._logs = logs
        self.started: list[tuple[asyncio.subprocess.Process, Path]] = []

    async def start(self) -> asyncio.subprocess.Process:
        log = self._logs / f"worker-{len(self.started) + 1}.log"
        with log.open("wb") as output:  # the child keeps its own descriptor
            process = await asyncio.create_subprocess_exec(
                sys.executable,
                "worker.py",
                cwd=ROOT,
                env=self._env,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=output,
                stderr=asyncio.subprocess.STDOUT,
            )
        self.started.append((process, log))
        await self._until_polling(process)
        return process

    async def _until_polling(self, process: asyncio.subprocess.Process) -> None:
        """Until the server lists the process among the task queue's workflow pollers."""
        identity = f"{process.pid}@"
        request = DescribeTaskQueueRequest(
            namespace="default",
            task_queue=TaskQueue(name=TASK_QUEUE, kind=TaskQueueKind.TASK_QUEUE_KIND_NORMAL),
            task_queue_type=TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
        )
        try:
            async with asyncio.timeout(WORKER_START_TIMEOUT):
                while process.returncode is None:
                    described = await self._client.workflow_service.describe_task_queue(request)
                    if any(p.identity.startswith(identity) for p in described.pollers):
                        return
                    await asyncio.sleep(0.05)
        except TimeoutError:
            pass
        raise AssertionError(
            f"worker {process.pid} is not polling (exit status {process.returncode}):\n"
            + self.output()
        )

    async def stop_all(self) -> None:
        for process, _ in self.started:
            if process.returncode is None:
                process.kill()
            await process.wait()

    def output(self) -> str:
        return "\n".join(
            f"--- {log.name} (pid {process.pid}, exit {process.returncode})\n"
            + log.read_text(errors="replace")
            for process, log in self.started
        )


@pytest.fixture
async def workers(
    own_client: Client, own_settings: Settings, tmp_path: Path
) -> AsyncIterator[WorkerProcesses]:
    processes = WorkerProcesses(own_client, worker_environment(own_settings), tmp_path)
    try:
        yield processes
    finally:
        await processes.stop_all()
        # pytest shows this only when the test fails.
        print(processes.output())


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
