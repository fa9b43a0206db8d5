"""Shared fixtures: a real database (SQLite or PostgreSQL), a real Temporal dev server,
and the Starlette app served in-process through its lifespan.

`RAMP_TEST_DATABASE_URL` selects PostgreSQL (the test command runs the suite once
per database); each run gets a schema of its own there, dropped at the end.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
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
]


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "database: reaches the database of RAMP_TEST_DATABASE_URL without the database_url "
        "fixture (kept in the PostgreSQL pass)",
    )
    config.addinivalue_line(
        "markers",
        "postgresql_only: about a behaviour of PostgreSQL deployments (deselected on SQLite)",
    )
    config.addinivalue_line(
        "markers", "sqlite_only: about a behaviour of SQLite deployments (deselected on PostgreSQL)"
    )
    config.addinivalue_line(
        "markers",
        "either_database: reaches the database, but is about something else (a Temporal server "
        "or a worker process killed, no worker at all, throttles, pages, documents): runs in "
        "one of the two passes, split by cost like the tests that reach no database",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Every test that reaches the database under test runs in each database's pass:
    through the `database_url` fixture (directly or through `migrated`, `client`, ...)
    or marked `database`. The others (scripts, the supervisor, `ramp dev` on its own
    SQLite, pure logic) would only repeat themselves: when ./scripts/test runs both
    passes side by side (`RAMP_TEST_PASS` = sqlite or postgres), each such module runs
    in one of them, chosen by its cost so that the two passes end together (`_split`).
    Tests marked `postgresql_only` or `sqlite_only` run only against that database;
    those marked `either_database` reach it but are about something else, and are split
    like the database-free ones."""
    # Split before anything is deselected: both passes must compute the same split.
    owners = _split(items)
    other = "sqlite_only" if os.environ.get("RAMP_TEST_DATABASE_URL") else "postgresql_only"
    elsewhere = [item for item in items if item.get_closest_marker(other) is not None]
    if elsewhere:
        config.hook.pytest_deselected(items=elsewhere)
        items[:] = [item for item in items if item.get_closest_marker(other) is None]
    share = os.environ.get("RAMP_TEST_PASS")
    if share is not None:
        if share not in PASSES:
            raise pytest.UsageError(f"RAMP_TEST_PASS must be one of {PASSES}, not {share!r}")
        _keep(
            config,
            items,
            lambda item: _reaches(item) or _pinned(item) or owners[_module(item)] == share,
        )
    shard = os.environ.get("RAMP_TEST_SHARD")
    if shard:
        index, count = _shard(shard)
        # Computed on what this pass runs, the same in each of its shards.
        mine = _shard_modules(items, count)[index - 1]
        _keep(config, items, lambda item: _module(item) in mine)


def _keep(
    config: pytest.Config, items: list[pytest.Item], ours: Callable[[pytest.Item], bool]
) -> None:
    kept = [item for item in items if ours(item)]
    left = [item for item in items if not ours(item)]
    if left:
        config.hook.pytest_deselected(items=left)
        items[:] = kept


def _shard(raw: str) -> tuple[int, int]:
    """`RAMP_TEST_SHARD=I/N`: this process runs the I-th of N shares of its pass."""
    index, _, count = raw.partition("/")
    if not (index.isdigit() and count.isdigit() and 1 <= int(index) <= int(count)):
        raise pytest.UsageError(f"RAMP_TEST_SHARD must be I/N with 1 <= I <= N, not {raw!r}")
    return int(index), int(count)


def _shard_modules(items: list[pytest.Item], count: int) -> list[set[str]]:
    """The pass's modules in `count` shares of about equal cost (a module stays whole:
    its module-scoped stacks are started once); the costliest first, each to the share
    with the least so far."""
    column = 1 if os.environ.get("RAMP_TEST_DATABASE_URL") else 0
    units = _units(_costs(items, column))
    shares: list[set[str]] = [set() for _ in range(count)]
    load = [0.0] * count
    for unit in sorted(units, key=lambda unit: (-units[unit][0], unit)):
        lightest = min(range(count), key=lambda share: (load[share], share))
        shares[lightest].update(units[unit][1])
        load[lightest] += units[unit][0]
    return shares


def _units(cost: dict[str, float]) -> dict[str, tuple[float, set[str]]]:
    """The modules of `cost` as the units a split moves: one module, or those of a SHARED
    group (by its first module), with their total cost."""
    units: dict[str, tuple[float, set[str]]] = {}
    for module, seconds in cost.items():
        unit = next((min(group) for group in SHARED if module in group), module)
        total, modules = units.get(unit, (0.0, set()))
        units[unit] = (total + seconds, modules | {module})
    return units


# Modules that share a process-wide stack (tests/helpers/sandbox.py): kept in one pass and
# one process, so that they start it once.
SHARED = (
    {
        "tests/test_ramp_dev.py",
        "tests/test_ramp_dev_faults.py",
        "tests/test_ramp_dev_privacy.py",
        "tests/test_readme_walk.py",
    },
)


PASSES = ("postgres", "sqlite")

# What the split weighs: each module's CPU seconds in a pass (tests/cpu_report.py, user +
# sys of pytest's process tree, which hardly moves with the machine's load, unlike wall
# time), from the reports of `CI=true ./scripts/test` on the 2-core machine, 2026-11-26
# (three processes a pass), with the modules changed since then measured before and
# after and scaled alike; only the ratios matter, and a stale figure only unbalances the
# processes a little. A process has two cores to share with five others, so its wall time
# follows its CPU, plus what each test waits for beyond it (the database, Temporal, the
# event loop): TEST_WAIT_SECONDS a test, for every module. A module not listed counts
# DEFAULT_TEST_SECONDS of CPU per test (about what the small modules take).
#
# MODULE_SECONDS: the tests of a module that run in one of the two passes, chosen by the
# split (they reach no database, or are marked either_database).
MODULE_SECONDS = {
    "tests/test_ramp_dev_faults.py": 23,
    "tests/test_scripts.py": 18,
    "tests/test_ramp_dev.py": 18,  # the shared stack's start and restart
    "tests/test_bridge_polling.py": 18,
    "tests/test_onboarding_page.py": 13,
    "tests/test_bridge_worker_kill.py": 13,
    "tests/test_exit_guard.py": 11,
    "tests/test_replay.py": 11,
    "tests/test_ramp_dev_production.py": 10,
    "tests/test_dashboard_browser.py": 10,
    "tests/test_cli.py": 9,
    "tests/test_intent_temporal_restart.py": 8,
    "tests/test_intent_durability.py": 7,
    "tests/test_onboarding_durability.py": 7,
    "tests/test_throttling_by_address.py": 5,
    "tests/test_worker_outage.py": 4,
    "tests/test_supervisor.py": 4,
    "tests/test_intent_expiry.py": 4,
    "tests/test_api_reference.py": 3,
    "tests/test_readme_walk.py": 3,
    "tests/test_provider_accounts.py": 3,  # its CLI test
    "tests/test_intent_provider_failures.py": 2,
    "tests/test_python_client.py": 2,
    "tests/test_bridge_onboarding_page.py": 2,
    "tests/test_webhook_cli.py": 2,
}
DEFAULT_TEST_SECONDS = 0.05
TEST_WAIT_SECONDS = 0.1
# SHARD_SECONDS: the tests of a module that run in a pass whatever the split (they reach
# the database, or are pinned to it): their CPU seconds in the SQLite pass and in the
# PostgreSQL pass.
SHARD_SECONDS = {
    "tests/test_scale_out.py": (0, 38),
    "tests/test_webhook_durability.py": (25, 25),
    "tests/test_schemathesis.py": (18, 25),
    "tests/test_ramp_dev.py": (0, 13),  # `ramp dev --database-url`, PostgreSQL only
    "tests/test_intents.py": (10, 12),
    "tests/test_webhooks.py": (11, 8),
    "tests/test_bridge_production.py": (9, 9),
    "tests/test_monerium_production.py": (7, 8),
    "tests/test_onboarding_api.py": (6, 7),
    "tests/test_cancel.py": (7, 7),
    "tests/test_dashboard_admin.py": (5, 6),
    "tests/test_webhook_dispatcher_process.py": (5, 6),
    "tests/test_migrations.py": (5, 3),
    "tests/test_monerium_onboarding_page.py": (5, 5),
    "tests/test_routing.py": (3, 5),
    "tests/test_provider_event_relay.py": (2, 4),
    "tests/test_bridge_poll_schedule.py": (2, 2),
    "tests/test_events_api.py": (2, 2),
    "tests/test_webhook_dispatch.py": (2, 2),
}


def _fixed(item: pytest.Item) -> bool:
    """Runs in its pass whatever the split: reaches the database, or is pinned to one."""
    return _reaches(item) or _pinned(item)


def _costs(items: list[pytest.Item], column: int) -> dict[str, float]:
    """The cost of each module's tests among `items`, in the pass of SHARD_SECONDS's
    `column` (0 SQLite, 1 PostgreSQL)."""
    counts: dict[str, list[int]] = {}  # module: [fixed tests, split tests]
    for item in items:
        counts.setdefault(_module(item), [0, 0])[0 if _fixed(item) else 1] += 1
    cost: dict[str, float] = {}
    for module, (fixed, split) in counts.items():
        seconds = TEST_WAIT_SECONDS * (fixed + split)
        if fixed:
            listed = SHARD_SECONDS.get(module)
            seconds += listed[column] if listed else DEFAULT_TEST_SECONDS * fixed
        if split:
            seconds += MODULE_SECONDS.get(module, DEFAULT_TEST_SECONDS * split)
        cost[module] = seconds
    return cost


def _split(items: list[pytest.Item]) -> dict[str, str]:
    """The pass each module's database-free tests run in: the costliest first, each
    to the pass with the least so far (a greedy split, the same in both passes), each
    pass starting from what it runs whatever the split (its database's tests)."""
    load: dict[str, float] = {}
    for share, column, elsewhere in (
        ("sqlite", 0, "postgresql_only"),
        ("postgres", 1, "sqlite_only"),
    ):
        anyway = [i for i in items if _fixed(i) and i.get_closest_marker(elsewhere) is None]
        load[share] = sum(_costs(anyway, column).values())
    units = _units(_costs([item for item in items if not _fixed(item)], 0))
    owners: dict[str, str] = {}
    for unit in sorted(units, key=lambda unit: (-units[unit][0], unit)):
        lightest = min(PASSES, key=lambda share: (load[share], share))
        owners.update(dict.fromkeys(units[unit][1], lightest))
        load[lightest] += units[unit][0]
    return owners


def _module(item: pytest.Item) -> str:
    return item.nodeid.split("::", 1)[0]


def _pinned(item: pytest.Item) -> bool:
    """About one database: runs in that database's pass, whatever the split."""
    return any(item.get_closest_marker(name) for name in ("sqlite_only", "postgresql_only"))


def _reaches(item: pytest.Item) -> bool:
    if item.get_closest_marker("either_database") is not None:
        return False
    names = getattr(item, "fixturenames", ())
    return "database_url" in names or item.get_closest_marker("database") is not None


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
