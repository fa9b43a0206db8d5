"""The `monerium-declined-order-placed-again` patch in recorded histories: a Monerium
on-ramp declined while the wallet was not linked and placed when asked again
(tests/histories/intent_monerium_declined_onramp.json) carries the marker and replays
with its state; a driver that places once fails its replay; the Bridge histories,
recorded before the patch, replay on that old driver as they do on the current one."""

from __future__ import annotations

import pytest
from temporalio.workflow import NondeterminismError

from tests.histories.changed import PlacingOnceWorkflow
from tests.histories.record import HISTORIES
from tests.histories.snapshots import differences, patch_ids, recorded, replay, state_file
from workflows.declined_orders import DECLINED_ORDER_PLACED_AGAIN
from workflows.intents import IntentWorkflow

DECLINED = HISTORIES / "intent_monerium_declined_onramp.json"
BEFORE = HISTORIES / "intent_bridge_onramp.json"


async def test_the_declined_onramp_carries_the_patch_and_replays_with_its_state() -> None:
    history = recorded(DECLINED)
    assert DECLINED_ORDER_PLACED_AGAIN in patch_ids(history)
    replayed = await replay(history, IntentWorkflow)
    assert differences(history, replayed, state_file(DECLINED)) == []
    assert replayed.result.status == "COMPLETED"


async def test_placing_the_order_once_fails_the_replay() -> None:
    with pytest.raises(NondeterminismError):
        await replay(recorded(DECLINED), PlacingOnceWorkflow)
    # A history from before the patch replays on the old driver as it did.
    replayed = await replay(recorded(BEFORE), PlacingOnceWorkflow)
    assert replayed.result.status == "COMPLETED"
