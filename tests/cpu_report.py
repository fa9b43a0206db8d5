"""CPU seconds per test module, printed at the end of a run (the 15 costliest).

On a 2-core machine the suite's wall time is bounded below by its CPU time divided by
two, so CPU, not wall time, says where the suite can be made faster; and unlike wall time
it hardly moves with the machine's load. A module's CPU is that of pytest's whole process
tree (user + sys, from /proc): the test process, the processes it started that are still
running (Temporal servers, `ramp dev`, uvicorn, Chromium) and, through their parents'
counts, those that ended and were waited for. Read before a module's first test and after
its last test's teardown (module-scoped fixtures included); session-scoped fixtures are
charged to the first module that uses them. `RAMP_TEST_CPU_REPORT=all` lists every module.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

_TICKS = os.sysconf("SC_CLK_TCK")
_spent: dict[str, float] = {}
_started: dict[str, float] = {}
_session_start = 0.0


def tree_cpu_seconds(root: int | None = None) -> float:
    """User + sys seconds of `root` (this process) and its living descendants, each with
    what its waited-for children spent."""
    pending = [root if root is not None else os.getpid()]
    total = 0
    while pending:
        pid = pending.pop()
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(") ", 1)[1].split()
            # utime, stime, cutime, cstime (fields 14 to 17 of proc(5)).
            total += sum(int(value) for value in fields[11:15])
            for task in Path(f"/proc/{pid}/task").iterdir():
                children = (task / "children").read_text().split()
                pending.extend(int(child) for child in children)
        except (FileNotFoundError, ProcessLookupError, IndexError, ValueError):
            continue  # ended meanwhile
    return total / _TICKS


def _module(item: pytest.Item) -> str:
    return item.nodeid.split("::", 1)[0]


def pytest_sessionstart(session: pytest.Session) -> None:
    global _session_start
    _session_start = tree_cpu_seconds()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    module = _module(item)
    if module not in _started:
        _started[module] = tree_cpu_seconds()
    yield
    if nextitem is None or _module(nextitem) != module:
        _spent[module] = _spent.get(module, 0.0) + tree_cpu_seconds() - _started.pop(module)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if not _spent:
        return
    total = tree_cpu_seconds() - _session_start
    listed = sorted(_spent.items(), key=lambda entry: -entry[1])
    if os.environ.get("RAMP_TEST_CPU_REPORT") != "all":
        listed = listed[:15]
    terminalreporter.write_sep(
        "=", f"CPU seconds by module (user + sys of the process tree; {total:.1f} s in all)"
    )
    for module, seconds in listed:
        terminalreporter.write_line(f"{seconds:7.1f}  {module}")
