"""The customer's cancellation in recorded histories: the `customer-cancel` patch is in
the history, the recorded cancellation replays (tests/test_replay.py replays every
history), and a cancel that no longer voids the order fails the replay. Since issue 23
the run ends in a workflow task of its own (`close-apart`): a deposit event that arrives
meanwhile is ignored, and a workflow that ends in the answering task again fails the
replay of a history recorded since."""

from __future__ import annotations

import pytest
from temporalio.workflow import NondeterminismError

from tests.histories.changed import CancelWithoutVoidWorkflow, ClosingInTheAnswerWorkflow
from tests.histories.record import HISTORIES
from tests.histories.snapshots import differences, patch_ids, recorded, replay, state_file
from workflows.intents import CLOSE_APART, CUSTOMER_CANCEL, IntentWorkflow

CANCELLED = HISTORIES / "intent_cancelled.json"
# Recorded with CLOSE_APART: a deposit event after the cancel's answer, before the end.
DEPOSIT_LATE = HISTORIES / "intent_cancelled_deposit_late.json"


def test_the_recorded_cancellation_carries_the_patch_marker() -> None:
    assert CUSTOMER_CANCEL in patch_ids(recorded(CANCELLED))


async def test_the_recorded_cancellation_replays_with_its_state() -> None:
    history = recorded(CANCELLED)
    replayed = await replay(history, IntentWorkflow)
    assert differences(history, replayed, state_file(CANCELLED)) == []
    assert replayed.result.status == "CANCELLED"


async def test_a_cancel_that_no_longer_voids_the_order_fails_the_replay() -> None:
    with pytest.raises(NondeterminismError):
        await replay(recorded(CANCELLED), CancelWithoutVoidWorkflow)


def test_a_cancel_recorded_before_close_apart_ends_in_its_answering_task() -> None:
    assert CLOSE_APART not in patch_ids(recorded(CANCELLED))


async def test_a_deposit_after_the_answer_is_ignored_while_the_run_closes() -> None:
    history = recorded(DEPOSIT_LATE)
    assert CLOSE_APART in patch_ids(history)
    replayed = await replay(history, IntentWorkflow)
    assert differences(history, replayed, state_file(DEPOSIT_LATE)) == []
    assert replayed.result.status == "CANCELLED"


async def test_closing_in_the_answering_task_again_fails_the_replay() -> None:
    with pytest.raises(NondeterminismError):
        await replay(recorded(DEPOSIT_LATE), ClosingInTheAnswerWorkflow)
    # Histories from before the patch replay on it as they did.
    replayed = await replay(recorded(CANCELLED), ClosingInTheAnswerWorkflow)
    assert replayed.result.status == "CANCELLED"
