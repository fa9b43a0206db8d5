"""The webhook figures of `bench.intents`: POST /intent with endpoints subscribed, and
how soon a first attempt reaches its endpoint.

A receiver on loopback, in a process of its own, acknowledges every POST at once and
notes when it first saw each event at each of its paths (one path per endpoint). The
first attempt's time is from the delivery's `createdAt` (set in the projection's
transaction, just before its commit) to the receiver's 2xx, for the deliveries created
during the throughput phase (N concurrent callers).
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import statistics
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from multiprocessing.connection import Connection
from typing import Any
from urllib.parse import urlsplit

import httpx

# Each auto-complete intent emits 5 events (3 steps, the transaction, the intent).
EVENTS_PER_AUTO_COMPLETED_INTENT = 5

Measure = Callable[[], Awaitable[dict[str, Any]]]


class _Server(ThreadingHTTPServer):
    """Webhook endpoints on loopback (one per path) that acknowledge at once."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Acknowledge)
        self.received = 0
        # (path, event id) -> when it was first acknowledged (epoch seconds).
        self.first_seen: dict[tuple[str, str], float] = {}
        self.lock = threading.Lock()


class _Acknowledge(BaseHTTPRequestHandler):
    # Keep-alive, as a real endpoint would: a connection (and a thread) per sender
    # connection, not per POST.
    protocol_version = "HTTP/1.1"

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length", "0")))
        self.send_response(204)
        self.end_headers()
        now = time.time()
        assert isinstance(self.server, _Server)
        with self.server.lock:
            self.server.received += 1
            self.server.first_seen.setdefault((self.path, self.headers["webhook-id"]), now)

    def log_message(self, format: str, *args: Any) -> None:
        pass


def _serve(commands: Connection) -> None:
    """The receiver's process: serves until told to stop, answers what it saw."""
    server = _Server()
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    commands.send(server.server_address[1])
    while (command := commands.recv()) != "stop":
        with server.lock:
            commands.send(server.received if command == "received" else dict(server.first_seen))
    server.shutdown()
    server.server_close()
    thread.join(timeout=5)


class Receiver:
    """The receiver, in a process of its own: a project's endpoint is not in the
    process that calls the API, so its CPU and its threads must not slow the bench's
    callers (in the bench's process they held its GIL and inflated the figures)."""

    def __init__(self, port: int, commands: Connection) -> None:
        self._port = port
        self._commands = commands

    def url(self, path: str = "/") -> str:
        return f"http://127.0.0.1:{self._port}{path}"

    @property
    def received(self) -> int:
        self._commands.send("received")
        count: int = self._commands.recv()
        return count

    def first_seen(self) -> dict[tuple[str, str], float]:
        """(path, event id) -> when it was first acknowledged (epoch seconds)."""
        self._commands.send("first_seen")
        seen: dict[tuple[str, str], float] = self._commands.recv()
        return seen


@contextlib.contextmanager
def receiving() -> Iterator[Receiver]:
    ours, theirs = multiprocessing.get_context("spawn").Pipe()
    process = multiprocessing.get_context("spawn").Process(target=_serve, args=(theirs,))
    process.start()
    try:
        yield Receiver(ours.recv(), ours)
    finally:
        ours.send("stop")
        process.join(timeout=10)
        if process.is_alive():
            process.kill()


async def subscribed(
    http: httpx.AsyncClient, project: dict[str, str], receiver: Receiver, count: int
) -> list[str]:
    """`count` endpoints, each on a path of its own, subscribed to every event."""
    ids = []
    for n in range(count):
        response = await http.post(
            "/v1/webhooks/endpoints", json={"url": receiver.url(f"/e{n}")}, headers=project
        )
        assert response.status_code == 201, response.text
        ids.append(response.json()["id"])
    return ids


async def unsubscribe(http: httpx.AsyncClient, project: dict[str, str], ids: list[str]) -> None:
    for endpoint_id in ids:
        response = await http.delete(f"/v1/webhooks/endpoints/{endpoint_id}", headers=project)
        assert response.status_code == 204, response.text


async def measure_with_endpoints(
    http: httpx.AsyncClient,
    project: dict[str, str],
    measure: Measure,
    intents: int,
    endpoints: int,
) -> dict[str, Any]:
    """`measure()` (POST /intent) with `endpoints` subscribed; waits until every event
    reached every endpoint; adds the first attempts' times."""
    with receiving() as receiver:
        ids = await subscribed(http, project, receiver, endpoints)
        measured = await measure()
        window = measured.pop("throughput_window")
        expected = intents * EVENTS_PER_AUTO_COMPLETED_INTENT * endpoints
        deadline = time.monotonic() + 60 + expected / 50
        # The receiver counts in its own process: poll it.
        while receiver.received < expected and time.monotonic() < deadline:  # noqa: ASYNC110
            await asyncio.sleep(0.1)
        figures = {
            **measured,
            "webhooks_delivered": receiver.received,
            "webhooks_expected": expected,
        }
        if endpoints == 1:
            figures["first_attempt_ms"] = await first_attempts(http, project, receiver, window)
        await unsubscribe(http, project, ids)
    return figures


async def first_attempts(
    http: httpx.AsyncClient, project: dict[str, str], receiver: Receiver, window: list[float]
) -> dict[str, Any]:
    """Commit to the receiver's 2xx, for the deliveries created in `window`."""
    start, end = window
    timings: list[float] = []
    missing = 0
    first_seen = receiver.first_seen()
    url: str | None = "/v1/webhooks/deliveries?limit=100"
    while url is not None:
        response = await http.get(url, headers=project)
        assert response.status_code == 200, response.text
        for delivery in response.json():
            created = datetime.fromisoformat(delivery["createdAt"]).timestamp()
            if not start <= created <= end:
                continue
            seen = first_seen.get((urlsplit(delivery["url"]).path, delivery["eventId"]))
            if seen is None:
                missing += 1
                continue
            timings.append((seen - created) * 1000)
        url = response.links.get("next", {}).get("url")
        # Newest first: past the window's start, the rest is older.
        if response.json() and (
            datetime.fromisoformat(response.json()[-1]["createdAt"]).timestamp() < start
        ):
            url = None
    cuts = statistics.quantiles(timings, n=100, method="inclusive")
    return {
        "p50": round(statistics.median(timings), 1),
        "p99": round(cuts[98], 1),
        "deliveries": len(timings),
        "not_received": missing,
    }
