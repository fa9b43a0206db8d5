"""Service processes for tests that kill and restart them: `python worker.py` against a
Temporal dev server of the test module's own (so the session's in-process worker cannot
take its tasks), with the API bound to that server.

Its fixtures are registered for every test module by tests/conftest.py.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Self

import httpx
import pytest
from temporalio.api.enums.v1 import TaskQueueKind, TaskQueueType
from temporalio.api.taskqueue.v1 import TaskQueue
from temporalio.api.workflowservice.v1 import DescribeTaskQueueRequest
from temporalio.client import Client
from temporalio.testing import WorkflowEnvironment

from api.app import create_app
from ramp.config import Settings
from ramp.temporal import TASK_QUEUE
from tests.helpers.polling import pauses
from tests.helpers.servers import derive_settings, dev_server, serve, service_client

ROOT = Path(__file__).resolve().parents[2]
# A hang detector, not an expectation: a worker imports the service's stack before it
# polls (2 to 3 s of CPU), which a machine running other work at a load of 20 on two
# cores stretched past 30 s.
WORKER_START_TIMEOUT = 120.0


def worker_environment(settings: Settings, **extra: str) -> dict[str, str]:
    """The test's settings as a worker process reads them (nothing inherited), plus
    `extra` variables."""
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
        "RAMP_TASK_QUEUE": settings.task_queue,
        "RAMP_PROVIDER_NETWORKS": settings.provider_networks,
        **extra,
    }


class ServiceProcesses:
    """Processes of one kind (`command`, run from the repository's root), each logging to
    a file of its own; as a context manager, all killed on leaving and their logs
    printed (pytest shows them when the test fails)."""

    name = "process"
    # Seconds one process may take to say it is ready.
    start_timeout = WORKER_START_TIMEOUT

    def __init__(self, command: list[str], env: dict[str, str], logs: Path) -> None:
        self.command = command
        self.env = env
        self._logs = logs
        self._count = 0  # counted at once: several may be starting together
        self.started: list[tuple[asyncio.subprocess.Process, Path]] = []

    def _command_for(self, log: Path) -> list[str]:
        """The command of the process about to log to `log`."""
        return self.command

    async def start(self) -> asyncio.subprocess.Process:
        self._count += 1
        log = self._logs / f"{self.name}-{self._count}.log"
        with log.open("wb") as output:  # the child keeps its own descriptor
            process = await asyncio.create_subprocess_exec(
                *self._command_for(log),
                cwd=ROOT,
                env=self.env,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=output,
                stderr=asyncio.subprocess.STDOUT,
            )
        self.started.append((process, log))
        await self._until_ready(process, log)
        return process

    async def _until_ready(self, process: asyncio.subprocess.Process, log: Path) -> None:
        raise NotImplementedError

    @property
    def running(self) -> list[asyncio.subprocess.Process]:
        """The processes started and not (yet) seen to exit, in the order started."""
        return [process for process, _ in self.started if process.returncode is None]

    async def stop_all(self) -> None:
        for process, _ in self.started:
            if process.returncode is None:
                process.kill()
            await process.wait()

    def output(self) -> str:
        return "\n".join(self.output_of(process) for process, _ in self.started)

    def output_of(self, process: asyncio.subprocess.Process) -> str:
        """What one started process logged."""
        (log,) = (log for started, log in self.started if started is process)
        return f"--- {log.name} (pid {process.pid}, exit {process.returncode})\n" + log.read_text(
            errors="replace"
        )

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.stop_all()
        print(self.output())


class WorkerProcesses(ServiceProcesses):
    """`python worker.py` processes (or `command`: `ramp worker` as a deployment runs
    it), started once the server lists them as pollers."""

    name = "worker"

    def __init__(
        self,
        client: Client,
        env: dict[str, str],
        logs: Path,
        command: list[str] | None = None,
    ) -> None:
        super().__init__(command or [sys.executable, "worker.py"], env, logs)
        self._client = client

    async def _until_ready(self, process: asyncio.subprocess.Process, log: Path) -> None:
        """Until the server lists the process among the task queue's workflow pollers."""
        identity = f"{process.pid}@"
        request = DescribeTaskQueueRequest(
            namespace="default",
            task_queue=TaskQueue(
                name=self.env.get("RAMP_TASK_QUEUE", TASK_QUEUE),
                kind=TaskQueueKind.TASK_QUEUE_KIND_NORMAL,
            ),
            task_queue_type=TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
        )
        waits = pauses(first=0.05)
        try:
            async with asyncio.timeout(self.start_timeout):
                while process.returncode is None:
                    described = await self._client.workflow_service.describe_task_queue(request)
                    if any(p.identity.startswith(identity) for p in described.pollers):
                        return
                    await asyncio.sleep(next(waits))
        except TimeoutError:
            pass
        raise AssertionError(
            f"worker {process.pid} is not polling (exit status {process.returncode}):\n"
            + self.output()
        )


class DispatcherProcesses(ServiceProcesses):
    """`ramp dispatcher` processes (webhook_dispatcher.py), started once they say so."""

    name = "dispatcher"
    READY = b"webhook dispatcher listening"

    def __init__(self, env: dict[str, str], logs: Path) -> None:
        super().__init__([sys.executable, "-m", "devstack", "dispatcher"], env, logs)

    def _said_ready(self, log: Path) -> bool:
        return self.READY in log.read_bytes()

    async def _until_ready(self, process: asyncio.subprocess.Process, log: Path) -> None:
        waits = pauses(first=0.05)
        try:
            async with asyncio.timeout(self.start_timeout):
                while process.returncode is None:
                    if self._said_ready(log):
                        return
                    await asyncio.sleep(next(waits))
        except TimeoutError:
            pass
        raise AssertionError(
            f"dispatcher {process.pid} did not start (exit status {process.returncode}):\n"
            + self.output()
        )


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


@pytest.fixture
async def workers(
    own_client: Client, own_settings: Settings, tmp_path: Path
) -> AsyncIterator[WorkerProcesses]:
    """`python worker.py` processes of this module's server, killed at the end."""
    async with WorkerProcesses(own_client, worker_environment(own_settings), tmp_path) as started:
        yield started
