"""The customer's cancellation in recorded histories: the `customer-cancel` patch is in
the history, the recorded cancellation replays (tests/test_replay.py replays every
history), and a cancel that no longer voids the order fails the replay."""

from __future__ import annotations

import pytest
from temporalio.client import WorkflowHistory
from temporalio.workflow import NondeterminismError

from tests.histories.changed import CancelWithoutVoidWorkflow
from tests.histories.record import HISTORIES
from tests.histories.snapshots import differences, replay, state_file
from workflows.intents import CUSTOMER_CANCEL, IntentWorkflow

CANCELLED = HISTORIES / "intent_cancelled.json"


def _history() -> WorkflowHistory:
    return WorkflowHistory.from_json("intent-cancelled", CANCELLED.read_text())


def test_the_recorded_cancellation_carries_the_patch_marker() -> None:
    assert f'"id":"{CUSTOMER_CANCEL}"' in _patch_ids(_history())


async def test_the_recorded_cancellation_replays_with_its_state() -> None:
    history = _history()
    replayed = await replay(history, IntentWorkflow)
    assert differences(history, replayed, state_file(CANCELLED)) == []
    assert replayed.result.status == "CANCELLED"


async def test_a_cancel_that_no_longer_voids_the_order_fails_the_replay() -> None:
    with pytest.raises(NondeterminismError):
        await replay(_history(), CancelWithoutVoidWorkflow)


def _patch_ids(history: WorkflowHistory) -> str:
    found = []
    for event in history.events:
        if event.HasField("marker_recorded_event_attributes"):
            details = event.marker_recorded_event_attributes.details
            if "patch-data" in details:
                found += [p.data.decode() for p in details["patch-data"].payloads]
    return " ".join(found).replace(" ", "")
