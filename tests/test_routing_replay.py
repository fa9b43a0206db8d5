"""The failover patch (issue 26, `route-failover`) guarded by a recorded history:
`tests/histories/intent_failover.json` (Atlas refusing transfers, the intent moved to
Beacon and settled there; recorded by tests/histories/record.py) replays on the current
code, with the state it recorded (tests/test_replay.py runs it with every history), and
fails to replay on code that does not fail over: the patch is what keeps running
intents deterministic. Every history recorded before the patch replays unchanged
(tests/test_replay.py): none of them fails over.

The patch `accounts-failover-by-account` (a failover excludes the accounts tried, not
their providers) is guarded the same way by `tests/histories/intent_accounts_failover.json`."""

from __future__ import annotations

import pytest
from temporalio import workflow
from temporalio.client import WorkflowHistory
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.worker import Replayer, UnsandboxedWorkflowRunner

from tests.histories.record import HISTORIES
from tests.histories.snapshots import Replayed, _Capture, differences, state_file
from workflows.failover import FAILOVER_BY_ACCOUNT, Failover
from workflows.intents import IntentWorkflow

FAILOVER = HISTORIES / "intent_failover.json"


def _history() -> WorkflowHistory:
    return WorkflowHistory.from_json("replay-failover", FAILOVER.read_text())


def _replayer() -> Replayer:
    # Unsandboxed: the change below is made in this process's modules.
    return Replayer(
        workflows=[IntentWorkflow],
        data_converter=pydantic_data_converter,
        workflow_runner=UnsandboxedWorkflowRunner(),
    )


async def test_the_failover_history_replays() -> None:
    await _replayer().replay_workflow(_history())


async def test_code_that_does_not_fail_over_breaks_the_failover_history(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async def never(self: Failover, state: object, reason: str) -> bool:
        return False

    monkeypatch.setattr(Failover, "_fail_over", never)
    # The history's next commands are the failover's lookups (select_provider again):
    # the changed code schedules something else, and the replay fails.
    result = await _replayer().replay_workflow(_history(), raise_on_replay_failure=False)
    assert result.replay_failure is not None


ACCOUNTS_FAILOVER = HISTORIES / "intent_accounts_failover.json"


async def test_code_that_fails_over_by_provider_breaks_the_accounts_failover_history(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Patch `accounts-failover-by-account`: `tests/histories/intent_accounts_failover.json`
    (the same path, recorded with the patch) replays with its recorded state in
    tests/test_replay.py; code that still excluded the providers tried, not the accounts,
    asks select_provider something else than the run recorded."""
    patched = workflow.patched

    def by_provider(patch_id: str) -> bool:
        return False if patch_id == FAILOVER_BY_ACCOUNT else patched(patch_id)

    monkeypatch.setattr(workflow, "patched", by_provider)
    history = WorkflowHistory.from_json("replay-accounts", ACCOUNTS_FAILOVER.read_text())
    replayed = Replayed()
    replayer = Replayer(
        workflows=[IntentWorkflow],
        data_converter=pydantic_data_converter,
        workflow_runner=UnsandboxedWorkflowRunner(),
        interceptors=[_Capture(replayed)],
    )
    result = await replayer.replay_workflow(history, raise_on_replay_failure=False)
    found = differences(history, replayed, state_file(ACCOUNTS_FAILOVER))
    assert result.replay_failure is not None or any(
        "select_provider" in difference and "excluded_providers=['sandbox_atlas']" in difference
        for difference in found
    ), found
