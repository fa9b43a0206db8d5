"""The outbox's share of `record_intent`, measured apart from Temporal and HTTP: the
events of one auto-complete intent (5: three compliance steps, the transaction, the
intent) stored with no endpoint subscribed and committed, N times, on SQLite in a
temporary directory. Prints CPU and wall milliseconds per write.

Since issue 29 every event is stored (`GET /v1/events`); before, a write without
subscribers stored nothing. Run it on two checkouts to compare (docs/performance.md):

    .venv/bin/python -m bench.outbox_write [--writes 2000]
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ramp.config import Settings
from ramp.db.engine import begin_write, create_engine, session_factory
from ramp.db.migrate import upgrade
from ramp.intents.events import (
    ComplianceUpdated,
    EventData,
    IntentStatusChanged,
    MoneyMovementUpdated,
    WebhookEvent,
    WebhookEventType,
    event_id,
)
from ramp.intents.states import IntentStatus, StepStatus, TransactionStatus
from ramp.security.keys import generated_keys
from ramp.webhooks.models import DeliveryPolicy
from ramp.webhooks.outbox import WebhookOutbox
from tests.helpers.projects import make_project

WARMUP = 200


def intent_events(project_id: str) -> list[WebhookEvent]:
    intent, customer = str(uuid.uuid4()), str(uuid.uuid4())
    now = datetime.now(UTC)

    def event(kind: WebhookEventType, subject: str, data: EventData) -> WebhookEvent:
        return WebhookEvent(
            event_id=event_id(intent, 1, f"{kind}/{subject}"),
            event_type=kind,
            timestamp=now,
            project_id=project_id,
            data=data,
        )

    steps = [
        event(
            WebhookEventType.COMPLIANCE_UPDATED,
            code,
            ComplianceUpdated(
                intent_id=intent,
                customer_id=customer,
                requirement_code=code,
                status=StepStatus.COMPLETED,
                previous_status=None,
            ),
        )
        for code in ("KYC_BASIC", "TERMS_OF_SERVICE", "SOURCE_OF_FUNDS")
    ]
    transaction = event(
        WebhookEventType.MONEY_MOVEMENT_UPDATED,
        "transaction",
        MoneyMovementUpdated(
            intent_id=intent,
            customer_id=customer,
            transaction_id=str(uuid.uuid4()),
            status=TransactionStatus.PENDING,
            previous_status=None,
            provider_reference="ATL-9F3K2M7Q1B",
        ),
    )
    opened = event(
        WebhookEventType.INTENT_STATUS_CHANGED,
        "intent",
        IntentStatusChanged(
            intent_id=intent,
            customer_id=customer,
            status=IntentStatus.PROCESSING,
            previous_status=None,
            failure_reason=None,
        ),
    )
    return [*steps, transaction, opened]


async def measure(writes: int) -> tuple[float, float]:
    with tempfile.TemporaryDirectory(prefix="ramp-outbox-bench-") as tmp:
        keys: dict[str, Any] = generated_keys()
        settings = Settings(
            RAMP_ENV="sandbox",
            RAMP_DATA_DIR=tmp,
            DATABASE_URL=f"sqlite:///{Path(tmp) / 'bench.db'}",
            **keys,
        )
        upgrade(settings)
        engine = create_engine(settings)
        db = session_factory(engine)
        async with db() as session:
            project = await make_project(session, settings)
        outbox = WebhookOutbox(DeliveryPolicy())
        batches = [intent_events(project.project_id) for _ in range(WARMUP + writes)]

        async def write(batch: list[WebhookEvent]) -> None:
            async with db() as session:
                await begin_write(session)
                await outbox.enqueue(session, batch)
                await session.commit()

        for batch in batches[:WARMUP]:
            await write(batch)
        cpu, wall = time.process_time(), time.perf_counter()
        for batch in batches[WARMUP:]:
            await write(batch)
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        await engine.dispose()
    return 1000 * cpu / writes, 1000 * wall / writes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--writes", type=int, default=2000)
    args = parser.parse_args()
    cpu, wall = asyncio.run(measure(args.writes))
    print(f"{args.writes} writes: {cpu:.3f} ms CPU, {wall:.3f} ms wall per write")


if __name__ == "__main__":
    main()
