"""The Temporal worker: runs the service's workflows and activities.

`ramp worker` and `python worker.py` both land here; configuration comes from the
environment (see ramp/config.py).
"""

from __future__ import annotations

import asyncio
import compileall
import contextlib
import logging
import signal
from datetime import timedelta
from pathlib import Path
from typing import Any

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

import workflows
from activities.housekeeping import HousekeepingActivities
from activities.intents import IntentActivities
from activities.onboarding import OnboardingActivities
from activities.providers import ProviderActivities
from activities.webhooks import WebhookActivities
from ramp import temporal
from ramp.adapters.registry import Connectors
from ramp.config import (
    DEFAULT_AUDIT_RETENTION_DAYS,
    DEFAULT_EVENT_RETENTION_DAYS,
    DEFAULT_KYC_RETENTION_DAYS,
    DEFAULT_WEBHOOK_RETENTION_DAYS,
    Settings,
    WebhookDispatch,
)
from ramp.db.engine import create_engine, session_factory, sqlite_writer
from ramp.heap import tune_gc_after_startup
from ramp.housekeeping import PURGE_INTERVAL_MINUTES, SCHEDULE_ID, NoncePurge
from ramp.intents.models import PollSchedule
from ramp.intents.workflow_client import IntentWorkflowClient
from ramp.observability.backlog import sample_backlogs_until
from ramp.observability.process import configure_process_logging, observe_worker
from ramp.observability.tracing import worker_interceptors
from ramp.onboarding.provider_forms import ProviderFormsVerifier
from ramp.onboarding.verification import Verifiers, catalog_verifiers
from ramp.provider_webhooks.relay import run_relay
from ramp.security.encryption import SecretBox
from ramp.settings_loader import load_settings
from ramp.webhooks import wakeup
from ramp.webhooks.dispatcher import DeliveryDispatcher, delivery_policy
from ramp.webhooks.models import DeliveryPolicy
from ramp.webhooks.outbox import WebhookOutbox
from ramp.webhooks.sender_process import sender_process
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


class ServiceWorker(Worker):
    """The Temporal worker, with the process's webhook dispatcher, if it has one, running
    beside it for as long as it runs (`async with` and `run()` alike)."""

    def __init__(
        self, client: Client, dispatcher: DeliveryDispatcher | None, **config: Any
    ) -> None:
        super().__init__(client, **config)
        self.dispatcher = dispatcher

    async def run(self) -> None:
        if self.dispatcher is None:
            await super().run()
            return
        stop = asyncio.Event()
        dispatching = asyncio.create_task(self.dispatcher.run(stop))
        try:
            await super().run()
        finally:
            stop.set()
            await dispatching


def cache_workflow_bytecode() -> None:
    """The sandbox imports the workflow modules anew for every workflow run; without
    their bytecode cached (PYTHONDONTWRITEBYTECODE forbids Python to write it, and an
    editable install never compiled it) each run compiles their source again, about
    4 ms of CPU per intent. Written once here; a read-only install (compiled by pip)
    is left as it is."""
    compileall.compile_dir(Path(workflows.__file__).parent, quiet=2)


def build_worker(
    client: Client,
    db: async_sessionmaker[AsyncSession],
    secret_box: SecretBox,
    *,
    connectors: Connectors | None = None,
    provider_poll: PollSchedule | None = None,
    delivery: DeliveryPolicy | None = None,
    verifiers: Verifiers | None = None,
    outbox: WebhookOutbox | None = None,
    dispatcher: DeliveryDispatcher | None = None,
    dispatch: WebhookDispatch = WebhookDispatch.WORKER,
    kyc_retention: timedelta = timedelta(days=DEFAULT_KYC_RETENTION_DAYS),
    webhook_retention: timedelta = timedelta(days=DEFAULT_WEBHOOK_RETENTION_DAYS),
    event_retention: timedelta = timedelta(days=DEFAULT_EVENT_RETENTION_DAYS),
    audit_retention: timedelta = timedelta(days=DEFAULT_AUDIT_RETENTION_DAYS),
    task_queue: str = temporal.TASK_QUEUE,
) -> ServiceWorker:
    """The worker with every workflow and activity, and the webhook dispatcher unless
    `dispatch` leaves deliveries to `ramp dispatcher` processes (dispatcher.py); database
    work goes through `db`, secrets (webhook signing keys) are decrypted with
    `secret_box`; onboarding submissions are purged `kyc_retention` after their intent
    ended, the webhook log `webhook_retention` after its deliveries ended, events
    `event_retention` after they occurred (and their deliveries went), and the audit
    log's entries once `audit_retention` old."""
    policy = delivery or DeliveryPolicy()
    housekeeping = HousekeepingActivities(db, secret_box, kyc_retention, audit_retention)
    # SQLite has one writer: this process's writes queue here rather than in its lock.
    writer = sqlite_writer(db)
    if dispatcher is None and dispatch is WebhookDispatch.WORKER:
        # Its POSTs from a child process: off the core that runs the intents.
        dispatcher = DeliveryDispatcher(
            db, secret_box, policy, writer=writer, sending=sender_process
        )
    outbox = outbox or WebhookOutbox(policy, dispatcher)
    intents = IntentActivities(
        db, connectors or Connectors(), outbox, writer, provider_poll, secret_box=secret_box
    )
    webhooks = (
        WebhookActivities(db, dispatcher.wake, webhook_retention, event_retention)
        if dispatcher is not None
        else WebhookActivities(db, retention=webhook_retention, event_retention=event_retention)
    )
    # Monerium decides its own profile's sections: our forms are forwarded to it.
    forwarded = Verifiers({"MONERIUM": ProviderFormsVerifier(db, secret_box, connectors)})
    onboarding = OnboardingActivities(
        db, secret_box, verifiers or catalog_verifiers().merged(forwarded)
    )
    providers = ProviderActivities(db, secret_box, connectors)
    return ServiceWorker(
        client,
        dispatcher,
        task_queue=task_queue,
        workflows=WORKFLOWS,
        activities=[
            housekeeping.purge_expired_nonces,
            housekeeping.purge_ended_submissions,
            intents.select_and_check_requirements,
            # What runs recorded before `lookup-one-activity` replay (docs/decisions.md).
            intents.select_provider,
            intents.check_requirements,
            intents.create_transaction,
            intents.cancel_transaction,
            intents.record_intent,
            # In-process connectors are called as local activities: here, by the
            # same names as the providers' worker registers.
            providers.provider_compliance,
            providers.provider_create_transfer,
            providers.provider_get_transfer,
            providers.provider_cancel_transfer,
            onboarding.verify_submission,
            webhooks.attempt_delivery,
            webhooks.purge_webhook_log,
        ],
        workflow_runner=workflow_runner(),
        interceptors=worker_interceptors(client.config()["interceptors"]),
    )


def build_provider_worker(
    client: Client,
    db: async_sessionmaker[AsyncSession],
    secret_box: SecretBox,
    *,
    connectors: Connectors | None = None,
    task_queue: str = temporal.TASK_QUEUE,
) -> Worker:
    """The worker of the calls to real providers: regular activities on the providers'
    task queue beside `task_queue` (a deployment may run it apart, with egress)."""
    providers = ProviderActivities(db, secret_box, connectors)
    return Worker(
        client,
        task_queue=temporal.providers_queue(task_queue),
        activities=[
            providers.provider_compliance,
            providers.provider_create_transfer,
            providers.provider_get_transfer,
            providers.provider_cancel_transfer,
        ],
        interceptors=worker_interceptors(client.config()["interceptors"]),
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
    cache_workflow_bytecode()
    # Before the client: its runtime serves the SDK's metrics, its interceptors trace.
    telemetry = observe_worker(settings)
    client = await temporal.connect(settings, runtime=telemetry.runtime)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    await ensure_schedules(client, settings.task_queue)
    # Activities retry on a dropped connection: no need to test each one before use.
    engine = create_engine(settings, pre_ping=False)
    db = session_factory(engine)
    policy = delivery_policy(settings)
    service = build_worker(
        client,
        db,
        SecretBox.from_settings(settings),
        delivery=policy,
        dispatch=settings.webhook_dispatch,
        kyc_retention=timedelta(days=settings.kyc_retention_days),
        provider_poll=PollSchedule(
            settings.provider_poll_first_seconds, settings.provider_poll_max_seconds
        ),
        webhook_retention=timedelta(days=settings.webhook_retention_days),
        event_retention=timedelta(days=settings.event_retention_days),
        audit_retention=timedelta(days=settings.audit_retention_days),
        task_queue=settings.task_queue,
    )
    tune_gc_after_startup()
    listening: asyncio.Task[None] | None = None
    if service.dispatcher is not None and settings.on_postgresql:
        # Deliveries another process stores (a redelivery, another worker's) go at once.
        listening = asyncio.create_task(
            wakeup.listen(settings.database_url, service.dispatcher.wake)
        )
    try:
        async with (
            service,
            build_provider_worker(
                client,
                db,
                SecretBox.from_settings(settings),
                connectors=Connectors.from_settings(settings),
                task_queue=settings.task_queue,
            ),
        ):
            logger.info("worker polling task queue %r", settings.task_queue)
            # Signals the intents of provider webhooks the API stored but did not relay.
            relaying = asyncio.create_task(
                run_relay(
                    db,
                    IntentWorkflowClient(client, settings.task_queue),
                    SecretBox.from_settings(settings),
                    stop,
                )
            )
            sampling = (
                asyncio.create_task(sample_backlogs_until(db, stop))
                if telemetry.server is not None
                else None
            )
            await stop.wait()
            logger.info("worker shutting down")
            await relaying
            if sampling is not None:
                await sampling
    finally:
        if listening is not None:
            listening.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await listening
        await engine.dispose()
        telemetry.close()


def main() -> None:
    settings = load_settings()
    configure_process_logging(settings)
    asyncio.run(run(settings))


if __name__ == "__main__":
    main()
