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

from tests.histories.record import HISTORIES
from tests.histories.snapshots import (
    Replayed,
    _Capture,
    differences,
    recorded,
    state_file,
    unsandboxed_replayer,
    without_patch,
)
from workflows.failover import FAILOVER_BY_ACCOUNT, Failover
from workflows.intents import IntentWorkflow

FAILOVER = HISTORIES / "intent_failover.json"


async def test_the_failover_history_replays() -> None:
    await unsandboxed_replayer(IntentWorkflow).replay_workflow(recorded(FAILOVER))


async def test_code_that_does_not_fail_over_breaks_the_failover_history(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async def never(self: Failover, state: object, reason: str) -> bool:
        return False

    monkeypatch.setattr(Failover, "_fail_over", never)
    # The history's next commands are the failover's lookups (select_provider again):
    # the changed code schedules something else, and the replay fails.
    result = await unsandboxed_replayer(IntentWorkflow).replay_workflow(
        recorded(FAILOVER), raise_on_replay_failure=False
    )
    assert result.replay_failure is not None


ACCOUNTS_FAILOVER = HISTORIES / "intent_accounts_failover.json"


async def test_code_that_fails_over_by_provider_breaks_the_accounts_failover_history(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Patch `accounts-failover-by-account`: `tests/histories/intent_accounts_failover.json`
    (the same path, recorded with the patch) replays with its recorded state in
    tests/test_replay.py; code that still excluded the providers tried, not the accounts,
    asks select_provider something else than the run recorded."""
    without_patch(monkeypatch, FAILOVER_BY_ACCOUNT)
    history = recorded(ACCOUNTS_FAILOVER)
    replayed = Replayed()
    replayer = unsandboxed_replayer(IntentWorkflow, interceptors=[_Capture(replayed)])
    result = await replayer.replay_workflow(history, raise_on_replay_failure=False)
    found = differences(history, replayed, state_file(ACCOUNTS_FAILOVER))
    assert result.replay_failure is not None or any(
        "select_provider" in difference and "excluded_providers=['sandbox_atlas']" in difference
        for difference in found
    ), found
