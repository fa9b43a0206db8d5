"""The patch `internal-order-error-kept` in a recorded history: a sandbox order that
failed on our side (the database refusing its statement) kept Atlas, its `execute`
answered TEMPORARILY_UNAVAILABLE, and the order asked again was placed with Atlas
(tests/histories/intent_order_internal_error.json, recorded by
tests/histories/record_internal.py). It carries the marker and replays with its state;
code without the patch's branch (the failover of before) fails its replay; the failover
histories, recorded before the patch, carry no marker (every history replays on the
current code in tests/test_replay.py)."""

from __future__ import annotations

import pytest
from temporalio.api.enums.v1 import EventType
from temporalio.client import WorkflowHistory
from temporalio.workflow import NondeterminismError

from ramp.errors import IntentError
from tests.histories.record import HISTORIES
from tests.histories.snapshots import (
    differences,
    patch_ids,
    recorded,
    replay,
    state_file,
    unsandboxed_replayer,
    without_patch,
)
from workflows.intents import IntentWorkflow
from workflows.internal_errors import INTERNAL_ORDER_ERROR_KEPT

KEPT = HISTORIES / "intent_order_internal_error.json"
BEFORE = [HISTORIES / "intent_failover.json", HISTORIES / "intent_lookup_failover.json"]


def _update_failures(history: WorkflowHistory) -> list[str]:
    """The error types of the updates that failed, in order."""
    return [
        event.workflow_execution_update_completed_event_attributes.outcome.failure.application_failure_info.type
        for event in history.events
        if event.event_type == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_COMPLETED
        and event.workflow_execution_update_completed_event_attributes.outcome.HasField("failure")
    ]


def test_only_the_new_history_carries_the_patch() -> None:
    assert INTERNAL_ORDER_ERROR_KEPT in patch_ids(recorded(KEPT))
    for path in BEFORE:
        assert INTERNAL_ORDER_ERROR_KEPT not in patch_ids(recorded(path)), path


async def test_the_kept_order_replays_with_its_state() -> None:
    history = recorded(KEPT)
    # The one failed ask was answered as ours, not the provider's.
    assert _update_failures(history) == [IntentError.TEMPORARILY_UNAVAILABLE]
    replayed = await replay(history, IntentWorkflow)
    assert differences(history, replayed, state_file(KEPT)) == []
    assert replayed.result.status == "COMPLETED"
    # No failover: the only lookup is the opening's.
    lookups = [name for name, _ in replayed.local_activities if "select" in name]
    assert lookups == ["select_and_check_requirements"]


async def test_code_without_the_patch_breaks_the_kept_history(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The patch's branch removed (the failed order fails the intent over, as before):
    the recorded marker has no command to match, and the lookup the failover would ask
    is not in the history."""
    without_patch(monkeypatch, INTERNAL_ORDER_ERROR_KEPT)
    replayer = unsandboxed_replayer(IntentWorkflow)
    result = await replayer.replay_workflow(recorded(KEPT), raise_on_replay_failure=False)
    assert isinstance(result.replay_failure, NondeterminismError)
