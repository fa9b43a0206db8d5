"""The intent, onboarding and sandbox handlers hold no database connection while a
request body is on its way: they authenticate in a session of their own, read and parse
the body, and only then call the service, which opens the sessions it needs. A slow
client would otherwise keep one of the pool's few connections per request."""

from __future__ import annotations

import asyncio
import json
import uuid
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
from tests.helpers.onboarding import TERMS, start_onboarding
from tests.helpers.payments import register_accounts
from tests.helpers.projects import ProjectCredentials, bearer, make_customer
from tests.helpers.servers import serve


class ConnectionCount:
    """Connections of an engine's pool checked out right now."""

    def __init__(self) -> None:
        self.now = 0
        self._engine: AsyncEngine | None = None

    def watch(self, engine: AsyncEngine) -> None:
        if self._engine is engine:
            return
        self._engine = engine
        event.listen(engine.sync_engine, "checkout", self._out)
        event.listen(engine.sync_engine, "checkin", self._in)

    def _out(self, *_: Any) -> None:
        self.now += 1

    def _in(self, *_: Any) -> None:
        self.now -= 1


pytestmark = pytest.mark.usefixtures("worker")

ENDPOINTS = ["create", "execute", "sandbox-step", "sandbox-event", "onboarding-submit"]


async def _request(
    http: httpx.AsyncClient, project: ProjectCredentials, endpoint: str
) -> tuple[str, dict[str, Any], dict[str, str]]:
    """(path, body, headers) of a request to `endpoint` that its handler reads whole."""
    token = (await make_customer(http, project, f"slow-{uuid.uuid4()}"))["access_token"]
    accounts = await register_accounts(http, token)
    if endpoint == "create":
        body = {"srcExternalAccountId": accounts[0], "destExternalAccountId": accounts[1]}
        headers = {**bearer(token), "Idempotency-Key": str(uuid.uuid4())}
        return "/v1/intent", {**body, "amount": "100.00"}, headers
    intent_id, link = await start_onboarding(http, token, accounts=accounts)
    if endpoint == "execute":
        return f"/v1/intent/{intent_id}/transaction", {}, bearer(token)
    if endpoint == "sandbox-step":
        # Not the current step: refused (409), so no signal outlives the test.
        path = f"/v1/sandbox/intents/{intent_id}/compliance-steps/KYC_BASIC"
        return path, {"outcome": "VERIFIED"}, project.basic
    if endpoint == "sandbox-event":
        path = f"/v1/sandbox/transactions/{uuid.uuid4()}/events"
        return path, {"type": "DEPOSIT_RECEIVED"}, project.basic
    return f"/v1/onboarding/{intent_id}/steps/TERMS_OF_SERVICE", TERMS, bearer(link)


@pytest.mark.parametrize("endpoint", ENDPOINTS)
async def test_no_connection_is_held_while_the_body_arrives(
    migrated: Settings, project: ProjectCredentials, endpoint: str
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

    async with serve(watched) as http:
        path, body, headers = await _request(http, project, endpoint)
        raw = json.dumps(body).encode()

        async def slow_body() -> AsyncIterator[bytes]:
            yield raw[:1]
            first_part_read.set()
            await rest_may_come.wait()
            yield raw[1:]

        sending = asyncio.create_task(
            http.post(
                path, content=slow_body(), headers={**headers, "Content-Type": "application/json"}
            )
        )
        await asyncio.wait_for(first_part_read.wait(), 10)
        await asyncio.sleep(0.2)  # the handler waits in the body's second read now
        held = connections.now
        rest_may_come.set()
        response = await sending
    assert response.status_code < 500, response.text
    assert held == 0, f"POST {path} held {held} connection(s) while reading its body"
