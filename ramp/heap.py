"""The garbage collector's pace in the worker and the API (`ramp worker`, `ramp api`),
set once each has started.

The worker keeps up to 1,000 workflow runs cached, each with its own copy of the
workflow modules (the sandbox imports them for every run): a heap of hundreds of
thousands of objects that a full collection walks whole, a tenth of a second or more.
With CPython's default thresholds one ran every 60 to 100 intents, most of it showing
in profiles as the sandbox's imports; what it frees there is mostly evicted runs, which
now wait a little longer. Figures: docs/performance.md, "The garbage collector".

The thresholds are read as CPython 3.11 to 3.13 read them (the Dockerfile's image is
3.11); a collector that ignores the third one leaves this a freeze only.
"""

from __future__ import annotations

import gc

# Full collections walk every cached run: one after this many collections of the middle
# generation (CPython's default: 10), besides CPython's own rule (not before the
# survivors of the last one grew by a quarter).
FULL_COLLECTION_AFTER = 50


def tune_gc_after_startup() -> None:
    """Once the process has imported its modules and built what it serves: what is left
    of that after a collection lives as long as the process, so no later collection
    walks it again (`gc.freeze`), and full collections come less often."""
    gc.collect()  # startup's own garbage (the worker's sandbox checks), not frozen with it
    gc.freeze()
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, FULL_COLLECTION_AFTER)
