"""The Temporal worker: runs the service's workflows and activities.

`ramp worker` and `python worker.py` both land here; configuration comes from the
environment (see ramp/config.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from datetime import timedelta

from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel.ext.asyncio.session import AsyncSession
from temporalio.client import (
    Client,
    Schedule,
    ScheduleActionStartWorkflow,
    ScheduleAlreadyRunningError,
    ScheduleIntervalSpec,
    ScheduleSpec,
)
from temporalio.worker import Worker
from temporalio.worker.workflow_sandbox import SandboxedWorkflowRunner, SandboxRestrictions

from activities.housekeeping import HousekeepingActivities
from activities.intents import IntentActivities
from activities.onboarding import OnboardingActivities
from activities.webhooks import WebhookActivities, WebhookOutbox
from ramp import temporal
from ramp.adapters import ProviderAdapters, catalog_adapters
from ramp.config import DEFAULT_KYC_RETENTION_DAYS, Settings
from ramp.db.engine import create_engine, session_factory
from ramp.housekeeping import PURGE_INTERVAL_MINUTES, SCHEDULE_ID, NoncePurge
from ramp.onboarding.verification import Verifiers, catalog_verifiers
from ramp.security.encryption import SecretBox
from ramp.settings_loader import load_settings
from ramp.webhooks.models import DeliveryPolicy
from ramp.webhooks.sweeper import OutboxSweeper
from workflows.housekeeping import PurgeExpiredNonces
from workflows.intents import IntentWorkflow
from workflows.webhooks import WebhookDeliveryWorkflow

logger = logging.getLogger("ramp.worker")

WORKFLOWS = [PurgeExpiredNonces, IntentWorkflow, WebhookDeliveryWorkflow]
# Besides the SDK's defaults (the standard library, temporalio, pydantic): our domain
# package, whose models and pure lifecycle code the workflow modules import. Passed
# through, it is imported once per process instead of once per workflow run; the
# workflow modules themselves stay sandboxed (re-imported per run, with the sandbox's
# checks on nondeterministic calls). They import nothing else: activity code is
# reached by name (ramp/*/activities.py), never imported (tests/test_workflow_imports.py).
WORKFLOW_PASSTHROUGH_MODULES = ("ramp",)


def workflow_runner() -> SandboxedWorkflowRunner:
    """The workflow sandbox of the worker, and of every replay of its histories."""
    return SandboxedWorkflowRunner(
        restrictions=SandboxRestrictions.default.with_passthrough_modules(
            *WORKFLOW_PASSTHROUGH_MODULES
        )
    )


def build_worker(
    client: Client,
    db: async_sessionmaker[AsyncSession],
    secret_box: SecretBox,
    *,
    adapters: ProviderAdapters | None = None,
    delivery: DeliveryPolicy | None = None,
    verifiers: Verifiers | None = None,
    outbox: WebhookOutbox | None = None,
    kyc_retention: timedelta = timedelta(days=DEFAULT_KYC_RETENTION_DAYS),
    task_queue: str = temporal.TASK_QUEUE,
) -> Worker:
    """The worker with every workflow and activity; database work goes through `db`,
    secrets (webhook signing keys) are decrypted with `secret_box`; onboarding
    submissions are purged `kyc_retention` after their intent ended."""
    housekeeping = HousekeepingActivities(db, secret_box, kyc_retention)
    outbox = outbox or WebhookOutbox(client, delivery or DeliveryPolicy(), task_queue)
    intents = IntentActivities(db, adapters or catalog_adapters(), outbox)
    webhooks = WebhookActivities(db, secret_box)
    onboarding = OnboardingActivities(db, secret_box, verifiers or catalog_verifiers())
    return Worker(
        client,
        task_queue=task_queue,
        workflows=WORKFLOWS,
        activities=[
            housekeeping.purge_expired_nonces,
            housekeeping.purge_ended_submissions,
            intents.select_provider,
            intents.check_requirements,
            intents.create_transaction,
            intents.cancel_transaction,
            intents.record_intent,
            onboarding.verify_submission,
            webhooks.attempt_delivery,
        ],
        workflow_runner=workflow_runner(),
    )


def delivery_policy(settings: Settings) -> DeliveryPolicy:
    return DeliveryPolicy(
        retry_delays_seconds=settings.webhook_retry_delays_seconds,
        timeout_seconds=settings.webhook_timeout_seconds,
    )


async def ensure_schedules(client: Client, task_queue: str = temporal.TASK_QUEUE) -> None:
    """Creates the housekeeping schedule unless it exists (every worker tries)."""
    with contextlib.suppress(ScheduleAlreadyRunningError):
        await client.create_schedule(
            SCHEDULE_ID,
            Schedule(
                action=ScheduleActionStartWorkflow(
                    PurgeExpiredNonces.run,
                    NoncePurge(),
                    id=f"{SCHEDULE_ID}-purge-nonces",
                    task_queue=task_queue,
                ),
                spec=ScheduleSpec(
                    intervals=[
                        ScheduleIntervalSpec(every=timedelta(minutes=PURGE_INTERVAL_MINUTES))
                    ]
                ),
            ),
        )


async def run(settings: Settings) -> None:
    client = await temporal.connect(settings)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    await ensure_schedules(client, settings.task_queue)
    # Activities retry on a dropped connection: no need to test each one before use.
    engine = create_engine(settings, pre_ping=False)
    db = session_factory(engine)
    policy = delivery_policy(settings)
    try:
        async with build_worker(
            client,
            db,
            SecretBox.from_settings(settings),
            delivery=policy,
            kyc_retention=timedelta(days=settings.kyc_retention_days),
            task_queue=settings.task_queue,
        ):
            logger.info("worker polling task queue %r", settings.task_queue)
            # Starts the delivery workflows whose start was lost (a crash after the commit).
            sweeper = OutboxSweeper(db, client, policy, task_queue=settings.task_queue)
            sweeping = asyncio.create_task(sweeper.run(stop))
            await stop.wait()
            logger.info("worker shutting down")
            await sweeping
    finally:
        await engine.dispose()


def main() -> None:
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    asyncio.run(run(load_settings()))


if __name__ == "__main__":
    main()
