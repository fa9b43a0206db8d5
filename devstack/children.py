"""One supervised child process: how it is started, and how it is signalled.

The group's logic (restarts, shutdown order, waiting) is in `devstack.supervisor`; here
are the process-level details it relies on:

- Each child runs in its own process group, so a Ctrl-C in the terminal reaches only the
  supervisor, and a signal sent to the child's group covers its grandchildren too
  (uvicorn's reloader, for instance).
- On Linux each child gets PR_SET_PDEATHSIG=SIGTERM: if the supervisor is SIGKILLed its
  children still stop. The signal fires when the *thread* that started the child ends,
  so start children from a thread that lives as long as they do (the main thread).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import cast

SHUTDOWN_SIGNALS: tuple[signal.Signals, ...] = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)

_PR_SET_PDEATHSIG = 1


@dataclass
class ChildSpec:
    name: str
    argv: list[str]
    # Extra environment variables, layered over the supervisor's own environment.
    env: dict[str, str] | None = None
    # True: output is read line by line and printed as "[name] line". False: the child
    # writes straight to our stdout/stderr (keeps its colours and tty detection).
    log_prefix: bool = True


class SupervisorError(RuntimeError):
    pass


@dataclass
class Child:
    """A started child: its current process and what the supervisor knows of its runs."""

    spec: ChildSpec
    process: subprocess.Popen[bytes]
    started_at: float = field(default_factory=time.monotonic)
    exited: threading.Event = field(default_factory=threading.Event)
    reader: threading.Thread | None = None
    waiter: threading.Thread | None = None
    crashes_in_a_row: int = 0
    restarts: int = 0
    # monotonic time of a scheduled restart; None when running or not to be restarted.
    restart_at: float | None = None

    @property
    def name(self) -> str:
        return self.spec.name


def _resolve_prctl() -> Callable[[int, int], int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    prctl.argtypes = [ctypes.c_int, ctypes.c_ulong]
    prctl.restype = ctypes.c_int
    return cast(Callable[[int, int], int], prctl)


# Resolved once in the parent: the code between fork and exec must do as little as
# possible (no dlopen, no imports), because other threads may hold locks at fork time.
_PRCTL = _resolve_prctl()


def _make_preexec(parent_pid: int) -> Callable[[], None] | None:
    prctl = _PRCTL
    if prctl is None:
        return None
    sigterm = int(signal.SIGTERM)

    def preexec() -> None:
        prctl(_PR_SET_PDEATHSIG, sigterm)
        # The parent may have died between fork() and prctl(): then nobody will send it.
        if os.getppid() != parent_pid:
            os.kill(os.getpid(), signal.SIGTERM)

    return preexec


def spawn(spec: ChildSpec, parent_pid: int) -> subprocess.Popen[bytes]:
    """Start `spec`'s process in a group of its own. Raises SupervisorError if it cannot."""
    env = None if spec.env is None else {**os.environ, **spec.env}
    output = subprocess.PIPE if spec.log_prefix else None
    try:
        process = subprocess.Popen(  # noqa: S603 - argv comes from our own code
            spec.argv,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=output,
            stderr=subprocess.STDOUT if spec.log_prefix else None,
            # Own process group: terminal signals reach only the supervisor (module doc).
            process_group=0,
            preexec_fn=_make_preexec(parent_pid),
        )
    except OSError as error:
        raise SupervisorError(f"cannot start {spec.name} ({spec.argv[0]}): {error}") from error
    return process


def kill_group(child: Child, sig: signal.Signals) -> None:
    """Send `sig` to the child's whole process group (a no-op once it is gone)."""
    pid = child.process.pid
    try:
        os.killpg(pid, sig)
    except ProcessLookupError:
        return  # the whole group is gone already
    except PermissionError:
        # Seen on macOS for a group whose leader is a zombie: signal the leader.
        with contextlib.suppress(ProcessLookupError):
            child.process.send_signal(sig)


@contextlib.contextmanager
def signals_blocked() -> Iterator[None]:
    """Threads started inside inherit a mask without our shutdown signals."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, SHUTDOWN_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def describe_returncode(returncode: int) -> str:
    if returncode < 0:
        try:
            return f"signal {signal.Signals(-returncode).name}"
        except ValueError:
            return f"signal {-returncode}"
    return f"code {returncode}"


def exit_status(returncode: int) -> int:
    """A non-zero process exit status that reflects a child's return code."""
    if returncode < 0:
        return 128 - returncode  # the shell's convention for "killed by signal N"
    return returncode or 1
