"""Sandbox clocks in recorded histories (issue 29): the `events-sandbox-clock` patch is
in the history of an intent whose clock was advanced, that history replays with its
state, and a workflow whose advances move no timer fails it. Histories from before the
clock carry no marker: they replay on the old waits (tests/test_replay.py replays them
all)."""

from __future__ import annotations

import pytest
from temporalio.workflow import NondeterminismError

from ramp.intents.clock import SANDBOX_CLOCK_PATCH
from tests.histories.changed import StoppedClockWorkflow
from tests.histories.record import HISTORIES
from tests.histories.snapshots import differences, patch_ids, recorded, replay, state_file
from workflows.intents import IntentWorkflow

CLOCK_EXPIRED = HISTORIES / "intent_clock_expired.json"
BEFORE_THE_CLOCK = HISTORIES / "intent_one_path_expired.json"


def test_the_clock_is_behind_its_patch() -> None:
    assert SANDBOX_CLOCK_PATCH in patch_ids(recorded(CLOCK_EXPIRED))
    assert SANDBOX_CLOCK_PATCH not in patch_ids(recorded(BEFORE_THE_CLOCK))


async def test_the_advanced_intent_replays_with_its_state() -> None:
    history = recorded(CLOCK_EXPIRED)
    replayed = await replay(history, IntentWorkflow)
    assert differences(history, replayed, state_file(CLOCK_EXPIRED)) == []
    assert replayed.result.status == "EXPIRED"


async def test_advances_that_move_no_timer_fail_the_replay() -> None:
    with pytest.raises(NondeterminismError):
        await replay(recorded(CLOCK_EXPIRED), StoppedClockWorkflow)
    # An expiry recorded before the clock replays on it as it did.
    replayed = await replay(recorded(BEFORE_THE_CLOCK), StoppedClockWorkflow)
    assert replayed.result.status == "EXPIRED"
