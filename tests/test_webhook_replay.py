"""Determinism guard for WebhookDeliveryWorkflow: recorded histories replay on the code.

A delivery lives up to about 26.6 hours (its retry schedule), so deliveries begun by
the previous code are running when a new worker starts. Record new paths with
`.venv/bin/python -m tests.histories.record_webhooks`; keep old files (see
tests/test_replay.py for what to do when one stops replaying).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from temporalio.client import WorkflowHistory
from temporalio.workflow import NondeterminismError

from tests.histories.changed import AttemptsNumberedFromZero, TimerFirstDelivery
from tests.histories.record import HISTORIES
from tests.histories.record_webhooks import PATHS, replayer
from tests.histories.snapshots import differences, replay, state_file
from workflows.webhooks import WebhookDeliveryWorkflow

FILES = sorted(HISTORIES.glob("webhook_delivery_*.json"))


def _history(file: Path) -> WorkflowHistory:
    return WorkflowHistory.from_json(f"replay-{file.stem}", file.read_text())


def test_every_delivery_path_has_a_recorded_history() -> None:
    assert {f.stem.removeprefix("webhook_delivery_") for f in FILES} == set(PATHS)


@pytest.mark.parametrize("file", FILES, ids=[f.stem for f in FILES])
async def test_delivery_history_replays_on_current_code(file: Path) -> None:
    """Same commands, and the same attempts' inputs and outcome (all in the history)."""
    history = _history(file)
    replayed = await replay(history, WebhookDeliveryWorkflow)
    assert differences(history, replayed, state_file(file)) == []


@pytest.mark.parametrize("file", FILES, ids=[f.stem for f in FILES])
async def test_an_incompatible_delivery_change_fails_the_replay(file: Path) -> None:
    with pytest.raises(NondeterminismError):
        await replayer(TimerFirstDelivery).replay_workflow(_history(file))


@pytest.mark.parametrize("file", FILES, ids=[f.stem for f in FILES])
async def test_a_delivery_change_with_the_same_commands_fails_the_replay(file: Path) -> None:
    history = _history(file)
    result = await replayer(AttemptsNumberedFromZero).replay_workflow(history)
    assert result.replay_failure is None  # what a command-only guard would have passed
    replayed = await replay(history, AttemptsNumberedFromZero)
    assert differences(history, replayed, state_file(file)) != []
