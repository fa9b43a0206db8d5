"""Counting a pool's checked-out connections while a request body is still arriving:
a handler must not hold one then (a slow client would keep it for as long as it likes)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncEngine
from starlette.types import ASGIApp, Receive, Scope, Send

from api.services import Services


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


def watched(app: ASGIApp, connections: ConnectionCount) -> ASGIApp:
    """`app`, with `connections` counting the pool of the services it serves with."""

    async def serve(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            services: Services = scope["state"]["services"]
            connections.watch(services.engine)
        await app(scope, receive, send)

    return serve


async def held_while_the_body_arrives(
    http: httpx.AsyncClient,
    connections: ConnectionCount,
    method: str,
    path: str,
    body: dict[str, Any],
    headers: dict[str, str],
) -> tuple[int, httpx.Response]:
    """Sends `body` in two parts with a pause between them; returns the connections held
    during the pause, and the response."""
    first_part_read = asyncio.Event()
    rest_may_come = asyncio.Event()
    raw = json.dumps(body).encode()

    async def slow_body() -> AsyncIterator[bytes]:
        yield raw[:1]
        first_part_read.set()
        await rest_may_come.wait()
        yield raw[1:]

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
    return held, await sending
