"""The processes of one `./scripts/test` run share its modules as they go: each, when it
is free, claims the costliest module nobody has taken yet (`RAMP_TEST_CLAIMS`, a
directory of the run; a claim is a file created there, which only one process can).

Split in advance by measured cost (before 2026-11-26, night), the six processes ended up
to a minute apart: a module's cost moves with the machine, and its waits are not in its CPU.
Claimed, a process that ends early takes the next module, so the processes end within
about one small module of each other. A module's tests that reach the database are
claimed by the processes of that database's pass; those that reach none (or are marked
`either_database`) by any process of either pass. A process claims every part of a
module it may run at once, so that the module's fixtures start once where they can; the
modules of a SHARED group are claimed together. A plugin of tests/conftest.py.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest

from tests.passes import CLAIMS, WAIT_SECONDS, _costs, _fixed, _module, unit_of

ANY_PASS = "any"


def _claim(directory: Path, kind: str, unit: str) -> bool:
    """Whether this process won `unit`'s tests of `kind` (a pass, or ANY_PASS)."""
    path = directory / f"{kind}--{quote(unit, safe='')}"  # one name per unit
    try:
        descriptor = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
    except FileExistsError:
        return False
    with os.fdopen(descriptor, "w") as claimed:
        claimed.write(f"{os.environ.get('RAMP_TEST_PASS')} {os.environ.get('RAMP_TEST_SHARD')}\n")
    return True


def _cost(kinds: dict[str, list[pytest.Item]], column: int) -> float:
    """What claiming a unit weighs: its tests' CPU seconds, and a third of its waits
    (six processes share two cores: a module's wall time is about three times its CPU,
    plus its waits)."""
    items = [item for tests in kinds.values() for item in tests]
    modules = {_module(item) for item in items}
    waits = sum(WAIT_SECONDS.get(module, 0.0) for module in modules)
    return sum(_costs(items, column).values()) + waits / 3


def _claimed(items: list[pytest.Item], directory: Path) -> Iterator[list[pytest.Item]]:
    """The tests of each unit this process wins, the costliest units first."""
    mine = os.environ.get("RAMP_TEST_PASS", "sqlite")
    column = 1 if os.environ.get("RAMP_TEST_DATABASE_URL") else 0
    parts: dict[str, dict[str, list[pytest.Item]]] = {}
    for item in items:
        kind = mine if _fixed(item) else ANY_PASS
        parts.setdefault(unit_of(_module(item)), {}).setdefault(kind, []).append(item)
    cost = {unit: _cost(kinds, column) for unit, kinds in parts.items()}
    for unit in sorted(parts, key=lambda unit: (-cost[unit], unit)):
        won = [kind for kind in sorted(parts[unit]) if _claim(directory, kind, unit)]
        if won:
            chosen = {id(item) for kind in won for item in parts[unit][kind]}
            yield [item for item in items if id(item) in chosen]


@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session: pytest.Session) -> bool | None:
    """pytest's own loop over the tests, fed by claims: `session.items` grows with what
    this process won (the shared sandbox reads it to stop after its last user), and the
    tests it left to the others are listed as deselected at the end."""
    claims = os.environ.get(CLAIMS)
    if not claims or session.config.option.collectonly or session.testsfailed:
        return None  # pytest's loop: no claims, or nothing to run
    directory = Path(claims)
    directory.mkdir(parents=True, exist_ok=True)
    candidates = list(session.items)
    session.items = []
    units = _claimed(candidates, directory)
    current = next(units, [])
    session.items.extend(current)
    while current:
        upcoming: list[pytest.Item] = []
        for index, item in enumerate(current):
            last = index == len(current) - 1
            if last:
                # The next unit is claimed before the last test runs: its teardown
                # must know what follows (module fixtures end with their last test).
                upcoming = next(units, [])
                session.items.extend(upcoming)
            session.testscollected = len(session.items)
            nextitem = (upcoming[0] if upcoming else None) if last else current[index + 1]
            item.config.hook.pytest_runtest_protocol(item=item, nextitem=nextitem)
            if session.shouldfail:
                raise session.Failed(session.shouldfail)
            if session.shouldstop:
                raise session.Interrupted(session.shouldstop)
        current = upcoming
    ran = {id(item) for item in session.items}
    others = [item for item in candidates if id(item) not in ran]
    if others:
        session.config.hook.pytest_deselected(items=others)
    return True
