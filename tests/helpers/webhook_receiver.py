"""A webhook receiver on loopback: records every POST and answers as the test says."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Received:
    path: str
    headers: dict[str, str]  # names lower-cased
    body: bytes

    def json(self) -> dict[str, Any]:
        parsed: dict[str, Any] = json.loads(self.body)
        return parsed


class Receiver(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.received: list[Received] = []
        # Statuses to answer with, in order; then `default_status`.
        self.statuses: list[int] = []
        self.default_status = 200
        # While set, each request waits (up to 60 s) for it to be cleared.
        self.hold = threading.Event()
        self._released = threading.Event()
        self._lock = threading.Lock()
        # Seconds each answer waits (a window in which a second POST of the same event,
        # made at the same time, would be caught); `overlaps` counts such POSTs.
        self.answer_delay = 0.0
        self.overlaps = 0
        self._in_flight: dict[str, int] = {}

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/hooks"

    @property
    def in_flight(self) -> int:
        """POSTs received and not yet answered."""
        with self._lock:
            return sum(self._in_flight.values())

    def release(self) -> None:
        self._released.set()

    async def wait_for(
        self, predicate: Callable[[list[Received]], bool], within: float = 20.0
    ) -> list[Received]:
        """Until `predicate` holds for what has been received (polled, never a fixed sleep)."""
        async with asyncio.timeout(within):
            while True:
                with self._lock:
                    snapshot = list(self.received)
                if predicate(snapshot):
                    return snapshot
                await asyncio.sleep(0.02)

    def _record(self, received: Received) -> int:
        with self._lock:
            self.received.append(received)
            event_id = received.headers.get("webhook-id", "")
            if self._in_flight.get(event_id):
                self.overlaps += 1
            self._in_flight[event_id] = self._in_flight.get(event_id, 0) + 1
            return self.statuses.pop(0) if self.statuses else self.default_status

    def _answered(self, received: Received) -> None:
        with self._lock:
            self._in_flight[received.headers.get("webhook-id", "")] -= 1


class _Handler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        server = self.server
        assert isinstance(server, Receiver)
        body = self.rfile.read(int(self.headers.get("content-length", "0")))
        headers = {name.lower(): value for name, value in self.headers.items()}
        received = Received(self.path, headers, body)
        status = server._record(received)
        if server.hold.is_set():
            server._released.wait(timeout=60)
        time.sleep(server.answer_delay)
        try:
            self.send_response(status)
            self.send_header("Content-Length", "0")
            self.end_headers()
        except OSError:
            pass  # the sender is gone (the test killed it)
        finally:
            server._answered(received)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@asynccontextmanager
async def receiving() -> AsyncIterator[Receiver]:
    receiver = Receiver()
    thread = threading.Thread(target=receiver.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        yield receiver
    finally:
        receiver.release()
        receiver.shutdown()
        receiver.server_close()
        thread.join(timeout=5)
