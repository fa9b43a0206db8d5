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
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from multiprocessing.connection import Connection
from typing import Any
from urllib.parse import urlsplit

import httpx

# Each auto-complete intent emits 5 events (3 steps, the transaction, the intent).
EVENTS_PER_AUTO_COMPLETED_INTENT = 5

# Measures POST /intent; its argument: more processes whose CPU to count (role -> pid).
Measure = Callable[[dict[str, int]], Awaitable[dict[str, Any]]]


class _Endpoint(asyncio.Protocol):
    """One sender connection to the receiver's endpoints (one per path): each POST is
    acknowledged with a 204 as soon as its body is in, keeping the connection open.

    Written on asyncio's transport, not an HTTP server framework: the receiver stands
    for a project's endpoint on another machine, yet shares this machine's two cores
    with the service, so its CPU per request is kept low (0.22 ms per POST measured,
    against 0.26 ms for a threaded http.server) and reported with the others'."""

    def __init__(self, seen: _Seen) -> None:
        self._seen = seen
        self._buffer = b""
        self._transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self._transport = transport

    def data_received(self, data: bytes) -> None:
        self._buffer += data
        while (head_end := self._buffer.find(b"\r\n\r\n")) >= 0:
            head = self._buffer[:head_end].decode("latin-1").split("\r\n")
            fields = dict(
                (name.strip().lower(), value.strip())
                for name, _, value in (line.partition(":") for line in head[1:])
            )
            request_end = head_end + 4 + int(fields.get("content-length", "0"))
            if len(self._buffer) < request_end:
                return  # the body is still arriving
            self._buffer = self._buffer[request_end:]
            assert self._transport is not None
            self._transport.write(b"HTTP/1.1 204 No Content\r\n\r\n")
            path = head[0].split(" ")[1]
            self._seen.acknowledged(path, fields.get("webhook-id", ""))


class _Seen:
    def __init__(self) -> None:
        self.received = 0
        # (path, event id) -> when it was first acknowledged (epoch seconds).
        self.first_seen: dict[tuple[str, str], float] = {}

    def acknowledged(self, path: str, event_id: str) -> None:
        self.received += 1
        self.first_seen.setdefault((path, event_id), time.time())


def _serve(commands: Connection) -> None:
    """The receiver's process: serves until told to stop, answers what it saw."""
    asyncio.run(_serving(commands))


async def _serving(commands: Connection) -> None:
    loop = asyncio.get_running_loop()
    seen = _Seen()
    server = await loop.create_server(lambda: _Endpoint(seen), "127.0.0.1", 0)
    commands.send(server.sockets[0].getsockname()[1])
    # Commands are read on a thread; the answers are taken on the loop, which owns
    # the counts.
    while (command := await asyncio.to_thread(commands.recv)) != "stop":
        commands.send(seen.received if command == "received" else dict(seen.first_seen))
    # Not wait_closed(): the service's dispatcher keeps its connections open.
    server.close()


class Receiver:
    """The receiver, in a process of its own: a project's endpoint is not in the
    process that calls the API, so its CPU and its threads must not slow the bench's
    callers (in the bench's process they held its GIL and inflated the figures)."""

    def __init__(self, port: int, commands: Connection, pid: int) -> None:
        self._port = port
        self._commands = commands
        self.pid = pid

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
        assert process.pid is not None
        yield Receiver(ours.recv(), ours, process.pid)
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
        measured = await measure({"receiver": receiver.pid})
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
            figures["first_attempt"] = await first_attempts(http, project, receiver, window)
        await unsubscribe(http, project, ids)
    return figures


@dataclass(frozen=True)
class FirstAttempts:
    timings_ms: list[float]
    not_received: int


async def first_attempts(
    http: httpx.AsyncClient, project: dict[str, str], receiver: Receiver, window: list[float]
) -> FirstAttempts:
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
    return FirstAttempts(timings, missing)


def first_attempt_figures(rounds: list[FirstAttempts]) -> dict[str, Any]:
    timings = [t for r in rounds for t in r.timings_ms]
    cuts = statistics.quantiles(timings, n=100, method="inclusive")
    return {
        "p50": round(statistics.median(timings), 1),
        "p99": round(cuts[98], 1),
        "deliveries": len(timings),
        "not_received": sum(r.not_received for r in rounds),
    }
