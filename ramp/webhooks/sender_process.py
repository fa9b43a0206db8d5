"""Webhook attempts made from a child process of the worker, off the worker's core.

A worker is one Python process, and at full load it uses most of a core: every
millisecond it spends on an HTTP POST is taken from intents. Its dispatcher keeps
every database step (claims, leases, the delivery log; on SQLite the worker is the only
writer) and hands each attempt to this child, which signs and POSTs it
(ramp/webhooks/sending.py) and answers what came of it. docs/decisions.md, Issue 16,
has the measurements.

The two talk over the child's stdin and stdout: length-prefixed pickles, written in
batches (one write per turn of the event loop, not per attempt). The child is ours,
started from our own interpreter, so pickle is safe here; the signing secrets cross a
pipe between the two processes and are never written anywhere. The child ignores
Ctrl-C and SIGTERM (the worker finishes its attempts under way first) and leaves when
its stdin closes: when the worker closes it, or dies.

If the child dies, the attempts it had fail with `SenderGone` (the dispatcher makes
them again while their leases allow, else a dispatcher claims them again once the
leases lapse: at least once) and the next attempt starts a new child.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import pickle
import signal
import struct
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import datetime
from typing import Any

from ramp.webhooks.sending import Outgoing, Sender, Sent, Signer, http_client, send

logger = logging.getLogger("ramp.webhooks.sender_process")

_FRAME = struct.Struct(">I")
# A child that dies within this long of its start is not started again sooner than this.
RESTART_PAUSE_SECONDS = 1.0
# On close, how long the child has to leave after its stdin closes.
EXIT_GRACE_SECONDS = 5.0


class SenderGone(RuntimeError):
    """The child died before it answered: the attempt may or may not have been made."""


class _Frames:
    """Frames to write, joined into one write at the end of this turn of the loop."""

    def __init__(self, write: Any) -> None:
        self._write = write
        self._pending: list[bytes] = []

    def add(self, message: object) -> None:
        payload = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
        if not self._pending:
            asyncio.get_running_loop().call_soon(self._flush)
        self._pending.append(_FRAME.pack(len(payload)))
        self._pending.append(payload)

    def _flush(self) -> None:
        data, self._pending = b"".join(self._pending), []
        with contextlib.suppress(ConnectionError, RuntimeError):  # the other side is gone
            self._write(data)


async def _read_frame(reader: asyncio.StreamReader) -> Any:
    """The next message; IncompleteReadError at the end of the stream."""
    (length,) = _FRAME.unpack(await reader.readexactly(_FRAME.size))
    # Only ever from our own child or parent (see the module docstring).
    return pickle.loads(await reader.readexactly(length))  # noqa: S301


class _Child:
    """One child process, and the attempts it has not answered yet."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        assert process.stdin is not None
        self.process = process
        self.frames = _Frames(process.stdin.write)
        self.waiting: dict[int, asyncio.Future[Sent]] = {}
        self.alive = True


class SenderProcess:
    """The worker's side: `send` hands an attempt to the child and waits for its outcome.
    Use it through `sender_process` (the child is started on the first attempt)."""

    def __init__(self, max_connections: int) -> None:
        self._max_connections = max_connections
        self._child: _Child | None = None
        self._reading: asyncio.Task[None] | None = None
        self._next_id = 0
        self._starting = asyncio.Lock()
        self._started_at = -RESTART_PAUSE_SECONDS
        self._closed = False

    @property
    def pid(self) -> int | None:
        return self._child.process.pid if self._child is not None else None

    async def send(
        self, url: str, event: Outgoing, signer: Signer, timeout_seconds: float, at: datetime
    ) -> Sent:
        child = await self._running()
        self._next_id += 1
        number = self._next_id
        outcome: asyncio.Future[Sent] = asyncio.get_running_loop().create_future()
        child.waiting[number] = outcome
        child.frames.add((number, url, event, signer, timeout_seconds, at))
        try:
            return await outcome
        finally:
            child.waiting.pop(number, None)

    async def _running(self) -> _Child:
        if self._closed:
            raise SenderGone("the sender is closed")
        child = self._child
        if child is not None and child.alive:
            return child
        async with self._starting:
            if self._child is None or not self._child.alive:
                pause = self._started_at + RESTART_PAUSE_SECONDS - time.monotonic()
                if pause > 0:
                    await asyncio.sleep(pause)
                self._started_at = time.monotonic()
                process = await asyncio.create_subprocess_exec(
                    sys.executable,
                    "-m",
                    __name__,
                    str(self._max_connections),
                    stdin=asyncio.subprocess.PIPE,
                    stdout=asyncio.subprocess.PIPE,
                )
                self._child = _Child(process)
                self._reading = asyncio.create_task(self._read(self._child))
            return self._child

    async def _read(self, child: _Child) -> None:
        stdout = child.process.stdout
        assert stdout is not None
        try:
            while True:
                number, sent = await _read_frame(stdout)
                outcome = child.waiting.get(number)
                if outcome is not None and not outcome.done():
                    outcome.set_result(sent)
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            # Gone: the next attempt starts another; what this one had fails.
            child.alive = False
            code = await child.process.wait()
            if not self._closed:
                logger.warning("the webhook sender process exited (%s); starting another", code)
            for outcome in child.waiting.values():
                if not outcome.done():
                    outcome.set_exception(SenderGone(f"the sender process exited ({code})"))

    async def close(self) -> None:
        self._closed = True
        child, reading = self._child, self._reading
        if child is None or reading is None:
            return
        assert child.process.stdin is not None
        child.process.stdin.close()
        try:
            await asyncio.wait_for(asyncio.shield(reading), timeout=EXIT_GRACE_SECONDS)
        except TimeoutError:
            child.process.kill()
            await reading


@asynccontextmanager
async def sender_process(max_connections: int) -> AsyncIterator[Sender]:
    sender = SenderProcess(max_connections)
    try:
        yield sender
    finally:
        await sender.close()


# --- the child ---------------------------------------------------------------------


async def _serve(max_connections: int) -> None:
    loop = asyncio.get_running_loop()
    stdin = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(stdin), sys.stdin.buffer)
    # The answers get stdout's pipe to themselves: anything printed goes to stderr.
    answers_pipe = os.fdopen(os.dup(1), "wb", buffering=0)
    os.dup2(2, 1)
    transport, _ = await loop.connect_write_pipe(asyncio.Protocol, answers_pipe)
    answers = _Frames(transport.write)
    attempts: set[asyncio.Task[None]] = set()

    async def attempt(http: Any, number: int, request: tuple[Any, ...]) -> None:
        url, event, signer, timeout_seconds, at = request
        answers.add((number, await send(http, url, event, signer, timeout_seconds, at)))

    async with http_client(max_connections) as http:
        try:
            while True:
                number, *request = await _read_frame(stdin)
                task = asyncio.create_task(attempt(http, number, tuple(request)))
                attempts.add(task)
                task.add_done_callback(attempts.discard)
        except asyncio.IncompleteReadError:
            pass  # the worker closed our stdin, or died
        # Closed by the worker: it waited for what it wanted; the rest is abandoned.
        for task in attempts:
            task.cancel()
        await asyncio.gather(*attempts, return_exceptions=True)
    transport.close()


def main() -> None:
    # Ctrl-C, and a supervisor's SIGTERM, reach the whole process group: the worker
    # decides when this child ends (it closes our stdin, or dies).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    asyncio.run(_serve(int(sys.argv[1])))


if __name__ == "__main__":
    main()
