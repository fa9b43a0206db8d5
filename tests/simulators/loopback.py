"""What the providers' simulators share: serving one with uvicorn on a free loopback
port in the test's event loop, and the gate before its routes, which reads each request
whole before deciding how to answer it. What each checks and answers (Bridge's
idempotency keys, Monerium's bearer tokens, their faults and error bodies) stays in its
own module."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, Generic, TypeVar

from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from tests.serving import bound_socket, uvicorn_on

Simulator = TypeVar("Simulator")


@asynccontextmanager
async def on_loopback(app: ASGIApp) -> AsyncIterator[str]:
    """`app` served by uvicorn on a free port of 127.0.0.1, without its lifespan;
    yields its origin (`http://127.0.0.1:<port>`)."""
    sock = bound_socket()
    async with uvicorn_on(app, sock, lifespan="off", http="h11", ws="none"):
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"


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


class Gate(Generic[Simulator]):
    """The middleware a simulator puts before its routes: an HTTP request is read whole
    (recorded, checked) and `answer`ed, which may serve it through the routes with
    `answer_of(self.app, ...)`; other scopes pass through."""

    def __init__(self, app: ASGIApp, simulator: Simulator) -> None:
        self.app, self.sim = app, simulator

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = Request(scope, receive)
        response = await self.answer(request, await request.body())
        await response(scope, receive, send)

    async def answer(self, request: Request, raw: bytes) -> Response:
        raise NotImplementedError
