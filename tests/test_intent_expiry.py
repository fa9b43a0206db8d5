"""Intent expiry, on Temporal's time-skipping test server.

An intent whose money has not started moving by `expiredAt` (24 h after creation)
becomes EXPIRED and its workflow ends; a pending transaction is cancelled with it.
Once the deposit has arrived the timer no longer applies. `env.sleep` moves the test
server's clock: the API's handles (update-with-start) never skip time by themselves.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from datetime import datetime, timedelta
from typing import Any

import httpx
import pytest
from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel.ext.asyncio.session import AsyncSession
from temporalio.client import Client, WorkflowExecutionStatus, WorkflowHandle
from temporalio.service import RPCError
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Worker

from api.app import create_app
from ramp.adapters.contract import (
    NotSupported,
    ProviderAccountRef,
    ProviderContext,
    ProviderCustomerRef,
    ProviderTransfer,
    TransactionOrder,
)
from ramp.adapters.registry import Connectors
from ramp.adapters.sandbox import SandboxConnector
from ramp.catalog import Provider, provider_by_code
from ramp.config import Settings
from ramp.intents.lifecycle import derived_id, workflow_id
from ramp.intents.models import IntentOutcome, IntentRequest, ProviderEvent
from ramp.intents.service import IntentOrder, body_fingerprint, intent_id_for_key
from ramp.intents.states import IntentStatus, ProviderEventType
from ramp.money import format_amount
from ramp.security.encryption import SecretBox
from tests.helpers.payments import (
    complete_onboarding,
    create_intent,
    get_intent,
    provider_event,
    register_accounts,
    step_outcome,
    wait_for_intent,
)
from tests.helpers.projects import ProjectCredentials, make_customer
from tests.helpers.servers import (
    derive_settings,
    serve,
    service_client,
    skip_time,
    time_skipping_server,
)
from worker import build_worker
from workflows.intents import OPEN_UPDATE_WAIT, IntentWorkflow

# About Temporal's timers, not the database: one of the two passes runs it.
pytestmark = pytest.mark.either_database

LIFETIME = timedelta(hours=24)
# Test value of this module: the provider already holds the deposit of this amount.
FUNDED_AT_PROVIDER = "123.45"


class RecordingProvider(SandboxConnector):
    """The sandbox provider, plus a log of the orders the service voided (an outside
    party's API: the one thing tests may stand in for)."""

    def __init__(self, provider: Provider) -> None:
        super().__init__(provider)
        self.voided: list[str] = []
        self.funded: set[str] = set()
        self.refused: list[str] = []
        self.refusal = asyncio.Event()

    async def create_transfer(
        self,
        ctx: ProviderContext,
        customer: ProviderCustomerRef,
        order: TransactionOrder,
        destination_account: ProviderAccountRef | None = None,
    ) -> ProviderTransfer:
        created = await super().create_transfer(ctx, customer, order, destination_account)
        if format_amount(order.amount) == FUNDED_AT_PROVIDER:
            self.funded.add(created.provider_reference)
        return created

    async def cancel_transfer(self, ctx: ProviderContext, ref: str) -> None:
        if ref in self.funded:
            self.refused.append(ref)
            self.refusal.set()
            # The connector contract: the provider holds the deposit, no void.
            raise NotSupported("the deposit has arrived")
        self.voided.append(ref)


@pytest.fixture(scope="module")
def atlas() -> RecordingProvider:
    provider = provider_by_code("sandbox_atlas")
    assert provider is not None
    return RecordingProvider(provider)


@pytest.fixture(scope="module")
async def skipping_env() -> AsyncIterator[WorkflowEnvironment]:
    async with time_skipping_server() as env:
        yield env


@pytest.fixture(scope="module")
def skipping_client(skipping_env: WorkflowEnvironment) -> Client:
    """Like the service's client; without the environment's auto-skipping interceptor."""
    return service_client(skipping_env)


@pytest.fixture(scope="module")
async def skipping_worker(
    skipping_client: Client,
    sessions: async_sessionmaker[AsyncSession],
    secret_box: SecretBox,
    atlas: RecordingProvider,
    migrated: Settings,
) -> AsyncIterator[Worker]:
    connectors = Connectors({atlas.provider.code: atlas})
    async with build_worker(
        skipping_client, sessions, secret_box, connectors=connectors, task_queue=migrated.task_queue
    ) as running:
        yield running


@pytest.fixture(scope="module")
async def http(
    migrated: Settings, skipping_env: WorkflowEnvironment, skipping_worker: Worker
) -> AsyncIterator[httpx.AsyncClient]:
    """The API bound to the time-skipping server (its worker running)."""
    address = skipping_env.client.service_client.config.target_host
    async with serve(create_app(derive_settings(migrated, TEMPORAL_ADDRESS=address))) as client:
        yield client


@pytest.fixture
async def opened(skipping_client: Client) -> AsyncIterator[list[str]]:
    """Ids of the intents a test opens. Their workflows end with the test: one left
    running by a failure would wake up in the next test's days-long sleep and write
    to tables emptied since."""
    intent_ids: list[str] = []
    yield intent_ids
    for intent_id in intent_ids:
        handle = skipping_client.get_workflow_handle(f"intent-{intent_id}")
        with contextlib.suppress(RPCError):
            if (await handle.describe()).status is WorkflowExecutionStatus.RUNNING:
                await handle.terminate("the test is over")


def _moment(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


async def _new_customer(
    http: httpx.AsyncClient, project: ProjectCredentials, external_id: str
) -> tuple[str, tuple[str, str]]:
    customer = await make_customer(http, project, external_id)
    token: str = customer["access_token"]
    return token, await register_accounts(http, token)


async def _open(
    http: httpx.AsyncClient,
    token: str,
    accounts: tuple[str, str],
    opened: list[str],
    amount: str = "100.00",
) -> dict[str, Any]:
    response = await create_intent(http, token, accounts, amount=amount)
    assert response.status_code == 201, response.text
    envelope: dict[str, Any] = response.json()
    opened.append(envelope["intent"]["id"])
    return envelope


async def _onboarded_customer(
    http: httpx.AsyncClient, project: ProjectCredentials, external_id: str, opened: list[str]
) -> tuple[str, tuple[str, str]]:
    """A customer whose verifications are on record: their next intent auto-executes."""
    token, accounts = await _new_customer(http, project, external_id)
    first = await _open(http, token, accounts, opened)
    done = await complete_onboarding(http, project, token, first["intent"]["id"])
    assert done["intent"]["compliancePlan"]["status"] == "COMPLETED"
    return token, accounts


async def _auto_executed_intent(
    http: httpx.AsyncClient,
    token: str,
    accounts: tuple[str, str],
    opened: list[str],
    amount: str = "100.00",
) -> dict[str, Any]:
    envelope = await _open(http, token, accounts, opened, amount)
    assert envelope["frontendUrl"] is None
    assert envelope["intent"]["status"] == "PROCESSING"
    assert envelope["transaction"] is not None
    assert envelope["transaction"]["status"] == "PENDING"
    return envelope


async def _final_status(client: Client, intent_id: str) -> IntentStatus | None:
    """The finished workflow's outcome (it must have ended: time is not skipped here)."""
    handle = client.get_workflow_handle_for(IntentWorkflow.run, f"intent-{intent_id}")
    async with asyncio.timeout(10):
        outcome: IntentOutcome = await handle.result()
    assert (await handle.describe()).status is WorkflowExecutionStatus.COMPLETED
    return outcome.status


async def test_an_intent_waiting_for_onboarding_expires_after_its_lifetime(
    http: httpx.AsyncClient,
    skipping_env: WorkflowEnvironment,
    skipping_client: Client,
    project: ProjectCredentials,
    opened: list[str],
) -> None:
    token, accounts = await _new_customer(http, project, "expiring-onboarding")
    created = await _open(http, token, accounts, opened)
    intent = created["intent"]
    intent_id = intent["id"]
    assert intent["status"] == "PENDING"
    assert created["frontendUrl"]
    assert created["workflowId"] == f"intent-{intent_id}"
    assert created["transaction"] is None
    assert _moment(intent["expiredAt"]) - _moment(intent["createdAt"]) == LIFETIME

    await skip_time(skipping_env, LIFETIME - timedelta(hours=1))
    # A step outcome goes through the workflow: once it shows, every timer due by
    # now has been handled, so PENDING here means the intent has not expired early.
    first = intent["compliancePlan"]["currentStepCode"]
    accepted = await step_outcome(http, project, intent_id, first, "VERIFIED")
    assert accepted.status_code == 202, accepted.text
    before = await wait_for_intent(
        http,
        token,
        intent_id,
        lambda body: body["intent"]["compliancePlan"]["currentStepCode"] != first,
    )
    assert before["intent"]["status"] == "PENDING"
    assert before["intent"]["failureReason"] is None
    handle = skipping_client.get_workflow_handle(created["workflowId"])
    assert (await handle.describe()).status is WorkflowExecutionStatus.RUNNING

    await skip_time(skipping_env, timedelta(hours=1, minutes=1))
    expired = await wait_for_intent(
        http, token, intent_id, lambda body: body["intent"]["status"] != "PENDING"
    )
    assert expired["intent"]["status"] == "EXPIRED"
    assert expired["intent"]["failureReason"] == "the intent expired"
    assert expired["transaction"] is None
    assert await _final_status(skipping_client, intent_id) is IntentStatus.EXPIRED

    # The plan is closed with the intent: onboarding cannot resume.
    step = expired["intent"]["compliancePlan"]["currentStepCode"]
    late = await step_outcome(http, project, intent_id, step, "VERIFIED")
    assert late.status_code == 409, late.text
    assert (await get_intent(http, token, intent_id))["intent"]["status"] == "EXPIRED"


async def test_an_unfunded_transaction_is_cancelled_when_its_intent_expires(
    http: httpx.AsyncClient,
    skipping_env: WorkflowEnvironment,
    skipping_client: Client,
    project: ProjectCredentials,
    opened: list[str],
    atlas: RecordingProvider,
) -> None:
    token, accounts = await _onboarded_customer(http, project, "expiring-transaction", opened)
    envelope = await _auto_executed_intent(http, token, accounts, opened)
    intent_id = envelope["intent"]["id"]

    await skip_time(skipping_env, LIFETIME + timedelta(minutes=1))
    expired = await wait_for_intent(
        http, token, intent_id, lambda body: body["intent"]["status"] != "PROCESSING"
    )
    assert expired["intent"]["status"] == "EXPIRED"
    assert expired["intent"]["failureReason"] == "the intent expired"
    transaction = expired["transaction"]
    assert transaction["id"] == envelope["transaction"]["id"]
    assert transaction["status"] == "CANCELLED"
    assert transaction["failureReason"] == "the intent expired before the deposit arrived"
    assert await _final_status(skipping_client, intent_id) is IntentStatus.EXPIRED
    # The provider's order was voided too: its deposit instructions no longer work.
    assert envelope["transaction"]["providerReference"] in atlas.voided

    # A deposit arriving after expiry is refused: the transaction is closed.
    late = await provider_event(http, project, transaction["id"], "DEPOSIT_RECEIVED")
    assert late.status_code == 409, late.text


async def test_an_intent_whose_deposit_arrived_does_not_expire(
    http: httpx.AsyncClient,
    skipping_env: WorkflowEnvironment,
    skipping_client: Client,
    project: ProjectCredentials,
    opened: list[str],
) -> None:
    token, accounts = await _onboarded_customer(http, project, "funded", opened)
    envelope = await _auto_executed_intent(http, token, accounts, opened)
    intent_id = envelope["intent"]["id"]
    transaction_id = envelope["transaction"]["id"]

    received = await provider_event(http, project, transaction_id, "DEPOSIT_RECEIVED")
    assert received.status_code == 202, received.text
    await wait_for_intent(
        http, token, intent_id, lambda body: body["transaction"]["status"] == "IN_PROGRESS"
    )

    await skip_time(skipping_env, LIFETIME + timedelta(hours=1))
    later = await get_intent(http, token, intent_id)
    assert later["intent"]["status"] == "PROCESSING"
    assert later["intent"]["failureReason"] is None
    assert later["transaction"]["status"] == "IN_PROGRESS"
    handle = skipping_client.get_workflow_handle(f"intent-{intent_id}")
    assert (await handle.describe()).status is WorkflowExecutionStatus.RUNNING

    # Had the workflow expired the intent, the settlement would not apply.
    settled = await provider_event(http, project, transaction_id, "SETTLED")
    assert settled.status_code == 202, settled.text
    done = await wait_for_intent(
        http, token, intent_id, lambda body: body["intent"]["status"] != "PROCESSING"
    )
    assert done["intent"]["status"] == "COMPLETED"
    assert done["intent"]["failureReason"] is None
    assert done["transaction"]["status"] == "SUCCESS"
    assert await _final_status(skipping_client, intent_id) is IntentStatus.COMPLETED


async def test_an_order_the_provider_cannot_void_keeps_its_intent_open(
    http: httpx.AsyncClient,
    skipping_env: WorkflowEnvironment,
    skipping_client: Client,
    project: ProjectCredentials,
    opened: list[str],
    atlas: RecordingProvider,
) -> None:
    token, accounts = await _onboarded_customer(http, project, "funded-at-provider", opened)
    envelope = await _auto_executed_intent(http, token, accounts, opened, FUNDED_AT_PROVIDER)
    intent_id = envelope["intent"]["id"]

    await skip_time(skipping_env, LIFETIME + timedelta(minutes=1))
    reference = envelope["transaction"]["providerReference"]
    # Expiry asked the provider to void the order, and the provider said no.
    await asyncio.wait_for(atlas.refusal.wait(), timeout=10)
    assert atlas.refused == [reference]
    still = await get_intent(http, token, intent_id)
    assert still["intent"]["status"] == "PROCESSING"
    assert still["transaction"]["status"] == "PENDING"
    # The provider holds the money, so the intent waits for its deposit event.
    late = await provider_event(http, project, envelope["transaction"]["id"], "DEPOSIT_RECEIVED")
    assert late.status_code == 202, late.text
    moving = await wait_for_intent(
        http, token, intent_id, lambda body: body["transaction"]["status"] != "PENDING"
    )
    assert moving["transaction"]["status"] == "IN_PROGRESS"
    assert moving["intent"]["status"] == "PROCESSING"
    assert reference not in atlas.voided


async def _orphan(
    http: httpx.AsyncClient,
    client: Client,
    project: ProjectCredentials,
    external_id: str,
    key: str,
    opened: list[str],
    task_queue: str,
) -> tuple[str, tuple[str, str], str, WorkflowHandle[Any, Any]]:
    """What a server restart can leave: an onboarded customer's intent workflow started
    by update-with-start whose `open` update was lost. Returns (token, accounts, intent
    id, handle)."""
    customer = await make_customer(http, project, external_id)
    token: str = customer["access_token"]
    accounts = await register_accounts(http, token)
    first_intent = await _open(http, token, accounts, opened)
    await complete_onboarding(http, project, token, first_intent["intent"]["id"])
    body = {
        "srcExternalAccountId": accounts[0],
        "destExternalAccountId": accounts[1],
        "amount": "100.00",
    }
    intent_id = intent_id_for_key(customer["id"], key)
    opened.append(intent_id)
    handle = await client.start_workflow(
        IntentWorkflow.run,
        IntentRequest(
            intent_id=intent_id,
            project_id=project.project_id,
            customer_id=customer["id"],
            src_account_id=accounts[0],
            dest_account_id=accounts[1],
            amount=body["amount"],
            lifetime_seconds=int(LIFETIME.total_seconds()),
            fingerprint=body_fingerprint(
                IntentOrder(
                    body["srcExternalAccountId"], body["destExternalAccountId"], body["amount"]
                )
            ),
        ),
        id=workflow_id(intent_id),
        task_queue=task_queue,
    )
    return token, accounts, intent_id, handle


async def _memo_flag(handle: WorkflowHandle[Any, Any], key: str) -> object:
    """The memo's `key` once set. The projection is written by local activities inside
    the workflow task whose completion carries the memo's upsert, so on a loaded machine
    the API can show the intent opened before Temporal holds the memo."""
    async with asyncio.timeout(30):
        while True:
            described = await handle.describe()
            with contextlib.suppress(KeyError):
                return await described.memo_value(key)
            await asyncio.sleep(0.1)


async def test_an_intent_whose_open_update_was_lost_is_opened_by_its_workflow(
    http: httpx.AsyncClient,
    skipping_env: WorkflowEnvironment,
    skipping_client: Client,
    project: ProjectCredentials,
    opened: list[str],
    migrated: Settings,
) -> None:
    """Nobody retries: within OPEN_UPDATE_WAIT the workflow opens the intent itself; a
    provider event that came before waits for it instead of being dropped."""
    key = "lost-open-nobody-retries"
    token, accounts, intent_id, handle = await _orphan(
        http, skipping_client, project, "lost-open", key, opened, migrated.task_queue
    )
    await handle.signal(
        IntentWorkflow.report_provider_event,
        ProviderEvent(
            event_id="early-deposit",
            transaction_id=derived_id(intent_id, "transaction"),
            type=ProviderEventType.DEPOSIT_RECEIVED,
        ),
    )
    await skip_time(skipping_env, OPEN_UPDATE_WAIT + timedelta(seconds=1))
    repaired = await wait_for_intent(
        http,
        token,
        intent_id,
        lambda envelope: (envelope["transaction"] or {}).get("status") == "IN_PROGRESS",
    )
    assert repaired["intent"]["status"] == "PROCESSING"
    assert await _memo_flag(handle, "openedWithoutUpdate") is True

    # The first call that asks for it is answered as its creator; the next, a replay.
    first = await create_intent(http, token, accounts, headers={"Idempotency-Key": key})
    assert first.status_code == 201, first.text
    assert first.json()["intent"]["id"] == intent_id
    assert "Idempotent-Replayed" not in first.headers
    second = await create_intent(http, token, accounts, headers={"Idempotency-Key": key})
    assert second.headers["Idempotent-Replayed"] == "true"
    assert second.json()["transaction"]["status"] == "IN_PROGRESS"


async def test_a_retry_after_a_repaired_intent_finished_does_not_start_it_again(
    http: httpx.AsyncClient,
    skipping_env: WorkflowEnvironment,
    skipping_client: Client,
    project: ProjectCredentials,
    opened: list[str],
    migrated: Settings,
) -> None:
    """The workflow opened the intent itself and it ended, with no `open` update in its
    history: a retry must answer from the final intent, not start a new workflow run."""
    key = "lost-open-finished"
    token, accounts, intent_id, handle = await _orphan(
        http,
        skipping_client,
        project,
        "lost-open-finished",
        key,
        opened,
        migrated.task_queue,
    )
    await skip_time(skipping_env, OPEN_UPDATE_WAIT + timedelta(seconds=1))
    envelope = await wait_for_intent(
        http, token, intent_id, lambda body: body["transaction"] is not None
    )
    transaction_id = envelope["transaction"]["id"]
    for event, status in (("DEPOSIT_RECEIVED", "IN_PROGRESS"), ("SETTLED", "SUCCESS")):
        accepted = await provider_event(http, project, transaction_id, event)
        assert accepted.status_code == 202, accepted.text
        await wait_for_intent(
            http,
            token,
            intent_id,
            lambda body, status=status: body["transaction"]["status"] == status,  # type: ignore[misc]
        )
    assert await _final_status(skipping_client, intent_id) is IntentStatus.COMPLETED
    ended = await handle.describe()

    retried = await create_intent(http, token, accounts, headers={"Idempotency-Key": key})
    assert retried.status_code == 201, retried.text
    assert retried.headers["Idempotent-Replayed"] == "true"
    assert retried.json()["intent"]["status"] == "COMPLETED"
    now = await skipping_client.get_workflow_handle(workflow_id(intent_id)).describe()
    assert (now.run_id, now.status) == (ended.run_id, WorkflowExecutionStatus.COMPLETED)
