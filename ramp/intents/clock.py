"""A sandbox intent's clock: the `advance_clock` update of IntentWorkflow and its answer.

Temporal's timers cannot be moved from outside, so the workflow measures its own
timers (the expiry, provider polls, the late-deposit watch) on `workflow.now()` plus an
offset that this update moves forward; every wait wakes, measures again and ends at
once if its deadline has passed (workflows/intent_base.py). Only timers move: the
timestamps the intent records stay the real time. `POST /v1/sandbox/intents/{id}/advance`
sends it (ramp/sandbox_clock.py); production has no such route.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

# The update's name (workflows/intents.py registers it; ramp/intents/workflow_client.py
# sends it).
ADVANCE_CLOCK = "advance_clock"
# Patch id: runs started before sandbox clocks measure on workflow.now() alone and
# refuse the update (CLOCK_NOT_MOVABLE).
SANDBOX_CLOCK_PATCH = "events-sandbox-clock"
# One advance moves at most this far (a year): beyond, nothing is left to expire.
MAX_ADVANCE_SECONDS = 366 * 24 * 3600


class ClockAdvance(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    seconds: int = Field(gt=0, le=MAX_ADVANCE_SECONDS)


class ClockAdvanced(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    # How far the intent's clock is ahead of the real one now, all advances together.
    offset_seconds: float
