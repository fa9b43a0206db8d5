"""Determinism guard for WebhookDeliveryWorkflow: recorded histories replay on the code.

A delivery lives up to about 26.6 hours (its retry schedule), so deliveries begun by
the previous code are running when a new worker starts. Record new paths with
`.venv/bin/python -m tests.histories.record_webhooks`; keep old files (see
tests/test_replay.py for what to do when one stops replaying).
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from temporalio import workflow
from temporalio.client import WorkflowHistory
from temporalio.workflow import NondeterminismError

from ramp.webhooks.models import AttemptOutcome, DeliveryOrder, DeliveryStatus
from tests.histories.record import HISTORIES
from tests.histories.record_webhooks import PATHS, replayer

FILES = sorted(HISTORIES.glob("webhook_delivery_*.json"))


def _history(file: Path) -> WorkflowHistory:
    return WorkflowHistory.from_json(f"replay-{file.stem}", file.read_text())


def test_every_delivery_path_has_a_recorded_history() -> None:
    assert {f.stem.removeprefix("webhook_delivery_") for f in FILES} == set(PATHS)


@pytest.mark.parametrize("file", FILES, ids=[f.stem for f in FILES])
async def test_delivery_history_replays_on_current_code(file: Path) -> None:
    result = await replayer().replay_workflow(_history(file))
    assert result.replay_failure is None


@workflow.defn(name="WebhookDeliveryWorkflow")
class TimerFirstDelivery:
    """A delivery that waits before its first attempt: an incompatible change."""

    @workflow.run
    async def run(self, order: DeliveryOrder) -> AttemptOutcome:
        await workflow.sleep(timedelta(seconds=1))
        return AttemptOutcome(delivery_id=order.delivery_id, status=DeliveryStatus.SUCCEEDED)


@pytest.mark.parametrize("file", FILES, ids=[f.stem for f in FILES])
async def test_an_incompatible_delivery_change_fails_the_replay(file: Path) -> None:
    with pytest.raises(NondeterminismError):
        await replayer(TimerFirstDelivery).replay_workflow(_history(file))
