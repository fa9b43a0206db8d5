"""A handler holds no database connection while a request body is on its way: it
authenticates in a session of its own, reads and parses the body, and only then opens
the session its application service works in. A slow client (or a slow network) would
otherwise keep one of the pool's few connections per request."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncEngine
from starlette.types import Receive, Scope, Send

from api.app import create_app
from api.services import Services
from ramp.config import Settings
from tests.helpers.projects import ProjectCredentials, bearer, make_customer
from tests.helpers.servers import serve

# (method, path, body, who): every body-reading endpoint this module's services serve.
BODY_ENDPOINTS = [
    ("POST", "/v1/customers", {"id": "slow-1"}, "project"),
    (
        "POST",
        "/v1/customers/external-accounts",
        {"src": "USD", "dest": "USDC_ETHEREUM", "source": {}, "destination": {}},
        "customer",
    ),
    ("POST", "/v1/webhooks/endpoints", {"url": "https://hooks.example.com/a"}, "project"),
    (
        "PATCH",
        "/v1/webhooks/endpoints/5f0c1c2e-0000-4000-8000-000000000000",
        {"enabled": False},
        "project",
    ),
    ("PUT", "/v1/project/onboarding-origins", {"origins": ["https://app.example"]}, "project"),
]


class ConnectionCount:
    """Connections of an engine's pool checked out right now."""

    def __init__(self) -> None:
        self.now = 0

    def watch(self, engine: AsyncEngine) -> None:
        if getattr(self, "_engine", None) is engine:
            return
        self._engine = engine
        event.listen(engine.sync_engine, "checkout", self._out)
        event.listen(engine.sync_engine, "checkin", self._in)

    def _out(self, *_: Any) -> None:
        self.now += 1

    def _in(self, *_: Any) -> None:
        self.now -= 1


@pytest.mark.parametrize(("method", "path", "body", "who"), BODY_ENDPOINTS)
async def test_no_connection_is_held_while_the_body_arrives(
    migrated: Settings,
    project: ProjectCredentials,
    method: str,
    path: str,
    body: dict[str, Any],
    who: str,
) -> None:
    app = create_app(migrated)
    connections = ConnectionCount()

    async def watched(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            services: Services = scope["state"]["services"]
            connections.watch(services.engine)
        await app(scope, receive, send)

    first_part_read = asyncio.Event()
    rest_may_come = asyncio.Event()
    raw = json.dumps(body).encode()

    async def slow_body() -> AsyncIterator[bytes]:
        yield raw[:5]
        first_part_read.set()
        await rest_may_come.wait()
        yield raw[5:]

    async with serve(watched) as http:
        if who == "customer":
            headers = bearer((await make_customer(http, project))["access_token"])
        else:
            headers = project.basic
        sending = asyncio.create_task(
            http.request(
                method,
                path,
                content=slow_body(),
                headers={**headers, "Content-Type": "application/json"},
            )
        )
        await asyncio.wait_for(first_part_read.wait(), 10)
        await asyncio.sleep(0.2)  # the handler waits in the body's second read now
        held = connections.now
        rest_may_come.set()
        response: httpx.Response = await sending
    assert response.status_code < 500, response.text
    assert held == 0, f"{method} {path} held {held} connection(s) while reading its body"
