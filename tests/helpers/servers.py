"""The real servers tests run against: a Temporal dev server as `ramp dev` runs it, a
client of it configured like the service's own, and the app served in-process (through
ASGI, or over real HTTP where the client's address must be real)."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
from asgi_lifespan import LifespanManager
from starlette.types import ASGIApp
from temporalio.api.testservice.v1 import SleepRequest
from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.testing import WorkflowEnvironment

from api.app import create_app
from api.protocol import SERVER_OPTIONS
from devstack.temporal_server import THROTTLE_LIFTING_DYNAMIC_CONFIG, ensure_search_attributes
from ramp.config import Settings
from ramp.db.engine import create_engine, session_factory
from ramp.security.encryption import SecretBox
from ramp.temporal import SEARCH_ATTRIBUTES
from ramp.webhooks.models import DeliveryPolicy
from tests.serving import bound_socket, uvicorn_on
from worker import build_worker

BIN = Path(sys.executable).parent


FAST_DELIVERY = DeliveryPolicy(retry_delays_seconds=(0.2, 0.2, 0.2, 0.2, 0.2), timeout_seconds=5)


@asynccontextmanager
async def dev_server() -> AsyncIterator[WorkflowEnvironment]:
    """A Temporal dev server as `ramp dev` runs it (throttle lifted, search attributes)."""
    extra = [
        arg
        for key, value in THROTTLE_LIFTING_DYNAMIC_CONFIG.items()
        for arg in ("--dynamic-config-value", f"{key}={value}")
    ]
    async with await WorkflowEnvironment.start_local(
        dev_server_existing_path=str(BIN / "temporal"),
        search_attributes=SEARCH_ATTRIBUTES,
        dev_server_extra_args=extra,
        ui=False,
    ) as env:
        yield env


def service_client(env: WorkflowEnvironment) -> Client:
    """A client of `env` configured like the service's own (pydantic payloads)."""
    return Client(
        env.client.service_client, namespace="default", data_converter=pydantic_data_converter
    )


@asynccontextmanager
async def serve(application: ASGIApp) -> AsyncIterator[httpx.AsyncClient]:
    """An HTTP client of `application`, served in-process through its lifespan."""
    async with LifespanManager(application) as manager:
        transport = httpx.ASGITransport(app=manager.app, raise_app_exceptions=False)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as http:
            yield http


@asynccontextmanager
async def served_over_http(application: ASGIApp) -> AsyncIterator[str]:
    """`application` served by uvicorn as `ramp api` serves it (`SERVER_OPTIONS`), on a
    free port of 127.0.0.1, lifespan included; yields its base URL. Each connection's
    peer address is the one its client bound (`client_bound_to`)."""
    sock = bound_socket()
    async with uvicorn_on(application, sock, lifespan="on", **SERVER_OPTIONS):
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"


def client_bound_to(base_url: str, address: str) -> httpx.AsyncClient:
    """An HTTP client whose connections leave from `address` (any of 127.0.0.0/8 on
    loopback): the server sees that address as the peer."""
    transport = httpx.AsyncHTTPTransport(local_address=address)
    return httpx.AsyncClient(transport=transport, base_url=base_url, timeout=60)


def derive_settings(base: Settings, **overrides: str) -> Settings:
    """`base` with some values replaced (by environment variable name)."""
    values: dict[str, Any] = {
        "RAMP_ENV": base.ramp_env.value,
        "RAMP_DATA_DIR": str(base.data_dir),
        "DATABASE_URL": base.database_url,
        "TEMPORAL_ADDRESS": base.temporal_address,
        "RAMP_PUBLIC_URL": base.public_url,
        "RAMP_SIGNING_KEY": base.signing_key.get_secret_value(),
        "RAMP_ENCRYPTION_KEYS": base.encryption_keys.get_secret_value(),
        "RAMP_TASK_QUEUE": base.task_queue,
        "RAMP_PROVIDER_NETWORKS": base.provider_networks,
        **overrides,
    }
    return Settings(**values)


@asynccontextmanager
async def service_on(settings: Settings, client: Client) -> AsyncIterator[httpx.AsyncClient]:
    """The API and a worker (on `client`'s server) running with `settings`: its database,
    keys and task queue; yields an HTTP client of the API."""
    engine = create_engine(settings)
    try:
        async with (
            build_worker(
                client,
                session_factory(engine),
                SecretBox.from_settings(settings),
                task_queue=settings.task_queue,
            ),
            serve(create_app(settings)) as http,
        ):
            yield http
    finally:
        await engine.dispose()


@asynccontextmanager
async def time_skipping_server() -> AsyncIterator[WorkflowEnvironment]:
    """Temporal's time-skipping test server, with the service's search attributes."""
    async with await WorkflowEnvironment.start_time_skipping(
        test_server_existing_path=str(BIN / "temporal-test-server")
    ) as env:
        # Unknown search attributes would fail every workflow task, forever.
        await ensure_search_attributes(env.client, "default")
        yield env


# What a call to the time-skipping server is given beyond its sleep.
CALL_DEADLINE = timedelta(seconds=30)


async def skip_time(env: WorkflowEnvironment, duration: timedelta) -> None:
    """`env.sleep(duration)` with a deadline the sleep can meet on a busy machine: the
    server skips time only while no activity runs, so the sleep may take up to
    `duration` of real time, and the SDK's default deadline for a call that names none
    (30 s) cut sleeps of a minute short under load ("Timeout expired")."""
    request = SleepRequest()
    request.duration.FromTimedelta(duration)
    await env.client.test_service.unlock_time_skipping_with_sleep(
        request, timeout=duration + CALL_DEADLINE
    )
