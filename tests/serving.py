"""An ASGI app served by uvicorn in the test's event loop, on a socket bound before it
serves (its port known in advance, and no other process can take it meanwhile): the API
over real HTTP (tests/helpers/servers.py, the browser tests) and the providers'
simulators (tests/simulators/loopback.py) alike. A package of its own, so that the
helpers and the simulators both use it without importing each other."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import uvicorn
from starlette.types import ASGIApp

# How long uvicorn may take to serve: its lifespan (the app's startup) included.
START_TIMEOUT = 15.0


def bound_socket(host: str = "127.0.0.1") -> socket.socket:
    """A socket on a free port of `host`, ready for uvicorn to listen on."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, 0))
    return sock


@asynccontextmanager
async def uvicorn_on(app: ASGIApp, sock: socket.socket, **options: Any) -> AsyncIterator[None]:
    """`app` served on `sock` until the block ends; then uvicorn stops and the socket is
    closed. `options` are uvicorn's (`lifespan`, `http`, ...); logs are warnings only."""
    config = uvicorn.Config(
        app, log_level="warning", access_log=False, timeout_graceful_shutdown=1, **options
    )
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        async with asyncio.timeout(START_TIMEOUT):
            while not server.started:
                if task.done():
                    task.result()  # its exception, if it failed
                    raise AssertionError("uvicorn stopped before it started")
                await asyncio.sleep(0.01)
        yield
    finally:
        server.should_exit = True
        await task
        sock.close()
