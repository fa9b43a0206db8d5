"""The serving processes' garbage collector (ramp/heap.py): what starts with the process
is collected, then frozen, and full collections come after FULL_COLLECTION_AFTER middle
ones. Run in a child process: the test process's own collector is left as it is. The
test processes pace theirs the same way once their tests are collected
(tests/gc_pace.py)."""

from __future__ import annotations

import gc
import json
import subprocess
import sys

from ramp.heap import FULL_COLLECTION_AFTER

CHILD = """
import gc, json, weakref
from ramp.heap import tune_gc_after_startup

class Node:
    pass

# Startup's garbage: a cycle nobody holds any more, which only a collection frees.
node = Node()
node.self = node
gone = weakref.ref(node)
del node
before = gc.get_threshold()
tracked = len(gc.get_objects())
tune_gc_after_startup()
print(json.dumps({
    "before": before, "after": gc.get_threshold(), "tracked": tracked,
    "frozen": gc.get_freeze_count(), "left": len(gc.get_objects()),
    "garbage_freed": gone() is None,
}))
"""


def test_startup_objects_are_frozen_and_full_collections_spaced() -> None:
    done = subprocess.run(
        [sys.executable, "-c", CHILD], capture_output=True, text=True, check=True, timeout=60
    )
    seen = json.loads(done.stdout)
    young, middle, full = seen["before"]
    assert full < FULL_COLLECTION_AFTER
    assert seen["after"] == [young, middle, FULL_COLLECTION_AFTER]
    # Startup's garbage was collected, not kept for ever in the permanent generation;
    # what lives is out of the collector's walks.
    assert seen["garbage_freed"]
    assert seen["frozen"] > 0
    assert seen["left"] < 100


def test_a_test_process_collects_again_once_its_tests_are_collected() -> None:
    """The collector paused for pytest's startup (tests/gc_pace.py) runs again, at the
    service's pace, over a heap whose startup is frozen."""
    assert gc.isenabled()
    assert gc.get_threshold()[2] == FULL_COLLECTION_AFTER
    assert gc.get_freeze_count() > 0
