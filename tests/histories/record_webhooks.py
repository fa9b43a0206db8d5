"""Records WebhookDeliveryWorkflow histories for tests/test_webhook_replay.py.

    .venv/bin/python -m tests.histories.record_webhooks [--overwrite]

Each path runs one delivery on a Temporal dev server against a receiver on loopback and
saves its history as `tests/histories/webhook_delivery_<path>.json`. As with the intent
histories (see tests/test_replay.py), an existing file is never overwritten without
`--overwrite`: it stands for deliveries that may still be running.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from pathlib import Path

from temporalio.client import WorkflowHistory
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.worker import Replayer

from ramp.db.engine import create_engine, session_factory
from ramp.db.migrate import upgrade
from ramp.security.encryption import SecretBox
from ramp.webhooks.models import DeliveryOrder, DeliveryPolicy, DeliveryStatus
from tests.helpers.legacy_deliveries import delivery_workflow_id, start_delivery
from tests.helpers.servers import dev_server, service_client
from tests.helpers.webhook_api import stored_delivery
from tests.helpers.webhook_receiver import receiving
from tests.histories.record import HISTORIES, _settings
from worker import build_worker, workflow_runner
from workflows.webhooks import WebhookDeliveryWorkflow

# The endpoint's answers, attempt by attempt, and the delivery's final status.
PATHS: dict[str, tuple[list[int], DeliveryStatus]] = {
    "acknowledged": ([200], DeliveryStatus.SUCCEEDED),
    "retried": ([500, 503, 200], DeliveryStatus.SUCCEEDED),
    "exhausted": ([500] * 6, DeliveryStatus.EXHAUSTED),
    "gone": ([410], DeliveryStatus.GONE),
}
_FAST = DeliveryPolicy(retry_delays_seconds=(0.1,) * 5, timeout_seconds=5)


def history_file(path: str) -> Path:
    return HISTORIES / f"webhook_delivery_{path}.json"


def replayer(workflow: type = WebhookDeliveryWorkflow) -> Replayer:
    """Configured like the worker (worker.py)."""
    return Replayer(
        workflows=[workflow],
        data_converter=pydantic_data_converter,
        workflow_runner=workflow_runner(),
    )


async def record(paths: list[str]) -> None:
    with tempfile.TemporaryDirectory(prefix="ramp-webhook-histories-") as tmp:
        async with dev_server() as env:
            settings = _settings(Path(tmp), env.client.service_client.config.target_host)
            upgrade(settings)
            engine = create_engine(settings)
            client = service_client(env)
            sessions = session_factory(engine)
            try:
                async with build_worker(client, sessions, SecretBox.from_settings(settings)):
                    for path in paths:
                        answers, expected = PATHS[path]
                        async with receiving() as receiver, sessions() as db:
                            receiver.statuses = list(answers)
                            delivery_id = await stored_delivery(
                                db, settings, receiver.url, client, _FAST
                            )
                            await start_delivery(
                                client, DeliveryOrder(delivery_id=delivery_id, policy=_FAST)
                            )
                            handle = client.get_workflow_handle_for(
                                WebhookDeliveryWorkflow.run, delivery_workflow_id(delivery_id)
                            )
                            async with asyncio.timeout(30):
                                outcome = await handle.result()
                        assert outcome.status is expected, (path, outcome)
                        history: WorkflowHistory = await handle.fetch_history()
                        await replayer().replay_workflow(history)
                        history_file(path).write_text(history.to_json() + "\n")
                        print(f"{path}: {history_file(path).name} ({outcome.status})")
            finally:
                await engine.dispose()


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "paths", nargs="*", help=f"some of {', '.join(PATHS)}; default: missing ones"
    )
    parser.add_argument("--overwrite", action="store_true")
    args = parser.parse_args(argv)
    unknown = set(args.paths) - set(PATHS)
    if unknown:
        parser.error(f"unknown paths: {', '.join(sorted(unknown))}")
    chosen = args.paths or [p for p in PATHS if not history_file(p).exists()]
    existing = [p for p in chosen if history_file(p).exists()]
    if existing and not args.overwrite:
        print(f"refusing to overwrite {existing} (use --overwrite)", file=sys.stderr)
        return 2
    asyncio.run(record(chosen))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
