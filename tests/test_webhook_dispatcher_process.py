"""Webhooks sent by `ramp dispatcher` processes, apart from the worker
(RAMP_WEBHOOK_DISPATCH=separate, PostgreSQL only).

Real processes against a Temporal dev server of this module's own: a worker started in
the separate mode stores an intent's deliveries and sends nothing; a dispatcher started
later sends them all. On SQLite both processes refuse the mode, saying why. Two
dispatchers, one killed in the middle of a burst of 60 intents (every event stored
reaches the receiver, the delivery log agrees, no event is POSTed twice at once), are in
tests/test_scale_out.py, beside two APIs and two workers.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import httpx
import pytest
from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession
from temporalio.client import Client

from ramp.config import Settings
from ramp.db.tables import WebhookDelivery
from ramp.webhooks.models import DeliveryStatus
from tests.helpers.payments import create_intent, register_accounts
from tests.helpers.processes import (
    ROOT,
    DispatcherProcesses,
    WorkerProcesses,
    worker_environment,
)
from tests.helpers.projects import ProjectCredentials, make_customer
from tests.helpers.webhook_api import add_endpoint
from tests.helpers.webhook_receiver import receiving

SEPARATE = {"RAMP_WEBHOOK_DISPATCH": "separate", "RAMP_WEBHOOK_TIMEOUT": "2"}


@pytest.fixture
async def workers(
    own_client: Client, own_settings: Settings, tmp_path: Path
) -> AsyncIterator[WorkerProcesses]:
    environment = worker_environment(own_settings, **SEPARATE)
    async with WorkerProcesses(own_client, environment, tmp_path) as started:
        yield started


@pytest.fixture
async def dispatchers(own_settings: Settings, tmp_path: Path) -> AsyncIterator[DispatcherProcesses]:
    environment = worker_environment(own_settings, **SEPARATE)
    async with DispatcherProcesses(environment, tmp_path) as started:
        yield started


async def stored_deliveries(db: AsyncSession, project_id: str) -> list[WebhookDelivery]:
    db.expire_all()
    return list(
        (
            await db.exec(select(WebhookDelivery).where(WebhookDelivery.project_id == project_id))
        ).all()
    )


async def deliveries_once(
    db: AsyncSession, project_id: str, done: Callable[[list[WebhookDelivery]], bool]
) -> list[WebhookDelivery]:
    """The project's deliveries, once `done` holds for them (within 30 s)."""
    async with asyncio.timeout(30):
        while True:
            stored = await stored_deliveries(db, project_id)
            if done(stored):
                return stored
            await asyncio.sleep(0.1)


@pytest.mark.postgresql_only
async def test_the_worker_stores_deliveries_and_a_dispatcher_process_sends_them(
    http: httpx.AsyncClient,
    project: ProjectCredentials,
    workers: WorkerProcesses,
    dispatchers: DispatcherProcesses,
    db: AsyncSession,
) -> None:
    await workers.start()
    # Polling once a minute: what goes sooner was woken by the commit that stored it.
    dispatchers.env["RAMP_WEBHOOK_POLL_MS"] = "60000"
    async with receiving() as receiver:
        await add_endpoint(http, project, receiver.url)
        customer = await make_customer(http, project, "apart")
        accounts = await register_accounts(http, customer["access_token"])
        created = await create_intent(http, customer["access_token"], accounts)
        assert created.status_code == 201, created.text
        # The intent's events are stored with the projection...
        stored = await deliveries_once(db, project.project_id, bool)
        # ...and no process here sends them: the worker leaves them to dispatchers.
        await asyncio.sleep(1.0)
        assert receiver.received == []
        assert {d.status for d in await stored_deliveries(db, project.project_id)} == {
            DeliveryStatus.PENDING
        }

        await dispatchers.start()
        got = await receiver.wait_for(lambda got: len(got) >= len(stored), within=30)
        assert {hook.headers["webhook-id"] for hook in got} == {d.event_id for d in stored}

        # The dispatcher now waits for its next poll, a minute away; a new intent's
        # commit wakes it (NOTIFY) and its events arrive well before.
        again = await create_intent(http, customer["access_token"], accounts)
        assert again.status_code == 201, again.text
        intent_id = again.json()["intent"]["id"]
        await receiver.wait_for(
            lambda got: any(intent_id in hook.body.decode() for hook in got), within=30
        )
    await deliveries_once(
        db,
        project.project_id,
        lambda found: (
            len(found) > len(stored) and all(d.status == DeliveryStatus.SUCCEEDED for d in found)
        ),
    )


async def ramp(*args: str, env: dict[str, str]) -> tuple[int, str]:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "devstack",
        *args,
        cwd=ROOT,
        env=env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    output, _ = await asyncio.wait_for(process.communicate(), timeout=60)
    assert process.returncode is not None
    return process.returncode, output.decode()


@pytest.mark.sqlite_only
async def test_on_sqlite_both_processes_refuse_the_separate_mode_saying_why(
    own_settings: Settings,
) -> None:
    assert own_settings.database_url.startswith("sqlite")
    env = worker_environment(own_settings)
    code, output = await ramp("dispatcher", env=env)
    assert code == 1, output
    assert "only on PostgreSQL" in output
    assert "Traceback" not in output

    code, output = await ramp("worker", env={**env, **SEPARATE})
    assert code == 2, output
    assert "RAMP_WEBHOOK_DISPATCH=separate needs PostgreSQL" in output
    assert "Traceback" not in output
