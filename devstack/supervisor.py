"""A small process supervisor: `ramp dev` runs Temporal, the worker and the API as one group.

With a `RestartPolicy` a child that exits on its own is restarted after a backoff and
reported loudly on stderr; only a shutdown signal (or `request_stop()`) stops the group.
Without one, the first child to exit stops them all (fail fast).

Usage from synchronous code (the CLI)::

    with Supervisor(restart=RestartPolicy()) as sup:  # leaving the block stops every child
        sup.start(ChildSpec("temporal", temporal_argv))
        asyncio.run(wait_until_serving(address, namespace, 30,
                                       is_alive=lambda: sup.is_running("temporal")))
        sup.start(ChildSpec("worker", [sys.executable, "-m", "devstack", "worker"]))
        sup.start(ChildSpec("api", [sys.executable, "-m", "devstack", "api"]))
        raise SystemExit(sup.wait())   # until Ctrl-C/SIGTERM/SIGHUP

Design choices, and why:

- Each child runs in its own process group (`devstack.children`: how a child is started
  and signalled), so a Ctrl-C in the terminal reaches only the supervisor, which then
  stops the children one at a time in reverse start order (API first, Temporal last), so
  the worker does not log errors about a server that vanished under it. Call `start()`
  from a thread that lives as long as the children (the main thread): on Linux a child
  gets SIGTERM when the thread that started it ends.
- Every blocking wait is on one `queue.SimpleQueue`, fed by per-child waiter threads and
  by the signal handlers; `SimpleQueue.put` is reentrant, so it is safe in a handler.
  Helper threads are created with SIGINT/SIGTERM/SIGHUP blocked so that the kernel
  delivers those signals to the main thread, which is the only one that can run Python
  signal handlers promptly. Restarts happen in `wait()`, so on the same (main) thread.
- Backoff doubles with each crash in a row (0.5 s, 1 s, 2 s... up to 30 s) and starts
  over once a child has run for `stable_after` seconds: a crash loop does not spin the
  CPU, a rare crash is repaired in half a second.
"""

from __future__ import annotations

import contextlib
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from types import FrameType, TracebackType
from typing import IO, TextIO

from devstack.children import (
    SHUTDOWN_SIGNALS,
    Child,
    ChildSpec,
    SupervisorError,
    describe_returncode,
    exit_status,
    kill_group,
    signals_blocked,
    spawn,
)

__all__ = ["ChildSpec", "RestartPolicy", "Supervisor", "SupervisorError"]

# After a child exits on its own, how long to wait for a shutdown signal that may have
# been sent to everyone at once (e.g. `kill -INT` on a group that includes the children):
# such an exit is part of a requested shutdown, not a crash.
_SIGNAL_RACE_WINDOW = 0.25


@dataclass(frozen=True)
class RestartPolicy:
    """How a crashed child comes back: after `initial_delay`, doubling per crash in a
    row up to `max_delay`; a child that ran `stable_after` seconds starts over."""

    initial_delay: float = 0.5
    max_delay: float = 30.0
    stable_after: float = 30.0

    def delay(self, crashes_in_a_row: int) -> float:
        return float(min(self.max_delay, self.initial_delay * 2 ** (crashes_in_a_row - 1)))


@dataclass(frozen=True)
class _SignalEvent:
    signum: int


@dataclass(frozen=True)
class _StopEvent:
    reason: str


@dataclass(frozen=True)
class _ExitEvent:
    child: Child
    process: subprocess.Popen[bytes]


_Event = _SignalEvent | _StopEvent | _ExitEvent


class Supervisor:
    """Runs child processes as one group: with `restart`, a crashed child is restarted;
    without, if one stops, all stop.

    `grace_period` is how long each child gets between SIGTERM and SIGKILL. Our own
    lines go to `out` (default stdout), crash reports to `err` (default stderr).
    """

    def __init__(
        self,
        *,
        grace_period: float = 10.0,
        out: TextIO | None = None,
        err: TextIO | None = None,
        name: str = "ramp",
        restart: RestartPolicy | None = None,
    ) -> None:
        self.grace_period = grace_period
        self.name = name
        self.restart = restart
        self._out = out
        self._err = err
        # Held while a child is spawned and while stop() begins: nothing starts after.
        self._spawn_lock = threading.Lock()
        self._out_lock = threading.Lock()
        self._children: list[Child] = []
        self._events: queue.SimpleQueue[_Event] = queue.SimpleQueue()
        self._stopping = False
        self._force_kill = False
        self._force_kill_reported = False
        self._pid = os.getpid()
        self._signals: contextlib.AbstractContextManager[None] | None = None
        self._signalled_before_wait = False

    # -- public API ----------------------------------------------------------------

    def start(self, spec: ChildSpec) -> None:
        """Start one child. Raises SupervisorError if it cannot be started."""
        if self._stopping:
            raise SupervisorError("the supervisor is stopping; no new children")
        if any(child.name == spec.name for child in self._children):
            raise SupervisorError(f"a child named {spec.name!r} was already started")
        child = Child(spec, spawn(spec, self._pid))
        self._children.append(child)
        self._watch(child)

    def _watch(self, child: Child) -> None:
        """Threads that forward the current process's output and report its exit."""
        process = child.process
        with signals_blocked():
            if process.stdout is not None:
                child.reader = threading.Thread(
                    target=self._forward_output,
                    args=(child.name, process.stdout),
                    name=f"supervisor-reader-{child.name}",
                    daemon=True,
                )
                child.reader.start()
            child.waiter = threading.Thread(
                target=self._await_exit,
                args=(child, process),
                name=f"supervisor-waiter-{child.name}",
                daemon=True,
            )
            child.waiter.start()

    def wait(self) -> int:
        """Block until a shutdown signal, `request_stop()`, or (without a restart policy)
        any child exits; then stop all. Restarts crashed children meanwhile.

        Returns 0 for a requested shutdown, non-zero when a child exited on its own.
        Signal handlers are installed only when called from the main thread.
        """
        with self._handle_signals(self._on_shutdown_signal):
            failed = self._wait_for_reason()
            if failed is not None:
                rc = failed.process.returncode
                self.log(f"{failed.name} exited unexpectedly with {describe_returncode(rc)}")
            self.stop()
        if failed is not None:
            rc = failed.process.returncode
            # Repeated after shutdown, where it is not buried in the others' shutdown logs.
            self.log(
                f"stopped because {failed.name} exited unexpectedly ({describe_returncode(rc)})"
            )
            return exit_status(rc)
        return 0

    def request_stop(self, reason: str = "stop requested") -> None:
        """Make `wait()` return after stopping everything. Thread- and signal-safe."""
        self._events.put(_StopEvent(reason))

    def stop(self) -> None:
        """Stop children in reverse start order: SIGTERM, grace period, then SIGKILL.

        Reaps every child. Idempotent. A shutdown signal during it escalates to SIGKILL.
        """
        with self._spawn_lock:
            self._stopping = True
        # Wakes a wait() blocked in another thread: children exiting now are not events.
        self._events.put(_StopEvent("stop() called"))
        with self._handle_signals(self._on_signal_while_stopping):
            for child in reversed(self._children):
                self._stop_child(child)
            for child in self._children:
                # Leftover grandchildren in the child's group die with it; then drain output.
                kill_group(child, signal.SIGKILL)
                if child.reader is not None:
                    child.reader.join(timeout=1.0)
        if self._force_kill and not self._force_kill_reported:
            self._force_kill_reported = True
            self.log("shutdown signal received again: killed the remaining processes")

    def restarts(self, name: str) -> int:
        """How many times the child was restarted after a crash."""
        return self._child(name).restarts

    def is_running(self, name: str) -> bool:
        return self._child(name).process.poll() is None

    def pid(self, name: str) -> int:
        return self._child(name).process.pid

    def returncode(self, name: str) -> int | None:
        return self._child(name).process.poll()

    @property
    def names(self) -> list[str]:
        return [child.name for child in self._children]

    def log(self, message: str) -> None:
        self._write(f"[{self.name}] {message}\n")

    def alert(self, message: str) -> None:
        """A line that must not be missed (a crash): on stderr, where logs are not."""
        self._write(
            f"[{self.name}] {message}\n", self._err if self._err is not None else sys.stderr
        )

    def __enter__(self) -> Supervisor:
        # From here on a Ctrl-C is a request to stop, even while children are still
        # being started (it takes effect in wait()); a second one before wait() aborts
        # the start-up at once.
        self._signals = self._handle_signals(self._on_signal_before_wait)
        self._signals.__enter__()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        try:
            self.stop()
        finally:
            if self._signals is not None:
                self._signals.__exit__(None, None, None)
                self._signals = None

    # -- waiting -------------------------------------------------------------------

    def _wait_for_reason(self) -> Child | None:
        """The child that exited on its own (without a restart policy), or None for a
        requested shutdown."""
        # Children that died before wait() was called are already in the queue.
        while True:
            try:
                event = self._events.get(timeout=self._until_next_restart())
            except queue.Empty:
                self._restart_due()
                continue
            if isinstance(event, _SignalEvent):
                self.log(f"received {signal.Signals(event.signum).name}, stopping")
                return None
            if isinstance(event, _StopEvent):
                self.log(f"{event.reason}, stopping")
                return None
            child = event.child
            if event.process is not child.process:
                continue  # an earlier run of a restarted child
            if child.reader is not None:
                # Its last words (a traceback, usually) go before our report.
                child.reader.join(timeout=1.0)
            if self._signal_follows():
                return None
            if self.restart is None:
                return child
            self._schedule_restart(child)

    def _until_next_restart(self) -> float:
        due = [c.restart_at for c in self._children if c.restart_at is not None]
        if not due:
            return 1.0
        return max(0.0, min(1.0, min(due) - time.monotonic()))

    def _schedule_restart(self, child: Child, failure: str | None = None) -> None:
        assert self.restart is not None
        now = time.monotonic()
        if now - child.started_at >= self.restart.stable_after:
            child.crashes_in_a_row = 0
        child.crashes_in_a_row += 1
        delay = self.restart.delay(child.crashes_in_a_row)
        child.restart_at = now + delay
        if failure is None:
            failure = (
                f"{child.name} exited unexpectedly with "
                f"{describe_returncode(child.process.returncode)}"
            )
        self.alert(f"{failure}; restarting in {delay:g} s (restart {child.restarts + 1})")

    def _restart_due(self) -> None:
        now = time.monotonic()
        for child in self._children:
            if child.restart_at is None or child.restart_at > now:
                continue
            child.restart_at = None
            with self._spawn_lock:
                if self._stopping:
                    return
                try:
                    process = spawn(child.spec, self._pid)
                except SupervisorError as error:
                    self._schedule_restart(child, f"{error}")
                    continue
                child.process = process
                child.started_at = time.monotonic()
                child.exited = threading.Event()
                child.restarts += 1
                self._watch(child)
            self.alert(f"{child.name} restarted (pid {process.pid}, restart {child.restarts})")

    def _signal_follows(self) -> bool:
        deadline = time.monotonic() + _SIGNAL_RACE_WINDOW
        # Other children's exits seen meanwhile are crashes of their own, to handle next.
        exits: list[_Event] = []
        try:
            while (remaining := deadline - time.monotonic()) > 0:
                try:
                    event = self._events.get(timeout=remaining)
                except queue.Empty:
                    return False
                if not isinstance(event, _ExitEvent):
                    self.log("shutdown requested, stopping")
                    return True
                exits.append(event)
            return False
        finally:
            for event in exits:
                self._events.put(event)

    def _await_exit(self, child: Child, process: subprocess.Popen[bytes]) -> None:
        exited = child.exited
        process.wait()
        exited.set()
        if not self._stopping:
            self._events.put(_ExitEvent(child, process))

    # -- stopping ------------------------------------------------------------------

    def _stop_child(self, child: Child) -> None:
        if child.process.poll() is None:
            kill_group(child, signal.SIGKILL if self._force_kill else signal.SIGTERM)
            if not child.exited.wait(self.grace_period):
                self.log(
                    f"{child.name} did not stop within {self.grace_period:g} s, sending SIGKILL"
                )
                kill_group(child, signal.SIGKILL)
        # Reap for certain: the waiter thread is a daemon and may not have run yet.
        child.process.wait()

    def _kill_all_now(self) -> None:
        self._force_kill = True
        for child in self._children:
            kill_group(child, signal.SIGKILL)

    # -- signals -------------------------------------------------------------------

    def _on_shutdown_signal(self, signum: int, frame: FrameType | None) -> None:
        self._events.put(_SignalEvent(signum))

    def _on_signal_before_wait(self, signum: int, frame: FrameType | None) -> None:
        if self._signalled_before_wait:
            raise KeyboardInterrupt
        self._signalled_before_wait = True
        self._events.put(_SignalEvent(signum))

    def _on_signal_while_stopping(self, signum: int, frame: FrameType | None) -> None:
        # No logging here: writing to a stream the interrupted code may be writing to
        # raises "reentrant call"; stop() reports the escalation afterwards.
        self._kill_all_now()

    @contextlib.contextmanager
    def _handle_signals(self, handler: Callable[[int, FrameType | None], None]) -> Iterator[None]:
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        previous = {sig: signal.signal(sig, handler) for sig in SHUTDOWN_SIGNALS}
        try:
            yield
        finally:
            for sig, old in previous.items():
                signal.signal(sig, old)

    # -- output --------------------------------------------------------------------

    def _forward_output(self, name: str, stream: IO[bytes]) -> None:
        prefix = f"[{name}] "
        with stream:
            for raw in iter(stream.readline, b""):
                line = raw.decode("utf-8", errors="replace").rstrip("\r\n")
                self._write(f"{prefix}{line}\n")

    def _write(self, text: str, stream: TextIO | None = None) -> None:
        out = stream or (self._out if self._out is not None else sys.stdout)
        # Keep draining the child's pipe even if our stdout is gone (`ramp dev | head`),
        # or the child would block on a full pipe.
        with self._out_lock, contextlib.suppress(OSError, ValueError):
            out.write(text)
            out.flush()

    def _child(self, name: str) -> Child:
        for child in self._children:
            if child.name == name:
                return child
        raise KeyError(name)
