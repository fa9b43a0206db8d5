"""A provider event that outruns the answer to our order (patch `event-awaits-order`):
the recorded history carries the patch marker and replays to COMPLETED
(tests/test_replay.py replays it with its state too); a workflow that drops the early
event again fails that replay, and histories recorded before the patch replay on the
new code as they did."""

from __future__ import annotations

import pytest
from temporalio.workflow import NondeterminismError

from tests.histories.changed import EarlyEventDroppedWorkflow
from tests.histories.record import HISTORIES
from tests.histories.snapshots import patch_ids, recorded, replay
from workflows.intents import EVENT_AWAITS_ORDER, IntentWorkflow

OUTRUN = HISTORIES / "intent_bridge_event_outruns_order.json"
BEFORE = HISTORIES / "intent_bridge_onramp.json"


def test_the_recorded_outrun_carries_the_patch_marker_and_older_histories_do_not() -> None:
    assert EVENT_AWAITS_ORDER in patch_ids(recorded(OUTRUN))
    assert EVENT_AWAITS_ORDER not in patch_ids(recorded(BEFORE))


async def test_the_early_event_is_applied_once_the_order_lands() -> None:
    replayed = await replay(recorded(OUTRUN), IntentWorkflow)
    assert replayed.result.status == "COMPLETED"


async def test_dropping_the_early_event_again_fails_the_replay() -> None:
    with pytest.raises(NondeterminismError):
        await replay(recorded(OUTRUN), EarlyEventDroppedWorkflow)
    replayed = await replay(recorded(BEFORE), EarlyEventDroppedWorkflow)
    assert replayed.result.status == "COMPLETED"
