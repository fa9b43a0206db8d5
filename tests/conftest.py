"""Shared fixtures: a real database (SQLite or PostgreSQL), a real Temporal dev server,
and the Starlette app served in-process through its lifespan.

`RAMP_TEST_DATABASE_URL` selects PostgreSQL (the test command runs the suite once
per database); each run gets a schema of its own there, dropped at the end.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import uuid
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest
from argon2 import PasswordHasher, profiles
from sqlalchemy import Engine, text
from sqlalchemy import create_engine as create_sync_engine
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel import SQLModel
from sqlmodel.ext.asyncio.session import AsyncSession
from temporalio.client import Client
from temporalio.service import RPCError
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Worker
from temporalio.worker._workflow import _WorkflowWorker

from api.app import create_app
from ramp.config import Settings, sync_database_url
from ramp.db.engine import create_engine, session_factory
from ramp.db.migrate import upgrade
from ramp.organizations import secrets as organization_secrets
from ramp.security.encryption import SecretBox
from ramp.security.keys import generated_keys
from tests.helpers.projects import ProjectCredentials, make_customer, make_project
from tests.helpers.servers import (
    FAST_DELIVERY,
    derive_settings,
    dev_server,
    serve,
    service_client,
)
from worker import build_worker

# Fixtures of tests that run the service as processes (their own Temporal server), and
# the exit that dodges the SDK's crash at interpreter finalisation without hiding errors.
pytest_plugins = [
    "tests.helpers.processes",
    "tests.helpers.sandbox",
    "tests.exit_guard",
    "tests.cpu_report",
    "tests.passes",
    "tests.claims",
]


@pytest.fixture(scope="session")
def database_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    postgres = os.environ.get("RAMP_TEST_DATABASE_URL")
    if not postgres:
        yield f"sqlite:///{tmp_path_factory.mktemp('db') / 'ramp.db'}"
        return
    schema = f"ramp_test_{uuid.uuid4().hex[:12]}"
    admin = create_sync_engine(sync_database_url(postgres))
    with admin.begin() as connection:
        connection.execute(text(f'CREATE SCHEMA "{schema}"'))
    separator = "&" if "?" in postgres else "?"
    try:
        yield f"{postgres}{separator}options=-csearch_path%3D{schema}"
    finally:
        with admin.begin() as connection:
            connection.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()


@pytest.fixture(scope="session", autouse=True)
async def _chromium_closed() -> AsyncIterator[None]:
    """The browser tests share one Chromium a process (tests/helpers/browser.py), closed
    here if one was launched (the module is not imported for processes without them)."""
    yield
    browser = sys.modules.get("tests.helpers.browser")
    if browser is not None:
        await browser.close_chromium()


@pytest.fixture(scope="session", autouse=True)
def _cheap_password_hashes() -> Iterator[None]:
    """Dashboard passwords hashed in the test process with argon2id at its cheapest:
    the service's parameters (RFC 9106, 64 MiB) cost 0.2 s of CPU per hash and per
    login, which a module making four members per test paid dozens of times over. The
    work factor is a deployment cost, not a behaviour; the service's own parameters run
    in every test of a process (`ramp dev`, the CLI)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(
            organization_secrets, "_HASHER", PasswordHasher.from_parameters(profiles.CHEAPEST)
        )
        organization_secrets._dummy_hash.cache_clear()
        yield
    organization_secrets._dummy_hash.cache_clear()


@pytest.fixture(scope="session", autouse=True)
def _patient_deadlock_detection() -> Iterator[None]:
    """Workflow activations in the test process may take DEADLOCK_SECONDS before the SDK
    calls them deadlocked, instead of its 2 s: on a machine at a load of 20 a workflow's
    first activation (its sandboxed imports) took longer, the SDK interrupted it, and the
    interruption, landing in a weakref callback, failed an unrelated test as an
    unraisable exception. A workflow that really blocks is still caught. Processes the
    tests start (`python worker.py`, `ramp dev`) keep the SDK's 2 s."""
    original = _WorkflowWorker.__init__

    def patient(self: _WorkflowWorker, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        assert self._deadlock_timeout_seconds is not None  # not debug mode
        self._deadlock_timeout_seconds = DEADLOCK_SECONDS

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_WorkflowWorker, "__init__", patient)
        yield


DEADLOCK_SECONDS = 15


@pytest.fixture(scope="session")
async def temporal_env() -> AsyncIterator[WorkflowEnvironment]:
    async with dev_server() as env:
        yield env


@pytest.fixture(scope="session")
def temporal_client(temporal_env: WorkflowEnvironment) -> Client:
    return service_client(temporal_env)


@pytest.fixture(scope="session")
def session_settings(
    database_url: str, temporal_env: WorkflowEnvironment, tmp_path_factory: pytest.TempPathFactory
) -> Settings:
    config = temporal_env.client.service_client.config
    keys: dict[str, Any] = generated_keys()
    return Settings(
        RAMP_ENV="sandbox",
        RAMP_DATA_DIR=str(tmp_path_factory.mktemp("data")),
        DATABASE_URL=database_url,
        TEMPORAL_ADDRESS=config.target_host,
        RAMP_PUBLIC_URL="http://testserver",
        # The provider simulators listen on loopback (the operator's allowance).
        RAMP_PROVIDER_NETWORKS="127.0.0.1/32",
        **keys,
    )


@pytest.fixture(scope="session")
def schema(session_settings: Settings) -> Settings:
    """The database, migrated once for the session."""
    upgrade(session_settings)
    return session_settings


@pytest.fixture(scope="module")
def settings(session_settings: Settings, request: pytest.FixtureRequest) -> Settings:
    """The session's settings with a task queue of the module's own: a workflow a module
    leaves running finds no worker once the module is done, so it cannot write into the
    next module's rows."""
    module = request.module.__name__.rsplit(".", 1)[-1]
    return derive_settings(session_settings, RAMP_TASK_QUEUE=f"ramp-{module}")


@pytest.fixture(scope="module")
def migrated(schema: Settings, settings: Settings) -> Settings:
    return settings


@pytest.fixture(autouse=True)
async def _clean_database(request: pytest.FixtureRequest) -> AsyncIterator[None]:
    """Every test starts from empty tables (schema made once, by the migrations)."""
    if "migrated" not in request.fixturenames:
        yield
        return
    engines: _CleanupEngines = request.getfixturevalue("_cleanup_engines")
    yield
    settings: Settings = request.getfixturevalue("migrated")
    if "temporal_client" in request.fixturenames:
        await _end_running_workflows(request.getfixturevalue("temporal_client"), settings)
    # In a thread: the session's worker may still be finishing a write (a webhook
    # attempt, say) on this event loop, and SQLite's lock would wait for it forever.
    await asyncio.to_thread(_delete_all_rows, engines.get(settings.migration_url))


class _CleanupEngines:
    """One engine per database for the cleanup of every test, kept for the session: an
    engine made and disposed per test cost 10 (SQLite) to 17 ms (PostgreSQL, a new
    connection and its server process) of the test process's CPU, about 15 s a run."""

    def __init__(self) -> None:
        self._engines: dict[str, Engine] = {}

    def get(self, url: str) -> Engine:
        if url not in self._engines:
            self._engines[url] = create_sync_engine(url)
        return self._engines[url]

    def dispose(self) -> None:
        for engine in self._engines.values():
            engine.dispose()


@pytest.fixture(scope="session")
def _cleanup_engines(database_url: str) -> Iterator[_CleanupEngines]:
    # Disposed before database_url's teardown drops the PostgreSQL schema. Always: a
    # connection left to the garbage collector fails whichever test is running when it
    # is collected (ResourceWarning, an error under this config).
    engines = _CleanupEngines()
    try:
        yield engines
    finally:
        engines.dispose()


async def _end_running_workflows(client: Client, settings: Settings) -> None:
    """Terminates what the test left running on its module's task queue, before its
    rows go: a workflow woken later (a provider event, a timer) would write into
    emptied tables, and its local activity would retry that write for ever and hold
    the module's worker at shutdown (seen: tests/test_provider_event_relay.py hung 600 s
    in teardown)."""
    query = f'TaskQueue="{settings.task_queue}" AND ExecutionStatus="Running"'
    async for execution in client.list_workflows(query):
        handle = client.get_workflow_handle(execution.id, run_id=execution.run_id)
        with contextlib.suppress(RPCError):  # ended meanwhile
            await handle.terminate("the test is over: its rows are deleted")


def _delete_all_rows(engine: Engine) -> None:
    # A worker's webhook dispatcher may log an attempt between deleting the attempts
    # and deleting their delivery (PostgreSQL then refuses the second), or a workflow
    # still recording its intent may lock rows in the other order (PostgreSQL picks
    # this transaction as the deadlock's victim): start again.
    for tries_left in reversed(range(5)):
        try:
            with engine.begin() as connection:
                for table in reversed(SQLModel.metadata.sorted_tables):
                    connection.execute(table.delete())
            break
        except (IntegrityError, OperationalError) as error:
            if not tries_left or (
                isinstance(error, OperationalError) and "deadlock" not in str(error).lower()
            ):
                raise


@pytest.fixture(scope="module")
async def client(migrated: Settings) -> AsyncIterator[httpx.AsyncClient]:
    async with serve(create_app(migrated)) as http:
        yield http


@pytest.fixture(scope="module")
async def sessions(migrated: Settings) -> AsyncIterator[async_sessionmaker[AsyncSession]]:
    """Database sessions for tests and for workers that tests start."""
    engine = create_engine(migrated)
    yield session_factory(engine)
    await engine.dispose()


@pytest.fixture
async def db(sessions: async_sessionmaker[AsyncSession]) -> AsyncIterator[AsyncSession]:
    async with sessions() as session:
        yield session


@pytest.fixture
async def project(db: AsyncSession, migrated: Settings) -> ProjectCredentials:
    return await make_project(db, migrated)


@pytest.fixture
async def customer(client: httpx.AsyncClient, project: ProjectCredentials) -> dict[str, Any]:
    return await make_customer(client, project)


@pytest.fixture(scope="module")
def secret_box(migrated: Settings) -> SecretBox:
    return SecretBox.from_settings(migrated)


@pytest.fixture(scope="module")
async def worker(
    temporal_client: Client,
    sessions: async_sessionmaker[AsyncSession],
    secret_box: SecretBox,
    migrated: Settings,
) -> AsyncIterator[Worker]:
    """The service's worker, polling the module's task queue of the test server. Webhook
    retries come fast here; tests/test_webhook_schedule.py proves the real schedule."""
    async with build_worker(
        temporal_client,
        sessions,
        secret_box,
        delivery=FAST_DELIVERY,
        task_queue=migrated.task_queue,
    ) as running:
        yield running
