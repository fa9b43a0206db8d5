"""The workflow side of an intent's worker CPU, measured apart: the recorded history of
an auto-complete intent on the provider path (tests/histories/
intent_one_path_autocomplete.json) replayed N times with the worker's sandbox and
converter. A replay creates the workflow in the sandbox and runs every activation, with
no activity, database or server: what it costs is the sandbox's module work, the
workflow code and payload conversion. Prints CPU milliseconds per replay (this
process's user and system time); run it on two checkouts to compare.

    .venv/bin/python -m bench.workflow_replay [--replays 300] [--history FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import time
from collections.abc import AsyncIterator
from pathlib import Path

from temporalio.client import WorkflowHistory
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.worker import Replayer

from worker import cache_workflow_bytecode, workflow_runner
from workflows.intents import IntentWorkflow

HISTORY = (
    Path(__file__).resolve().parent.parent
    / "tests"
    / "histories"
    / "intent_one_path_autocomplete.json"
)
WARMUP = 20


async def replay(history: WorkflowHistory, count: int) -> None:
    replayer = Replayer(
        workflows=[IntentWorkflow],
        data_converter=pydantic_data_converter,
        workflow_runner=workflow_runner(),
    )

    # One replayer worker for every replay (each history under its own workflow id),
    # as one worker runs many intents.
    async def histories() -> AsyncIterator[WorkflowHistory]:
        for i in range(count):
            yield WorkflowHistory(f"bench-replay-{i}", history.events)

    results = await replayer.replay_workflows(histories(), raise_on_replay_failure=True)
    assert not results.replay_failures


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--replays", type=int, default=300)
    parser.add_argument("--history", type=Path, default=HISTORY)
    args = parser.parse_args()
    cache_workflow_bytecode()
    history = WorkflowHistory.from_json("bench-replay", args.history.read_text())
    asyncio.run(replay(history, WARMUP))
    cpu, wall = time.process_time(), time.perf_counter()
    asyncio.run(replay(history, args.replays))
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    print(
        json.dumps(
            {
                "benchmark": "workflow_replay",
                "history": args.history.name,
                "replays": args.replays,
                "cpu_ms_per_replay": round(cpu * 1000 / args.replays, 2),
                "wall_ms_per_replay": round(wall * 1000 / args.replays, 2),
                "load_average": [round(x, 2) for x in os.getloadavg()],
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
