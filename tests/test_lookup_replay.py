"""The patch `lookup-one-activity` (issue 30) guarded by recorded histories: an intent's
two lookups (`select_provider`, then `check_requirements`) are one local activity,
`select_and_check_requirements`, in runs that recorded the patch:
`tests/histories/intent_lookup_autocomplete.json` (the opening) and
`intent_lookup_failover.json` (the opening and a failover's lookups). Both replay with
their recorded state (tests/test_replay.py replays every history), and code without the
patch's branch fails them; histories from before carry no marker and replay the two
activities (tests/test_replay.py again)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

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
from workflows.intent_base import LOOKUP_ONE_ACTIVITY
from workflows.intents import IntentWorkflow

WITH_THE_PATCH = [
    HISTORIES / "intent_lookup_autocomplete.json",
    HISTORIES / "intent_lookup_failover.json",
]
BEFORE_THE_PATCH = [
    HISTORIES / "intent_one_path_autocomplete.json",
    HISTORIES / "intent_accounts_failover.json",
]


def _lookups(path: Path) -> list[str]:
    """The lookups' local activities of the recorded run (its inputs' snapshot)."""
    stored = json.loads(state_file(path).read_text())["localActivities"]
    names = {"select_provider", "check_requirements", "select_and_check_requirements"}
    return [s["activity"] for s in stored if s["activity"] in names]


def test_only_the_new_histories_carry_the_patch() -> None:
    for path in WITH_THE_PATCH:
        assert LOOKUP_ONE_ACTIVITY in patch_ids(recorded(path)), path
    for path in BEFORE_THE_PATCH:
        assert LOOKUP_ONE_ACTIVITY not in patch_ids(recorded(path)), path


def test_the_patched_runs_look_up_once_per_selection() -> None:
    opening = WITH_THE_PATCH[0]
    assert _lookups(opening) == ["select_and_check_requirements"]
    # The failover asks again: one activity where runs before ran two.
    failover = WITH_THE_PATCH[1]
    assert _lookups(failover) == ["select_and_check_requirements"] * 2
    before = BEFORE_THE_PATCH[1]
    assert (
        _lookups(before)
        == [
            "select_provider",
            "check_requirements",
        ]
        * 2
    )


@pytest.mark.parametrize("path", WITH_THE_PATCH, ids=lambda p: p.stem)
async def test_the_patched_histories_replay_with_their_state(path: Path) -> None:
    history = recorded(path)
    replayed = await replay(history, IntentWorkflow)
    assert differences(history, replayed, state_file(path)) == []
    assert replayed.result.status == "COMPLETED"


@pytest.mark.parametrize("path", WITH_THE_PATCH, ids=lambda p: p.stem)
async def test_code_without_the_patch_breaks_the_patched_histories(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The patch's branch removed (the two lookups for every run): the recorded single
    lookup no longer matches what the code schedules."""
    without_patch(monkeypatch, LOOKUP_ONE_ACTIVITY)
    replayer = unsandboxed_replayer(IntentWorkflow)
    result = await replayer.replay_workflow(recorded(path), raise_on_replay_failure=False)
    # The recorded answer (select_and_check_requirements') is resolved to the
    # select_provider the code now schedules in its place, and is no ProviderSelection.
    assert result.replay_failure is not None
    assert "validation errors for ProviderSelection" in str(result.replay_failure)
