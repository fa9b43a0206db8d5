"""What a replay computes, compared with what the recorded run produced.

A replay alone checks the command sequence: activity names and order, timers, markers.
The state the workflow computes (what `record_intent` writes to the projection, what an
update answers the API, the run's result) can change while the commands stay the same,
so these comparisons catch what the command check cannot:

- each update's replayed answer against its recorded outcome (in the history), unless
  the update's answer had another shape then;
- each regular activity's replayed input against the scheduled one (in the history);
- the run's replayed result against the recorded one (in the history);
- each local activity's replayed input against a snapshot beside the history
  (`states/<history>.json`): a local activity's input is not in its history.

Values are compared as models, decoded with the worker's converter, so a change in how
a value serialises (a new field with a default, say) is no difference.

    .venv/bin/python -m tests.histories.snapshots   # writes missing snapshots

A snapshot is written by replaying its history on the code that recorded it (record.py
does it when recording). Like the histories, existing snapshots are never rewritten.
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from temporalio import workflow
from temporalio.api.common.v1 import Payload
from temporalio.api.enums.v1 import EventType
from temporalio.client import WorkflowHistory
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.worker import (
    ExecuteWorkflowInput,
    HandleUpdateInput,
    Interceptor,
    Replayer,
    StartActivityInput,
    StartLocalActivityInput,
    UnsandboxedWorkflowRunner,
    WorkflowInboundInterceptor,
    WorkflowInterceptorClassInput,
    WorkflowOutboundInterceptor,
)
from temporalio.workflow import ActivityHandle

from worker import workflow_runner

HISTORIES = Path(__file__).resolve().parent
STATES = HISTORIES / "states"
_CONVERTER = pydantic_data_converter.payload_converter
_FAILED = object()


@dataclass
class Replayed:
    """What the workflow computed during one replay (deep copies, taken as it went)."""

    result: Any = None
    # Update id -> the handler's answer (or _FAILED).
    updates: dict[str, Any] = field(default_factory=dict)
    activities: list[tuple[str, list[Any]]] = field(default_factory=list)
    local_activities: list[tuple[str, list[Any]]] = field(default_factory=list)


class _Capture(Interceptor):
    def __init__(self, replayed: Replayed) -> None:
        self._replayed = replayed

    def workflow_interceptor_class(
        self, input: WorkflowInterceptorClassInput
    ) -> type[WorkflowInboundInterceptor]:
        replayed = self._replayed

        class Outbound(WorkflowOutboundInterceptor):
            def start_activity(self, input: StartActivityInput) -> ActivityHandle[Any]:
                replayed.activities.append((input.activity, copy.deepcopy(list(input.args))))
                return super().start_activity(input)

            def start_local_activity(self, input: StartLocalActivityInput) -> ActivityHandle[Any]:
                replayed.local_activities.append((input.activity, copy.deepcopy(list(input.args))))
                return super().start_local_activity(input)

        class Inbound(WorkflowInboundInterceptor):
            def init(self, outbound: WorkflowOutboundInterceptor) -> None:
                super().init(Outbound(outbound))

            async def execute_workflow(self, input: ExecuteWorkflowInput) -> Any:
                result = await super().execute_workflow(input)
                replayed.result = copy.deepcopy(result)
                return result

            async def handle_update_handler(self, input: HandleUpdateInput) -> Any:
                try:
                    answer = await super().handle_update_handler(input)
                except BaseException:
                    replayed.updates[input.id] = _FAILED
                    raise
                replayed.updates[input.id] = copy.deepcopy(answer)
                return answer

        return Inbound


async def replay(history: WorkflowHistory, *workflows: type) -> Replayed:
    """Replays `history` with the worker's converter and sandbox; raises on a
    nondeterministic command sequence."""
    replayed = Replayed()
    replayer = Replayer(
        workflows=list(workflows),
        data_converter=pydantic_data_converter,
        workflow_runner=workflow_runner(),
        interceptors=[_Capture(replayed)],
    )
    await replayer.replay_workflow(history)
    return replayed


def unsandboxed_replayer(*workflows: type, interceptors: Sequence[Interceptor] = ()) -> Replayer:
    """A replayer of `workflows` outside the sandbox: a test's change to this process's
    modules (`without_patch`, a method replaced) is the code it replays."""
    return Replayer(
        workflows=list(workflows),
        data_converter=pydantic_data_converter,
        workflow_runner=UnsandboxedWorkflowRunner(),
        interceptors=interceptors,
    )


def without_patch(monkeypatch: pytest.MonkeyPatch, patch_id: str) -> None:
    """The workflow code as it was before `patch_id`: `workflow.patched` answers False
    for it (its branch removed), as before for every other patch."""
    patched = workflow.patched

    def before(asked: str) -> bool:
        return False if asked == patch_id else patched(asked)

    monkeypatch.setattr(workflow, "patched", before)


def recorded(file: Path) -> WorkflowHistory:
    """A recorded history (tests/histories/*.json), ready to replay."""
    return WorkflowHistory.from_json(f"replay-{file.stem}", file.read_text())


def patch_ids(history: WorkflowHistory) -> set[str]:
    """The ids of the patches `history` recorded a marker for (`workflow.patched`)."""
    found: set[str] = set()
    for event in history.events:
        if event.HasField("marker_recorded_event_attributes"):
            details = event.marker_recorded_event_attributes.details
            if "patch-data" in details:
                found |= {json.loads(p.data)["id"] for p in details["patch-data"].payloads}
    return found


def state_file(history_file: Path) -> Path:
    return STATES / history_file.name


def _decoded(payload: Payload, like: Any) -> Any:
    if like is None:
        return _CONVERTER.from_payloads([payload])[0]
    return _CONVERTER.from_payloads([payload], [type(like)])[0]


def _json_payload(value: Any) -> Payload:
    return Payload(metadata={"encoding": b"json/plain"}, data=json.dumps(value).encode())


def differences(history: WorkflowHistory, replayed: Replayed, snapshot: Path) -> list[str]:
    """Where the replay computed something other than the recorded run; empty if none."""
    found: list[str] = []
    scheduled: list[tuple[str, Sequence[Payload]]] = []
    for event in history.events:
        if event.event_type == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_COMPLETED:
            attributes = event.workflow_execution_update_completed_event_attributes
            update_id = attributes.meta.update_id
            answer = replayed.updates.get(update_id, _FAILED)
            if not attributes.outcome.HasField("success"):
                if answer is not _FAILED:
                    found.append(f"update {update_id}: recorded a failure, replayed {answer!r}")
                continue
            payloads = attributes.outcome.success.payloads
            try:
                recorded = _decoded(payloads[0], answer) if payloads else None
            except ValueError:
                # Answered in a shape the update no longer has (its answer went to the
                # API long ago): the snapshot's projection writes still cover the state.
                continue
            if answer is _FAILED or recorded != answer:
                found.append(f"update {update_id}: recorded {recorded!r}, replayed {answer!r}")
        elif event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
            activity = event.activity_task_scheduled_event_attributes
            scheduled.append((activity.activity_type.name, activity.input.payloads))
        elif event.event_type == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED:
            payloads = event.workflow_execution_completed_event_attributes.result.payloads
            recorded = _decoded(payloads[0], replayed.result) if payloads else None
            if recorded != replayed.result:
                found.append(f"result: recorded {recorded!r}, replayed {replayed.result!r}")
    found += _compare("activity", scheduled, replayed.activities)
    if replayed.local_activities or snapshot.exists():
        if not snapshot.exists():
            found.append(f"no snapshot of its local activities: {snapshot}")
        else:
            stored = json.loads(snapshot.read_text())["localActivities"]
            found += _compare(
                "local activity",
                [(s["activity"], [_json_payload(v) for v in s["args"]]) for s in stored],
                replayed.local_activities,
            )
    return found


def _compare(
    kind: str,
    recorded: Sequence[tuple[str, Sequence[Payload]]],
    replayed: Sequence[tuple[str, list[Any]]],
) -> list[str]:
    if [name for name, _ in recorded] != [name for name, _ in replayed]:
        return [f"{kind} calls: recorded {recorded!r}, replayed {replayed!r}"]
    found = []
    for number, ((name, payloads), (_, args)) in enumerate(zip(recorded, replayed, strict=True)):
        decoded = [_decoded(p, a) for p, a in zip(payloads, args, strict=False)]
        if decoded != args:
            found.append(f"{kind} {number} ({name}): recorded {decoded!r}, replayed {args!r}")
    return found


def write_snapshot(snapshot: Path, replayed: Replayed) -> None:
    """Stores the local activities' inputs of a replay (none: no file)."""
    if not replayed.local_activities:
        return
    stored = [
        {
            "activity": name,
            "args": [json.loads(p.data) for p in _CONVERTER.to_payloads(args)],
        }
        for name, args in replayed.local_activities
    ]
    snapshot.parent.mkdir(exist_ok=True)
    snapshot.write_text(json.dumps({"localActivities": stored}, indent=1) + "\n")


async def write_missing(files: Sequence[Path], *workflows: type) -> None:
    for file in files:
        snapshot = state_file(file)
        if snapshot.exists():
            continue
        history = recorded(file)
        replayed = await replay(history, *workflows)
        write_snapshot(snapshot, replayed)
        if snapshot.exists():
            print(f"{file.stem}: snapshot written ({len(replayed.local_activities)} inputs)")


def main(argv: Sequence[str]) -> int:
    argparse.ArgumentParser(
        prog="python -m tests.histories.snapshots", description=__doc__.splitlines()[0]
    ).parse_args(argv)
    from workflows.intents import IntentWorkflow

    asyncio.run(write_missing(sorted(HISTORIES.glob("intent_*.json")), IntentWorkflow))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
