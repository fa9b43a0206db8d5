"""Determinism guard: recorded IntentWorkflow histories must replay on the current code.

Each `tests/histories/intent_<path>.json` is the history of one workflow that went
through a path of the intent lifecycle (recorded by `tests/histories/record.py`). An
intent's workflow lives for up to a day, so when a new worker starts, workflows begun
by the previous code are still running and the new code replays their histories.
A change to workflows/intents.py or ramp/intents/lifecycle.py (or to the activities'
inputs and order, the search attributes it upserts, its timers) that makes one of
these replays fail would break those running workflows with a NondeterminismError.
A replay must also compute the recorded run's state (tests/histories/snapshots.py):
a change that keeps the commands but writes other projection states, answers updates
differently or ends with another result would give running workflows a history that
contradicts what they now compute; it needs `workflow.patched` just the same.

When that happens, do not re-record the failing history to make the test pass:
- keep the old behaviour for old histories with `workflow.patched("<change-id>")`
  (and `workflow.deprecate_patch` once no workflow from before the change runs), so
  the old history still replays and new workflows take the new branch;
- record the new behaviour as a NEW path: add it to `PATHS` in
  tests/histories/record.py and run `.venv/bin/python -m tests.histories.record`,
  which records only the paths without a file. It refuses to overwrite an existing
  history unless given `--overwrite`: the existing files stand for workflows running
  in production and must keep guarding them until none of those can still be open.

Replays need no Temporal server: the Replayer drives the workflow code from the
history alone, with the worker's converter and sandbox settings.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.worker import Replayer
from temporalio.workflow import NondeterminismError

from tests.histories.changed import SecondsClockWorkflow, SwappedLookupsWorkflow
from tests.histories.record import HISTORIES, PATHS
from tests.histories.snapshots import differences, recorded, replay, state_file
from worker import workflow_runner
from workflows.intents import IntentWorkflow

HISTORY_FILES = sorted(HISTORIES.glob("intent_*.json"))


def _replayer(*workflows: type) -> Replayer:
    """Configured like the worker in worker.py: pydantic payloads, its sandbox."""
    return Replayer(
        workflows=list(workflows),
        data_converter=pydantic_data_converter,
        workflow_runner=workflow_runner(),
    )


def test_every_path_has_a_recorded_history() -> None:
    """A deleted (or unrecorded) history must fail, not silently drop out of the guard."""
    recorded = {file.stem.removeprefix("intent_") for file in HISTORY_FILES}
    assert recorded == set(PATHS)
    assert all(state_file(file).exists() for file in HISTORY_FILES)


@pytest.mark.parametrize("file", HISTORY_FILES, ids=[file.stem for file in HISTORY_FILES])
async def test_history_replays_on_current_code(file: Path) -> None:
    """Same commands, and the same state: updates' answers, projection writes, result."""
    history = recorded(file)
    replayed = await replay(history, IntentWorkflow)
    assert differences(history, replayed, state_file(file)) == []


@pytest.mark.parametrize("file", HISTORY_FILES, ids=[file.stem for file in HISTORY_FILES])
async def test_incompatible_change_fails_the_replay(file: Path) -> None:
    """The guard can fail: each history notices activities run in another order."""
    replayer = _replayer(SwappedLookupsWorkflow)
    history = recorded(file)
    # The recorded marker is select_provider (select_and_check_requirements since
    # lookup-one-activity); the changed code asks for check_requirements.
    with pytest.raises(NondeterminismError, match=r"select_(provider|and_check_requirements)"):
        await replayer.replay_workflow(history)
    # Without raising, the failure is reported on the result instead.
    result = await replayer.replay_workflow(history, raise_on_replay_failure=False)
    assert isinstance(result.replay_failure, NondeterminismError)


# Refused intents end before any timestamp is taken: nothing for the clock to change.
OPENED_FILES = [f for f in HISTORY_FILES if "refused" not in f.stem]


@pytest.mark.parametrize("file", OPENED_FILES, ids=[file.stem for file in OPENED_FILES])
async def test_a_lifecycle_change_with_the_same_commands_fails_the_replay(file: Path) -> None:
    """Timestamps cut to the second: the commands replay, the state does not."""
    history = recorded(file)
    result = await _replayer(SecondsClockWorkflow).replay_workflow(history)
    assert result.replay_failure is None  # what a command-only guard would have passed
    replayed = await replay(history, SecondsClockWorkflow)
    assert differences(history, replayed, state_file(file)) != []
