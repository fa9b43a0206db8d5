"""IntentWorkflow with its activities stubbed: provider timing HTTP tests cannot arrange.

Over HTTP the sandbox provider answers at once and always the same way, so two things
the workflow must handle at expiry stay out of reach: a provider that is down when the
order must be voided (the void is retried until it answers), and a deposit that lands
during that outage (the provider then refuses the void, and the intent must wait for
its deposit event instead of expiring). Here the workflow runs on Temporal's
time-skipping test server with activities registered under the real names, standing
in for what lies outside the workflow: the database (lookups, the projection) and the
provider. The workflow itself is the real one.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator, Callable
from datetime import timedelta
from decimal import Decimal

import pytest
from temporalio import activity
from temporalio.client import (
    Client,
    WithStartWorkflowOperation,
    WorkflowExecutionStatus,
    WorkflowHandle,
)
from temporalio.common import WorkflowIDConflictPolicy
from temporalio.service import RPCError
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Worker

from ramp.catalog.models import MovementType
from ramp.intents.changes import IntentChange
from ramp.intents.lifecycle import workflow_id
from ramp.intents.models import (
    CheckedSelection,
    CheckResults,
    IntentOutcome,
    IntentRequest,
    IntentState,
    ProviderEvent,
    ProviderSelection,
    ProviderTransaction,
    TransactionContext,
    TransactionRequest,
)
from ramp.intents.provider_calls import (
    TransferOrder,
    TransferProgress,
    TransferQuery,
    TransferVoid,
    VoidResult,
)
from ramp.intents.states import IntentStatus, ProviderEventType, TransactionStatus
from tests.helpers.servers import service_client, skip_time, time_skipping_server
from worker import workflow_runner
from workflows.intents import IntentWorkflow

TASK_QUEUE = "intent-workflow-stubbed"
LIFETIME = timedelta(hours=24)
# Void attempts the provider fails before it answers again.
OUTAGE_ATTEMPTS = 3
PROVIDER_REFERENCE = "atlas_stubbed_order"


class Outside:
    """The database and the provider as the workflow reaches them: activities, by name.

    `journal` lists, in order, every void attempt and every projection write."""

    def __init__(self, client: Client) -> None:
        self._client = client
        self.intent_ids: list[str] = []
        self.journal: list[str] = []
        self.recorded: list[IntentState] = []
        self.voids: list[TransferVoid] = []
        # When set, the deposit reaches the provider during its outage, and the provider
        # reports it to the workflow as its webhook would (report_provider_event).
        self.late_deposit: ProviderEvent | None = None
        self.orders: list[TransactionRequest] = []
        self.refused = asyncio.Event()
        self.holds_deposit = False
        self._written = asyncio.Condition()

    @activity.defn(name="select_and_check_requirements")
    async def select_and_check_requirements(self, request: IntentRequest) -> CheckedSelection:
        self.intent_ids.append(request.intent_id)
        selection = ProviderSelection(
            provider_id="provider-atlas",
            provider_code="sandbox_atlas",
            provider_name="Atlas",
            provider_account_id="atlas-account",
            movement_type=MovementType.ONRAMP,
            source_currency="USD",
            destination_currency="USDC_ETHEREUM",
            requirements=[],  # nothing to onboard: the transaction is created at once
        )
        return CheckedSelection(selection=selection, checks=CheckResults(results=[]))

    @activity.defn(name="provider_create_transfer")
    async def provider_create_transfer(self, order: TransferOrder) -> ProviderTransaction:
        self.orders.append(order.request)
        return ProviderTransaction(
            provider_reference=PROVIDER_REFERENCE,
            context=TransactionContext(deposit_instructions=[]),
        )

    @activity.defn(name="provider_get_transfer")
    async def provider_get_transfer(self, query: TransferQuery) -> TransferProgress:
        # The poll: nothing moves unless the test reports it.
        return TransferProgress(provider_state="pending", events=[])

    @activity.defn(name="provider_cancel_transfer")
    async def provider_cancel_transfer(self, void: TransferVoid) -> VoidResult:
        self.voids.append(void)
        if len(self.voids) <= OUTAGE_ATTEMPTS:
            self.journal.append("void: provider down")
            if self.late_deposit is not None and not self.holds_deposit:
                self.holds_deposit = True
                handle = self._client.get_workflow_handle(activity.info().workflow_id or "")
                await handle.signal(IntentWorkflow.report_provider_event, self.late_deposit)
                self.journal.append("deposit reported")
            raise ConnectionError("the provider did not answer")
        if self.holds_deposit:
            self.journal.append("void: refused")
            self.refused.set()
            # What ProviderActivities.provider_cancel_transfer answers for the
            # connector's NotSupported: the provider holds the deposit.
            return VoidResult(voided=False, reason="the deposit has arrived")
        self.journal.append("void: done")
        return VoidResult(voided=True)

    @activity.defn(name="record_intent")
    async def record_intent(self, change: IntentChange) -> None:
        async with self._written:
            self.journal.append(f"record: {change.state.status}")
            self.recorded.append(change.state)
            self._written.notify_all()

    @property
    def last(self) -> IntentState:
        return self.recorded[-1]

    async def until(self, condition: Callable[[IntentState], bool]) -> IntentState:
        """The last recorded state, once it meets `condition`."""
        async with asyncio.timeout(10), self._written:
            await self._written.wait_for(lambda: bool(self.recorded) and condition(self.last))
        return self.last


@pytest.fixture(scope="module")
async def skipping_env() -> AsyncIterator[WorkflowEnvironment]:
    async with time_skipping_server() as env:
        yield env


@pytest.fixture(scope="module")
def client(skipping_env: WorkflowEnvironment) -> Client:
    """Like the service's client; without the environment's auto-skipping interceptor."""
    return service_client(skipping_env)


@pytest.fixture
async def outside(client: Client) -> AsyncIterator[Outside]:
    """A fresh provider and projection, served by a worker of this module's queue."""
    stubs = Outside(client)
    async with Worker(
        client,
        task_queue=TASK_QUEUE,
        workflows=[IntentWorkflow],
        activities=[
            stubs.select_and_check_requirements,
            stubs.provider_create_transfer,
            stubs.provider_get_transfer,
            stubs.provider_cancel_transfer,
            stubs.record_intent,
        ],
        workflow_runner=workflow_runner(),
    ):
        yield stubs
        # A workflow left running by a failure would wake up in the next test's sleep.
        for intent_id in stubs.intent_ids:
            handle = client.get_workflow_handle(workflow_id(intent_id))
            with contextlib.suppress(RPCError):
                if (await handle.describe()).status is WorkflowExecutionStatus.RUNNING:
                    await handle.terminate("the test is over")


async def _open_auto_executed_intent(
    client: Client,
) -> tuple[IntentState, WorkflowHandle[IntentWorkflow, IntentOutcome]]:
    """Opens an intent as `POST /intent` does (update-with-start of `open`): nothing to
    onboard, so its transaction is created at once and waits for the deposit."""
    intent_id = str(uuid.uuid4())
    request = IntentRequest(
        intent_id=intent_id,
        project_id="project-stubbed",
        customer_id="customer-stubbed",
        src_account_id="account-bank",
        dest_account_id="account-wallet",
        amount=Decimal("100.00"),
        lifetime_seconds=int(LIFETIME.total_seconds()),
        fingerprint="stubbed",
    )
    start = WithStartWorkflowOperation(
        IntentWorkflow.run,
        request,
        id=workflow_id(intent_id),
        task_queue=TASK_QUEUE,
        id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
    )
    opened = await client.execute_update_with_start_workflow(
        IntentWorkflow.open, "request-1", start_workflow_operation=start, id="open"
    )
    assert opened.status is IntentStatus.PROCESSING
    assert opened.transaction is not None
    assert opened.transaction.status is TransactionStatus.PENDING
    return opened, await start.workflow_handle()


async def _outcome(handle: WorkflowHandle[IntentWorkflow, IntentOutcome]) -> IntentStatus | None:
    """The ended workflow's final status (time is not skipped while waiting here)."""
    async with asyncio.timeout(10):
        outcome = await handle.result()
    return outcome.status


async def test_an_order_is_voided_once_the_provider_is_back_and_the_intent_expires(
    skipping_env: WorkflowEnvironment, client: Client, outside: Outside
) -> None:
    opened, handle = await _open_auto_executed_intent(client)
    assert opened.transaction is not None

    await skip_time(skipping_env, LIFETIME + timedelta(minutes=1))
    assert await _outcome(handle) is IntentStatus.EXPIRED

    # The void was retried through the outage, and the intent expired only once the
    # provider had voided the order: its deposit instructions no longer work.
    assert outside.journal == [
        "record: PROCESSING",
        *["void: provider down"] * OUTAGE_ATTEMPTS,
        "void: done",
        "record: EXPIRED",
    ]
    assert {void.provider_reference for void in outside.voids} == {PROVIDER_REFERENCE}
    assert [order.transaction_id for order in outside.orders] == [opened.transaction.id]
    expired = outside.last
    assert expired.status is IntentStatus.EXPIRED
    assert expired.failure_reason == "the intent expired"
    assert expired.transaction is not None
    assert expired.transaction.status is TransactionStatus.CANCELLED
    assert expired.transaction.failure_reason == "the intent expired before the deposit arrived"


async def test_a_deposit_that_lands_during_a_provider_outage_at_expiry_completes_its_intent(
    skipping_env: WorkflowEnvironment, client: Client, outside: Outside
) -> None:
    opened, handle = await _open_auto_executed_intent(client)
    transaction = opened.transaction
    assert transaction is not None

    # The expiry voids the order while the provider is down; meanwhile the deposit
    # reaches the provider, which reports it (the signal waits behind the expiry).
    outside.late_deposit = ProviderEvent(
        event_id="late-deposit",
        transaction_id=transaction.id,
        type=ProviderEventType.DEPOSIT_RECEIVED,
    )
    await skip_time(skipping_env, LIFETIME + timedelta(minutes=1))
    moving = await outside.until(lambda state: state.revision > opened.revision)
    async with asyncio.timeout(10):
        await outside.refused.wait()
    # Back, the provider refused to void a funded order: the intent did not expire. The
    # void runs outside the workflow's lock, so the deposit is applied (and recorded)
    # as soon as it is reported, while the void is still being retried.
    assert [entry for entry in outside.journal if entry.startswith("void")] == [
        *["void: provider down"] * OUTAGE_ATTEMPTS,
        "void: refused",
    ]
    assert outside.journal.index("deposit reported") == 2
    assert outside.journal.count("record: PROCESSING") == 2
    assert "record: EXPIRED" not in outside.journal
    assert moving.status is IntentStatus.PROCESSING
    assert moving.failure_reason is None
    assert moving.transaction is not None
    assert moving.transaction.status is TransactionStatus.IN_PROGRESS
    assert (await handle.describe()).status is WorkflowExecutionStatus.RUNNING

    await handle.signal(
        IntentWorkflow.report_provider_event,
        ProviderEvent(
            event_id="settled", transaction_id=transaction.id, type=ProviderEventType.SETTLED
        ),
    )
    assert await _outcome(handle) is IntentStatus.COMPLETED
    settled = outside.last
    assert settled.status is IntentStatus.COMPLETED
    assert settled.transaction is not None
    assert settled.transaction.status is TransactionStatus.SUCCESS
    assert [event.type for event in settled.transaction.events] == [
        ProviderEventType.DEPOSIT_RECEIVED,
        ProviderEventType.SETTLED,
    ]
