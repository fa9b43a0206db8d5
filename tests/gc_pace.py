"""The garbage collector's pace in a test process: paused while pytest loads its plugins,
the conftest (the whole service's imports) and the test modules, then set as the
service's processes set it (`ramp/heap.py`): startup's objects frozen, full collections
spaced. Collecting during the imports (thirteen full collections of a growing heap,
counted) cost about a sixth of the collection's CPU in each of a run's pytest processes.
Loaded first (`-p tests.gc_pace` in pyproject.toml), before anything it should cover."""

from __future__ import annotations

import gc

import pytest

gc.disable()


@pytest.hookimpl(tryfirst=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    from ramp.heap import tune_gc_after_startup

    tune_gc_after_startup()
    gc.enable()
