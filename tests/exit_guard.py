"""Ends a test run with pytest's verdict, skipping only the interpreter's final teardown.

The Temporal SDK's native (Rust) threads can abort interpreter finalisation: `Fatal
Python error: PyGILState_Release`, exit 134 (sdk-python issue 300, open; the SDK has no
call that stops its runtime's threads). A green run could then exit red at random.
So the process leaves with `os._exit`, but as late as possible: from an `atexit`
handler, which Python calls after pytest has returned (its own clean-up included:
unraisable exceptions, thread exceptions, temporary directories), after every
non-daemon thread has ended and after the other `atexit` handlers, and before the
finalisation where the crash happens. Nothing pytest would report is skipped:

- the status is the session's, read once pytest's hooks have run;
- an exception out of pytest itself (a failing clean-up) leaves the normal way;
- objects whose finalisers fail at the last garbage collection fail the run.
"""

from __future__ import annotations

import atexit
import gc
import os
import sys

import pytest

_session: pytest.Session | None = None
_verdict: int | None = None


def pytest_sessionstart(session: pytest.Session) -> None:
    global _session
    _session = session


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    global _verdict
    if _session is not None:
        _verdict = int(_session.exitstatus)


def _leave() -> None:
    if _verdict is None or hasattr(sys, "last_value"):
        # No verdict (pytest stopped early), or an exception escaped pytest: let the
        # interpreter report it and exit as it would.
        return
    failures: list[str] = []
    previous = sys.unraisablehook

    def record(unraisable: sys.UnraisableHookArgs) -> None:
        failures.append(f"{unraisable.err_msg or 'Exception ignored in'}: {unraisable.object!r}")
        previous(unraisable)

    sys.unraisablehook = record
    gc.collect()
    sys.unraisablehook = previous
    status = _verdict
    if failures and status == pytest.ExitCode.OK:
        print("teardown errors at exit:\n" + "\n".join(failures), file=sys.stderr)
        status = pytest.ExitCode.TESTS_FAILED
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)


# Handlers registered later (by the code under test) run before this one (LIFO).
atexit.register(_leave)
