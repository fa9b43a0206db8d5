"""The garbage collector's pace in the worker and the API (`ramp worker`, `ramp api`),
set once each has started.

The worker keeps up to 1,000 workflow runs cached, each with its own copy of the
workflow modules (the sandbox imports them for every run): a heap of hundreds of
thousands of objects that a full collection walks whole. With CPython's default
thresholds it ran one every 100 or so intents, a tenth of a second or more each: 4.0 s
of the worker's CPU over 1,600 intents, 2.5 ms per intent, most of it showing in
profiles as the sandbox's imports (docs/performance.md, "The garbage collector").
What a full collection frees there is mostly evicted runs, which wait a little longer.
The API's heap is small, but its full collections went the same way (0.2 s over 1,600
intents to none).
"""

from __future__ import annotations

import gc

# A full collection after this many collections of the middle generation (CPython's
# default: 10), on top of CPython's own rule (only once the objects that survived the
# last one grew by a quarter). Measured: 4 full collections over 1,600 intents instead
# of 15, 1.5 s of CPU instead of 4.0; the worker's memory 7 % higher at the end.
FULL_COLLECTION_AFTER = 50


def settle_after_startup() -> None:
    """Once the process has imported its modules and built what it serves: those
    objects live as long as the process, so no collection walks them again
    (`gc.freeze`), and full collections come less often."""
    gc.freeze()
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, FULL_COLLECTION_AFTER)
