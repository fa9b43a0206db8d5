"""Intents created while the Temporal server dies are not lost.

A real `temporal server start-dev` process on a database file of its own, a real worker
process, the API in-process. The server is SIGKILLed while `POST /intent` calls are in
flight, which can lose `open` updates it had admitted but not yet accepted, and is
restarted on the same file. Every retry with the same Idempotency-Key must then yield
an intent whose workflow holds it: provider events are applied and it settles.
"""

from __future__ import annotations

import asyncio
import signal
import socket
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter

from api.app import create_app
from devstack.temporal_server import dev_server_args, wait_until_serving
from ramp.config import Settings
from ramp.intents.lifecycle import workflow_id
from tests.helpers.payments import (
    complete_onboarding,
    create_intent,
    get_intent,
    provider_event,
    register_accounts,
    wait_for_intent,
)
from tests.helpers.processes import WorkerProcesses, worker_environment
from tests.helpers.projects import ProjectCredentials, make_customer
from tests.helpers.servers import derive_settings, serve

# About Temporal's server dying, not the database: one of the two passes runs it.
pytestmark = pytest.mark.either_database

CREATES = 12
# After the restart the workflows' tasks first go to sticky queues of the worker's
# broken connection, then time out to the normal queue (shared notes: about 10 s).
RECOVERY_TIMEOUT = 90.0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@dataclass
class TemporalProcess:
    """`temporal server start-dev` on a fixed port and database file."""

    port: int
    db_file: Path
    log: Path
    process: asyncio.subprocess.Process | None = None

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    async def start(self) -> None:
        """Started on `port` (kept across a restart), without the Web UI."""
        argv = dev_server_args(host="127.0.0.1", port=self.port, ui_port=None, db_file=self.db_file)
        with self.log.open("ab") as output:
            self.process = await asyncio.create_subprocess_exec(
                *argv, stdin=asyncio.subprocess.DEVNULL, stdout=output, stderr=output
            )
        process = self.process
        await wait_until_serving(
            self.address, "default", 30.0, is_alive=lambda: process.returncode is None
        )

    def port_was_taken(self) -> bool:
        """Whether the last start failed because another process held the port (the
        free port was found free, then taken by a neighbour test before the bind)."""
        return self.log.exists() and b"address already in use" in self.log.read_bytes()

    async def kill(self) -> None:
        assert self.process is not None
        self.process.kill()
        assert await self.process.wait() == -signal.SIGKILL


@pytest.fixture
async def temporal_process(tmp_path: Path) -> AsyncIterator[TemporalProcess]:
    for attempt in range(3):  # a port taken between the probe and the bind: another one
        log = tmp_path / f"temporal-{attempt}.log"
        server = TemporalProcess(free_port(), tmp_path / f"temporal-{attempt}.db", log)
        try:
            await server.start()
            break
        except RuntimeError:
            if attempt == 2 or not server.port_was_taken():
                raise
    try:
        yield server
    finally:
        if server.process is not None and server.process.returncode is None:
            server.process.terminate()
            await server.process.wait()


@pytest.fixture
def restart_settings(migrated: Settings, temporal_process: TemporalProcess) -> Settings:
    return derive_settings(migrated, TEMPORAL_ADDRESS=temporal_process.address)


@pytest.fixture
async def restart_client(temporal_process: TemporalProcess) -> Client:
    return await Client.connect(temporal_process.address, data_converter=pydantic_data_converter)


@pytest.fixture
async def restart_workers(
    restart_client: Client, restart_settings: Settings, tmp_path: Path
) -> AsyncIterator[WorkerProcesses]:
    environment = worker_environment(restart_settings)
    async with WorkerProcesses(restart_client, environment, tmp_path) as started:
        yield started


async def create_until_answered(
    http: httpx.AsyncClient, token: str, accounts: tuple[str, str], key: str
) -> dict[str, Any]:
    """Retries `POST /intent` with `key` until it is answered 201."""
    answer: httpx.Response | None = None
    async with asyncio.timeout(RECOVERY_TIMEOUT):
        while True:
            answer = await create_intent(http, token, accounts, headers={"Idempotency-Key": key})
            if answer.status_code == 201:
                body: dict[str, Any] = answer.json()
                return body
            assert answer.status_code == 503, answer.text
            await asyncio.sleep(0.5)


async def test_intents_created_across_a_temporal_kill_all_settle(
    project: ProjectCredentials,
    temporal_process: TemporalProcess,
    restart_settings: Settings,
    restart_client: Client,
    restart_workers: WorkerProcesses,
) -> None:
    worker = await restart_workers.start()
    async with serve(create_app(restart_settings)) as http:
        customer = await make_customer(http, project, "restart")
        token: str = customer["access_token"]
        accounts = await register_accounts(http, token)
        # Onboarded once, the customer's next intents create their transaction at once.
        first = await create_intent(http, token, accounts)
        assert first.status_code == 201, first.text
        await complete_onboarding(http, project, token, first.json()["intent"]["id"])

        keys = [f"across-kill-{n}" for n in range(CREATES)]
        calls = [
            asyncio.create_task(
                create_intent(http, token, accounts, headers={"Idempotency-Key": key})
            )
            for key in keys
        ]
        await asyncio.sleep(0.3)
        await temporal_process.kill()
        # Whatever they answered (201, 503), their retries below must all agree.
        await asyncio.gather(*calls, return_exceptions=True)
        await temporal_process.start()
        if worker.returncode is not None:
            await restart_workers.start()

        created = [await create_until_answered(http, token, accounts, key) for key in keys]
        for envelope in created:
            intent_id = envelope["intent"]["id"]
            description = await restart_client.get_workflow_handle(
                workflow_id(intent_id)
            ).describe()
            held = {
                pair.key.name: pair.value
                for pair in description.typed_search_attributes.search_attributes
            }
            # The update reached the workflow: it holds the intent.
            assert held.get("RampIntentStatus") == "PROCESSING", (intent_id, held)
            assert envelope["transaction"] is not None, envelope
        # The sandbox checks each event against the projection: one step at a time.
        for event, status in (("DEPOSIT_RECEIVED", "IN_PROGRESS"), ("SETTLED", "SUCCESS")):
            for envelope in created:
                transaction_id = envelope["transaction"]["id"]
                accepted = await provider_event(http, project, transaction_id, event)
                assert accepted.status_code == 202, accepted.text
            for envelope in created:
                await wait_for_intent(
                    http,
                    token,
                    envelope["intent"]["id"],
                    lambda body, status=status: body["transaction"]["status"] == status,  # type: ignore[misc]
                    RECOVERY_TIMEOUT,
                )
        for envelope in created:
            settled = await get_intent(http, token, envelope["intent"]["id"])
            assert settled["intent"]["status"] == "COMPLETED"
