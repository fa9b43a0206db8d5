"""What the providers' simulators share: serving one with uvicorn on a free loopback
port in the test's event loop, and answering a request their gate has read already.
What each checks and answers (Bridge's idempotency keys, Monerium's bearer tokens,
their faults and error bodies) stays in its own module."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import uvicorn
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Message


@asynccontextmanager
async def on_loopback(app: ASGIApp) -> AsyncIterator[str]:
    """`app` served by uvicorn on a free port of 127.0.0.1, without its lifespan;
    yields its origin (`http://127.0.0.1:<port>`)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    config = uvicorn.Config(app, lifespan="off", log_level="warning",
                            access_log=False, http="h11", ws="none",
                            timeout_graceful_shutdown=1)  # fmt: skip
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        async with asyncio.timeout(15):
            while not server.started:
                if task.done():
                    task.result()
                await asyncio.sleep(0.01)
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        await task
        sock.close()


async def answer_of(app: ASGIApp, request: Request, raw: bytes) -> Response:
    """`app`'s answer to `request`, whose body (`raw`) the gate has read already, as a
    response the gate can still look at (its status, its JSON body) before sending it.
    An exception of `app` (a simulator's `Invalid`) reaches the caller."""
    captured: dict[str, Any] = {}

    async def receive() -> Message:
        return {"type": "http.request", "body": raw, "more_body": False}

    async def send(message: Message) -> None:
        if message["type"] == "http.response.start":
            captured["status"], captured["headers"] = message["status"], message["headers"]
        elif message["type"] == "http.response.body":
            captured["body"] = captured.get("body", b"") + message.get("body", b"")

    await app(request.scope, receive, send)
    return Response(captured.get("body", b""), status_code=captured["status"],
                    media_type="application/json")  # fmt: skip
