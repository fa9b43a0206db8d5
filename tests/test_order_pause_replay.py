"""The patch `order-again-after-pause` in a recorded history: Bridge answered every
transfer 503 with a Retry-After of 6 hours, longer than a failover's order budget, and
the driver waited those 6 hours before each new order until the intent expired
(tests/histories/intent_bridge_outage_paused.json, recorded by
tests/histories/record_connector.py). Only it carries the marker; code without the
patch's branch (the order placed again at once) fails its replay. Every history replays
with its state on the current code in tests/test_replay.py."""

from __future__ import annotations

import itertools
from datetime import timedelta

import pytest
from temporalio.api.enums.v1 import EventType
from temporalio.workflow import NondeterminismError

from tests.histories.record import HISTORIES
from tests.histories.record_connector import OUTAGE_RETRY_AFTER
from tests.histories.snapshots import patch_ids, recorded, unsandboxed_replayer, without_patch
from workflows.intents import IntentWorkflow
from workflows.order_pauses import ORDER_AGAIN_AFTER_PAUSE

PAUSED = HISTORIES / "intent_bridge_outage_paused.json"


def test_only_the_outage_history_carries_the_patch() -> None:
    assert ORDER_AGAIN_AFTER_PAUSE in patch_ids(recorded(PAUSED))
    for path in sorted(HISTORIES.glob("intent_*.json")):
        if path != PAUSED:
            assert ORDER_AGAIN_AFTER_PAUSE not in patch_ids(recorded(path)), path


def test_each_order_waited_what_bridge_asked() -> None:
    history = recorded(PAUSED)
    orders = [
        event.event_time.ToDatetime()
        for event in history.events
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
        and event.activity_task_scheduled_event_attributes.activity_type.name
        == "provider_create_transfer"
    ]
    # One a Retry-After through the 24 hours, none at the expiry.
    assert len(orders) == 4
    gaps = [later - earlier for earlier, later in itertools.pairwise(orders)]
    assert all(gap >= timedelta(seconds=OUTAGE_RETRY_AFTER) for gap in gaps), gaps


async def test_code_without_the_patch_breaks_the_paused_history(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The patch's branch removed: the order is placed again at once, where the history
    holds the pause's timer."""
    without_patch(monkeypatch, ORDER_AGAIN_AFTER_PAUSE)
    replayer = unsandboxed_replayer(IntentWorkflow)
    result = await replayer.replay_workflow(recorded(PAUSED), raise_on_replay_failure=False)
    assert isinstance(result.replay_failure, NondeterminismError)
