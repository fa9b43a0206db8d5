"""Records the IntentWorkflow histories that tests/test_replay.py replays.

    .venv/bin/python -m tests.histories.record                # every path not yet recorded
    .venv/bin/python -m tests.histories.record expired        # just these paths
    .venv/bin/python -m tests.histories.record --overwrite X  # replace a recorded history

Each path drives one intent through the real HTTP API (in-process), a real worker
(in-process) and a Temporal dev server the script starts, with a temporary SQLite
database; the finished workflow's history goes to `tests/histories/intent_<path>.json`.
`expired` runs on the time-skipping test server instead, so its 24-hour lifetime passes
in milliseconds.

The recorded files stand for workflows already running in production: existing ones
are never replaced unless `--overwrite` is given (see tests/test_replay.py for when
that is acceptable). Before writing, every new history is replayed once against the
current code, so a history that cannot replay is never saved, and the state that replay
computes is saved beside it (`states/`, see tests/histories/snapshots.py).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import traceback
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
from asgi_lifespan import LifespanManager
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client, WorkflowHandle, WorkflowHistory
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.testing import WorkflowEnvironment

from api.app import create_app
from devstack.temporal_server import ensure_search_attributes
from ramp.catalog.models import provider_id
from ramp.config import Settings
from ramp.db.engine import create_engine, session_factory
from ramp.db.migrate import upgrade
from ramp.intents.lifecycle import derived_id, workflow_id
from ramp.intents.models import IntentOutcome, IntentRequest, ProviderEvent
from ramp.intents.service import IntentOrder, body_fingerprint, intent_id_for_key
from ramp.intents.states import IntentStatus, ProviderEventType
from ramp.security.encryption import SecretBox
from ramp.security.keys import generated_keys
from ramp.temporal import TASK_QUEUE
from tests.helpers.onboarding import TERMS, kyc_basic, onboarding_token, source_of_funds
from tests.helpers.payments import (
    complete_onboarding,
    create_intent,
    get_intent,
    provider_event,
    register_accounts,
    step_outcome,
    step_status,
    wait_for_intent,
)
from tests.helpers.projects import ProjectCredentials, make_customer, make_project
from tests.helpers.servers import dev_server
from tests.histories.snapshots import replay, state_file, write_snapshot
from worker import build_worker
from workflows.intents import OPEN_UPDATE_WAIT, IntentWorkflow

HISTORIES = Path(__file__).resolve().parent
BIN = Path(sys.executable).parent
# Sandbox paths recorded again after ONE_PROVIDER_PATH (issue 25), as `one_path_<path>`:
# the same scenarios through the provider path (workflows/provider_flow.py), while the
# files without the prefix keep guarding the sandbox path of intents from before.
ONE_PATH_DEV_SERVER = (
    "autocomplete",
    "onboarding",
    "auto_execute",
    "hosted_onboarding",
    "cancelled",
    "cancelled_unfunded",
)
ONE_PATH_TIME_SKIPPING = ("expired", "expired_unfunded")
# Recorded on the dev server, in this order; `expired` needs the time-skipping server.
DEV_SERVER_PATHS = (
    "autocomplete",
    "onboarding",
    "auto_execute",
    "rejected",
    "refused",
    "hosted_onboarding",
    "autocomplete_replayed",
    "refused_marked",
    "cancelled",
    "cancelled_unfunded",
    "cancelled_deposit_late",
    *(f"one_path_{path}" for path in ONE_PATH_DEV_SERVER),
    # Issue 26 (patch route-failover): Atlas refuses transfers, the intent moves to Beacon.
    "failover",
    # Issue 29: a sandbox intent's clock moved (events-sandbox-clock).
    "clock_expired",
    # Issue 26, several accounts per provider (patch accounts-failover-by-account): the
    # failover path again, its failover excluding accounts, not providers.
    "accounts_failover",
    # Issue 30 (patch lookup-one-activity): the two lookups as one local activity, at
    # the opening and in a failover.
    "lookup_autocomplete",
    "lookup_failover",
)
TIME_SKIPPING_PATHS = (
    "expired",
    "expired_unfunded",
    "opened_late",
    *(f"one_path_{path}" for path in ONE_PATH_TIME_SKIPPING),
)
# Production intents through the Bridge connector: tests/histories/record_connector.py.
CONNECTOR_PATHS = (
    "bridge_onramp",
    "bridge_expired",
    "bridge_event_outruns_order",
    "bridge_outage_paused",
)
# Through the Monerium connector: tests/histories/record_monerium.py.
MONERIUM_PATHS = ("monerium_declined_onramp",)
# An order failed on our side (patch internal-order-error-kept): record_internal.py.
INTERNAL_ERROR_PATHS = ("order_internal_error",)
PATHS = (
    DEV_SERVER_PATHS + TIME_SKIPPING_PATHS + CONNECTOR_PATHS + MONERIUM_PATHS + INTERNAL_ERROR_PATHS
)
# Longer than any intent lifetime the API sets by default (24 hours).
_PAST_EXPIRY = timedelta(hours=25)
_WORKFLOW_TIMEOUT = 30.0
Envelope = dict[str, Any]


def history_file(path: str) -> Path:
    return HISTORIES / f"intent_{path}.json"


@dataclass(frozen=True)
class Stack:
    """One server's worth of service: API client, Temporal client and a project."""

    http: httpx.AsyncClient
    temporal: Client
    project: ProjectCredentials

    async def customer(self, external_id: str) -> tuple[str, str]:
        """A new customer of the project: (customer id, access token)."""
        body = await make_customer(self.http, self.project, external_id)
        return str(body["id"]), str(body["access_token"])

    def handle(self, intent_id: str) -> WorkflowHandle[IntentWorkflow, IntentOutcome]:
        return self.temporal.get_workflow_handle_for(IntentWorkflow.run, workflow_id(intent_id))


@dataclass(frozen=True)
class Recorded:
    """What a path leaves behind: its workflow and the status it must end with."""

    intent_id: str
    status: IntentStatus | None
    # False: the workflow is expected to stay open, and its history so far is recorded.
    completes: bool = True


async def _new_intent(
    stack: Stack, token: str, accounts: tuple[str, str], **fields: Any
) -> Envelope:
    response = await create_intent(stack.http, token, accounts, **fields)
    assert response.status_code == 201, response.text
    body: Envelope = response.json()
    return body


async def _event(
    stack: Stack,
    token: str,
    envelope: Envelope,
    event: str,
    reason: str | None = None,
) -> Envelope:
    """Reports a provider event and waits until the projection shows its effect."""
    intent = envelope["intent"]
    transaction = envelope["transaction"]
    assert transaction is not None, envelope
    response = await provider_event(
        stack.http, stack.project, transaction["id"], event, reason=reason
    )
    assert response.status_code == 202, response.text
    # Every applied event moves updatedAt on (milliseconds, and each round trip is longer).
    return await wait_for_intent(
        stack.http,
        token,
        intent["id"],
        lambda body: body["intent"]["updatedAt"] != intent["updatedAt"],
    )


async def _step(
    stack: Stack, token: str, intent_id: str, code: str, outcome: str, reason: str | None = None
) -> Envelope:
    """Reports a step outcome and waits until the projection shows it."""
    target = {"SUBMITTED": "SUBMITTED", "VERIFIED": "COMPLETED", "REJECTED": "REJECTED"}[outcome]
    response = await step_outcome(stack.http, stack.project, intent_id, code, outcome, reason)
    assert response.status_code == 202, response.text
    return await wait_for_intent(
        stack.http, token, intent_id, lambda body: step_status(body, code) == target
    )


def _current_step(envelope: Envelope) -> str:
    code = envelope["intent"]["compliancePlan"]["currentStepCode"]
    assert isinstance(code, str), envelope
    return code


async def record_autocomplete(stack: Stack) -> Recorded:
    """A returning customer: the transaction comes with the intent; it settles."""
    _, token = await stack.customer("replay-autocomplete")
    accounts = await register_accounts(stack.http, token)
    # Onboarding once puts every requirement on record. This first intent stays
    # PENDING (no transaction); its workflow is not recorded.
    first = await _new_intent(stack, token, accounts)
    await complete_onboarding(stack.http, stack.project, token, first["intent"]["id"])

    envelope = await _new_intent(stack, token, accounts)
    assert envelope["intent"]["status"] == "PROCESSING", envelope
    assert envelope["transaction"] is not None, envelope
    envelope = await _event(stack, token, envelope, "DEPOSIT_RECEIVED")
    envelope = await _event(stack, token, envelope, "PAYOUT_SENT")
    envelope = await _event(stack, token, envelope, "SETTLED")
    assert envelope["intent"]["status"] == "COMPLETED", envelope
    return Recorded(envelope["intent"]["id"], IntentStatus.COMPLETED)


async def record_onboarding(stack: Stack) -> Recorded:
    """First intent: every step verified, then POST /intent/{id}/transaction; it fails."""
    _, token = await stack.customer("replay-onboarding")
    accounts = await register_accounts(stack.http, token)
    envelope = await _new_intent(stack, token, accounts, autoExecute=False)
    intent_id = envelope["intent"]["id"]
    assert envelope["intent"]["compliancePlan"]["currentStepCode"] is not None, envelope
    envelope = await complete_onboarding(stack.http, stack.project, token, intent_id)
    assert envelope["transaction"] is None, envelope

    response = await stack.http.post(
        f"/v1/intent/{intent_id}/transaction",
        json={},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert response.status_code == 201, response.text
    envelope = response.json()
    envelope = await _event(stack, token, envelope, "FAILED", reason="the deposit bounced")
    assert envelope["intent"]["status"] == "FAILED", envelope
    return Recorded(intent_id, IntentStatus.FAILED)


async def record_auto_execute(stack: Stack) -> Recorded:
    """First intent with autoExecute: the last verification creates the transaction."""
    _, token = await stack.customer("replay-auto-execute")
    accounts = await register_accounts(stack.http, token)
    envelope = await _new_intent(stack, token, accounts, autoExecute=True)
    intent_id = envelope["intent"]["id"]
    code = _current_step(envelope)
    await _step(stack, token, intent_id, code, "SUBMITTED")
    await _step(stack, token, intent_id, code, "VERIFIED")
    await complete_onboarding(stack.http, stack.project, token, intent_id)
    envelope = await wait_for_intent(
        stack.http, token, intent_id, lambda body: body["transaction"] is not None
    )
    envelope = await _event(stack, token, envelope, "DEPOSIT_RECEIVED")
    envelope = await _event(stack, token, envelope, "RETURNED", reason="beneficiary mismatch")
    assert envelope["intent"]["status"] == "FAILED", envelope
    return Recorded(intent_id, IntentStatus.FAILED)


async def record_failover(stack: Stack) -> Recorded:
    """Atlas refuses transfers for its own reasons (sandbox behaviour): the auto-execute
    intent's order fails there, it moves to Beacon, whose steps the customer completes
    on the same page; the order is placed there and settles."""
    atlas = provider_id("sandbox_atlas")
    behaviour = await stack.http.post(
        f"/v1/sandbox/providers/{atlas}/behaviour",
        json={"mode": "REFUSE_TRANSFERS"},
        headers=stack.project.basic,
    )
    assert behaviour.status_code == 200, behaviour.text
    _, token = await stack.customer("replay-failover")
    accounts = await register_accounts(stack.http, token)
    envelope = await _new_intent(stack, token, accounts, autoExecute=True)
    intent_id = envelope["intent"]["id"]
    for code in ("TERMS_OF_SERVICE", "KYC_BASIC", "SOURCE_OF_FUNDS"):
        response = await step_outcome(stack.http, stack.project, intent_id, code, "VERIFIED")
        assert response.status_code == 202, response.text
        await wait_for_intent(
            stack.http,
            token,
            intent_id,
            lambda body, code=code: (  # type: ignore[misc]
                body["intent"]["mmPlan"]["providerAccount"]["providerCode"] != "sandbox_atlas"
                or step_status(body, code) == "COMPLETED"
            ),
        )
    moved = await wait_for_intent(
        stack.http,
        token,
        intent_id,
        lambda body: (
            body["intent"]["mmPlan"]["providerAccount"]["providerCode"] == "sandbox_beacon"
        ),
    )
    assert moved["transaction"] is None, moved
    await complete_onboarding(stack.http, stack.project, token, intent_id)
    envelope = await wait_for_intent(
        stack.http, token, intent_id, lambda body: body["transaction"] is not None
    )
    for event in ("DEPOSIT_RECEIVED", "PAYOUT_SENT", "SETTLED"):
        envelope = await _event(stack, token, envelope, event)
    assert envelope["intent"]["status"] == "COMPLETED", envelope
    back = await stack.http.post(
        f"/v1/sandbox/providers/{atlas}/behaviour", json={"mode": "UP"}, headers=stack.project.basic
    )
    assert back.status_code == 200, back.text
    return Recorded(intent_id, IntentStatus.COMPLETED)


async def record_rejected(stack: Stack) -> Recorded:
    """First intent: the first step is rejected, which ends the intent."""
    _, token = await stack.customer("replay-rejected")
    accounts = await register_accounts(stack.http, token)
    envelope = await _new_intent(stack, token, accounts)
    intent_id = envelope["intent"]["id"]
    code = _current_step(envelope)
    envelope = await _step(stack, token, intent_id, code, "REJECTED", reason="document unreadable")
    assert envelope["intent"]["status"] == "FAILED", envelope
    return Recorded(intent_id, IntentStatus.FAILED)


async def record_refused(stack: Stack) -> Recorded:
    """POST /intent naming an ineligible provider: 400, and the workflow ends empty."""
    customer_id, token = await stack.customer("replay-refused")
    accounts = await register_accounts(stack.http, token)
    key = "replay-refused"
    # Meridian moves EUR over SEPA: it cannot serve this USD/ACH on-ramp.
    response = await create_intent(
        stack.http,
        token,
        accounts,
        headers={"Idempotency-Key": key},
        providerId=provider_id("sandbox_meridian"),
    )
    assert response.status_code == 400, response.text
    assert response.json()["code"] == "PROVIDER_NOT_ELIGIBLE", response.text
    # With an Idempotency-Key the API derives the intent id (api/intents.py).
    intent_id = intent_id_for_key(customer_id, key)
    # The workflow ends at once, with no intent.
    return Recorded(intent_id, None)


async def record_expired(stack: Stack, env: WorkflowEnvironment) -> Recorded:
    """First intent left alone: its lifetime runs out (time-skipping server)."""
    _, token = await stack.customer("replay-expired")
    accounts = await register_accounts(stack.http, token)
    envelope = await _new_intent(stack, token, accounts)
    intent_id = envelope["intent"]["id"]
    # A handle from update-with-start does not skip time by itself.
    await env.sleep(_PAST_EXPIRY)
    envelope = await wait_for_intent(
        stack.http, token, intent_id, lambda body: body["intent"]["status"] == "EXPIRED"
    )
    return Recorded(intent_id, IntentStatus.EXPIRED)


async def record_expired_unfunded(stack: Stack, env: WorkflowEnvironment) -> Recorded:
    """A returning customer's intent whose deposit never comes: expiry voids the order
    at the provider and cancels the transaction (time-skipping server)."""
    _, token = await stack.customer("replay-expired-unfunded")
    accounts = await register_accounts(stack.http, token)
    first = await _new_intent(stack, token, accounts)
    await complete_onboarding(stack.http, stack.project, token, first["intent"]["id"])
    envelope = await _new_intent(stack, token, accounts)
    assert envelope["transaction"] is not None, envelope
    intent_id = envelope["intent"]["id"]
    await env.sleep(_PAST_EXPIRY)
    await wait_for_intent(
        stack.http, token, intent_id, lambda body: body["intent"]["status"] == "EXPIRED"
    )
    return Recorded(intent_id, IntentStatus.EXPIRED)


async def record_hosted_onboarding(stack: Stack) -> Recorded:
    """First intent with autoExecute, onboarded through the hosted page's API: terms
    verified, identity under review then verified by the reviewer, source of funds
    verified (the transaction follows); the deposit arrives and settles."""
    _, token = await stack.customer("replay-hosted-onboarding")
    accounts = await register_accounts(stack.http, token)
    envelope = await _new_intent(stack, token, accounts, autoExecute=True)
    intent_id = envelope["intent"]["id"]
    link = onboarding_token(envelope)

    async def submit(code: str, body: dict[str, Any]) -> Envelope:
        response = await stack.http.post(
            f"/v1/onboarding/{intent_id}/steps/{code}",
            json=body,
            headers={"Authorization": f"Bearer {link}"},
        )
        assert response.status_code == 200, response.text
        view: Envelope = response.json()
        return view

    await submit("TERMS_OF_SERVICE", TERMS)
    await submit("KYC_BASIC", kyc_basic(last_name="Review"))
    await _step(stack, token, intent_id, "KYC_BASIC", "VERIFIED")
    view = await submit("SOURCE_OF_FUNDS", source_of_funds())
    assert view["transaction"] is not None, view
    envelope = await get_intent(stack.http, token, intent_id)
    envelope = await _event(stack, token, envelope, "DEPOSIT_RECEIVED")
    envelope = await _event(stack, token, envelope, "SETTLED")
    assert envelope["intent"]["status"] == "COMPLETED", envelope
    return Recorded(intent_id, IntentStatus.COMPLETED)


def _settings(data_dir: Path, temporal_address: str) -> Settings:
    keys: dict[str, Any] = generated_keys()
    return Settings(
        RAMP_ENV="sandbox",
        RAMP_DATA_DIR=str(data_dir),
        DATABASE_URL=f"sqlite:///{data_dir / 'ramp.db'}",
        TEMPORAL_ADDRESS=temporal_address,
        RAMP_PUBLIC_URL="http://testserver",
        **keys,
    )


@asynccontextmanager
async def running_stack(env: WorkflowEnvironment, data_dir: Path) -> AsyncIterator[Stack]:
    """A migrated database, a project, the worker and the API, against `env`."""
    settings = _settings(data_dir, env.client.service_client.config.target_host)
    upgrade(settings)
    engine = create_engine(settings)
    try:
        sessions = session_factory(engine)
        async with sessions() as db:
            project = await make_project(db, settings, name="Replay histories")
        client = Client(
            env.client.service_client, namespace="default", data_converter=pydantic_data_converter
        )
        app = create_app(settings)
        async with (
            build_worker(client, sessions, SecretBox.from_settings(settings)),
            LifespanManager(app) as manager,
            httpx.AsyncClient(
                transport=httpx.ASGITransport(app=manager.app, raise_app_exceptions=False),
                base_url="http://testserver",
            ) as http,
        ):
            yield Stack(http=http, temporal=client, project=project)
    finally:
        await engine.dispose()


async def _save(stack: Stack, path: str, recorded: Recorded) -> None:
    """Waits for the workflow to end, checks its outcome, replays and writes its history."""
    handle = stack.handle(recorded.intent_id)
    if recorded.completes:
        async with asyncio.timeout(_WORKFLOW_TIMEOUT):
            outcome = await handle.result()
        assert outcome.intent_id == recorded.intent_id, outcome
        assert outcome.status == recorded.status, (path, outcome)
        history = await handle.fetch_history()
    else:
        history = await _settled_history(handle)
        status = (await handle.describe()).status
        print(f"{path}: the workflow is {status.name if status else None}, recorded as it stands")
    # Replayed before writing: a history that cannot replay is never saved. The state the
    # replay computes is stored beside it (tests/histories/snapshots.py).
    replayed = await replay(history, IntentWorkflow)
    target = history_file(path)
    target.write_text(history.to_json() + "\n")
    write_snapshot(state_file(target), replayed)
    print(f"{path}: {_shown(target)} ({target.stat().st_size} bytes)")


_TASK_IN_FLIGHT = frozenset(
    {EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED, EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED}
)


async def _settled_history(handle: WorkflowHandle[Any, Any]) -> WorkflowHistory:
    """The history of an open workflow once every update it received has completed."""
    async with asyncio.timeout(_WORKFLOW_TIMEOUT):
        while True:
            history = await handle.fetch_history()
            types = [event.event_type for event in history.events]
            accepted = types.count(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED)
            completed = types.count(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_COMPLETED)
            if accepted and accepted == completed and types[-1] not in _TASK_IN_FLIGHT:
                return history
            await asyncio.sleep(0.05)


async def record_autocomplete_replayed(stack: Stack) -> Recorded:
    """A returning customer sends the same POST /intent three times at once (one
    Idempotency-Key): one creates it, two are replays; it settles."""
    _, token = await stack.customer("replay-autocomplete-replayed")
    accounts = await register_accounts(stack.http, token)
    first = await _new_intent(stack, token, accounts)
    await complete_onboarding(stack.http, stack.project, token, first["intent"]["id"])
    key = {"Idempotency-Key": "replay-autocomplete-replayed"}
    answers = await asyncio.gather(
        *(create_intent(stack.http, token, accounts, headers=key) for _ in range(3))
    )
    assert [a.status_code for a in answers] == [201] * 3, [a.text for a in answers]
    replayed = sorted(str(a.headers.get("Idempotent-Replayed")) for a in answers)
    assert replayed == ["None", "true", "true"], replayed
    envelope: Envelope = answers[0].json()
    envelope = await _event(stack, token, envelope, "DEPOSIT_RECEIVED")
    envelope = await _event(stack, token, envelope, "SETTLED")
    assert envelope["intent"]["status"] == "COMPLETED", envelope
    return Recorded(envelope["intent"]["id"], IntentStatus.COMPLETED)


async def record_refused_marked(stack: Stack) -> Recorded:
    """POST /intent with no eligible provider: 400; the workflow ends marked REFUSED."""
    customer_id, token = await stack.customer("replay-refused-marked")
    accounts = await register_accounts(stack.http, token)
    key = "replay-refused-marked"
    response = await create_intent(
        stack.http,
        token,
        accounts,
        headers={"Idempotency-Key": key},
        providerId=provider_id("sandbox_meridian"),
    )
    assert response.status_code == 400, response.text
    intent_id = intent_id_for_key(customer_id, key)
    description = await stack.handle(intent_id).describe()
    assert await description.memo_value("refused"), description
    return Recorded(intent_id, None)


async def record_opened_late(stack: Stack, env: WorkflowEnvironment) -> Recorded:
    """The `open` update never arrives (lost in a server restart): a provider event
    waits, the workflow opens the intent itself after OPEN_UPDATE_WAIT, a retry of
    POST /intent gets it; it settles (time-skipping server)."""
    customer_id, token = await stack.customer("replay-opened-late")
    accounts = await register_accounts(stack.http, token)
    first = await _new_intent(stack, token, accounts)
    await complete_onboarding(stack.http, stack.project, token, first["intent"]["id"])
    body = {
        "srcExternalAccountId": accounts[0],
        "destExternalAccountId": accounts[1],
        "amount": "100.00",
    }
    key = "replay-opened-late"
    intent_id = intent_id_for_key(customer_id, key)
    handle = await stack.temporal.start_workflow(
        IntentWorkflow.run,
        IntentRequest(
            intent_id=intent_id,
            project_id=stack.project.project_id,
            customer_id=customer_id,
            src_account_id=accounts[0],
            dest_account_id=accounts[1],
            amount=body["amount"],
            lifetime_seconds=86400,
            fingerprint=body_fingerprint(
                IntentOrder(
                    body["srcExternalAccountId"], body["destExternalAccountId"], body["amount"]
                )
            ),
        ),
        id=workflow_id(intent_id),
        task_queue=TASK_QUEUE,
    )
    await handle.signal(
        IntentWorkflow.report_provider_event,
        ProviderEvent(
            event_id="replay-early-deposit",
            transaction_id=derived_id(intent_id, "transaction"),
            type=ProviderEventType.DEPOSIT_RECEIVED,
        ),
    )
    await env.sleep(OPEN_UPDATE_WAIT + timedelta(seconds=1))
    envelope = await wait_for_intent(
        stack.http,
        token,
        intent_id,
        lambda view: (view["transaction"] or {}).get("status") == "IN_PROGRESS",
    )
    retried = await create_intent(stack.http, token, accounts, headers={"Idempotency-Key": key})
    assert retried.status_code == 201, retried.text
    envelope = await _event(stack, token, envelope, "SETTLED")
    assert envelope["intent"]["status"] == "COMPLETED", envelope
    return Recorded(intent_id, IntentStatus.COMPLETED)


async def record_cancelled(stack: Stack) -> Recorded:
    """A returning customer cancels before paying (POST /intent/{id}/cancel): the
    provider voids the order; the intent and its transaction end CANCELLED."""
    _, token = await stack.customer("replay-cancelled")
    accounts = await register_accounts(stack.http, token)
    first = await _new_intent(stack, token, accounts)
    await complete_onboarding(stack.http, stack.project, token, first["intent"]["id"])
    envelope = await _new_intent(stack, token, accounts)
    assert envelope["transaction"] is not None, envelope
    intent_id = envelope["intent"]["id"]
    response = await stack.http.post(
        f"/v1/intent/{intent_id}/cancel", headers={"Authorization": f"Bearer {token}"}
    )
    assert response.status_code == 200, response.text
    assert response.json()["intent"]["status"] == "CANCELLED", response.text
    assert response.json()["transaction"]["status"] == "CANCELLED", response.text
    return Recorded(intent_id, IntentStatus.CANCELLED)


async def record_cancelled_unfunded(stack: Stack) -> Recorded:
    """A new customer cancels during onboarding: no transaction, no provider call."""
    _, token = await stack.customer("replay-cancelled-unfunded")
    accounts = await register_accounts(stack.http, token)
    envelope = await _new_intent(stack, token, accounts)
    assert envelope["transaction"] is None, envelope
    intent_id = envelope["intent"]["id"]
    response = await stack.http.post(
        f"/v1/intent/{intent_id}/cancel", headers={"Authorization": f"Bearer {token}"}
    )
    assert response.status_code == 200, response.text
    assert response.json()["intent"]["status"] == "CANCELLED", response.text
    return Recorded(intent_id, IntentStatus.CANCELLED)


async def record_cancelled_deposit_late(stack: Stack) -> Recorded:
    """A cancel answered, then the sandbox provider's deposit event arrives while the
    workflow closes (CLOSE_APART): ignored, the intent stays CANCELLED (issue 23)."""
    _, token = await stack.customer("replay-cancelled-deposit-late")
    accounts = await register_accounts(stack.http, token)
    first = await _new_intent(stack, token, accounts)
    await complete_onboarding(stack.http, stack.project, token, first["intent"]["id"])
    envelope = await _new_intent(stack, token, accounts)
    assert envelope["transaction"] is not None, envelope
    intent_id = envelope["intent"]["id"]
    response = await stack.http.post(
        f"/v1/intent/{intent_id}/cancel", headers={"Authorization": f"Bearer {token}"}
    )
    assert response.status_code == 200, response.text
    # As the sandbox's endpoint signals when it read the projection before the cancel.
    await stack.handle(intent_id).signal(
        IntentWorkflow.report_provider_event,
        ProviderEvent(
            event_id="replay-late-deposit",
            transaction_id=envelope["transaction"]["id"],
            type=ProviderEventType.DEPOSIT_RECEIVED,
        ),
    )
    return Recorded(intent_id, IntentStatus.CANCELLED)


async def record_clock_expired(stack: Stack) -> Recorded:
    """A returning customer's intent whose clock a sandbox project moves: an hour (the
    transfer poll comes due and is made), then a day (it expires, its order voided)."""
    _, token = await stack.customer("replay-clock-expired")
    accounts = await register_accounts(stack.http, token)
    first = await _new_intent(stack, token, accounts)
    await complete_onboarding(stack.http, stack.project, token, first["intent"]["id"])
    envelope = await _new_intent(stack, token, accounts)
    assert envelope["transaction"] is not None, envelope
    intent_id = envelope["intent"]["id"]
    for seconds in (3600, 24 * 3600):
        response = await stack.http.post(
            f"/v1/sandbox/intents/{intent_id}/advance",
            json={"seconds": seconds},
            headers=stack.project.basic,
        )
        assert response.status_code == 200, response.text
    envelope = await wait_for_intent(
        stack.http, token, intent_id, lambda body: body["intent"]["status"] == "EXPIRED"
    )
    assert envelope["transaction"]["status"] == "CANCELLED", envelope
    return Recorded(intent_id, IntentStatus.EXPIRED)


_DEV_SERVER_RECORDERS: dict[str, Callable[[Stack], Awaitable[Recorded]]] = {
    "autocomplete": record_autocomplete,
    "onboarding": record_onboarding,
    "auto_execute": record_auto_execute,
    "rejected": record_rejected,
    "refused": record_refused,
    "hosted_onboarding": record_hosted_onboarding,
    "autocomplete_replayed": record_autocomplete_replayed,
    "refused_marked": record_refused_marked,
    "cancelled": record_cancelled,
    "cancelled_unfunded": record_cancelled_unfunded,
    "cancelled_deposit_late": record_cancelled_deposit_late,
    "failover": record_failover,
    "clock_expired": record_clock_expired,
    "accounts_failover": record_failover,
    "lookup_autocomplete": record_autocomplete,
    "lookup_failover": record_failover,
}
_DEV_SERVER_RECORDERS |= {
    f"one_path_{path}": _DEV_SERVER_RECORDERS[path] for path in ONE_PATH_DEV_SERVER
}


_TIME_SKIPPING_RECORDERS = {
    "expired": record_expired,
    "expired_unfunded": record_expired_unfunded,
    "opened_late": record_opened_late,
}
_TIME_SKIPPING_RECORDERS |= {
    f"one_path_{path}": _TIME_SKIPPING_RECORDERS[path] for path in ONE_PATH_TIME_SKIPPING
}


async def record(paths: Sequence[str]) -> None:
    on_dev_server = [p for p in DEV_SERVER_PATHS if p in paths]
    with tempfile.TemporaryDirectory(prefix="ramp-histories-") as tmp:
        if on_dev_server:
            async with (
                dev_server() as env,
                running_stack(env, Path(tmp) / "dev") as stack,
            ):
                for path in on_dev_server:
                    await _save(stack, path, await _DEV_SERVER_RECORDERS[path](stack))
        on_time_skipping = [p for p in TIME_SKIPPING_PATHS if p in paths]
        if on_time_skipping:
            async with await WorkflowEnvironment.start_time_skipping(
                test_server_existing_path=str(BIN / "temporal-test-server")
            ) as env:
                # Unknown search attributes would fail the workflow task forever there.
                await ensure_search_attributes(env.client, "default")
                async with running_stack(env, Path(tmp) / "time-skipping") as stack:
                    for path in on_time_skipping:
                        recorder = _TIME_SKIPPING_RECORDERS[path]
                        await _save(stack, path, await recorder(stack, env))


def _parse(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m tests.histories.record", description=__doc__.splitlines()[0]
    )
    parser.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help=f"paths to record ({', '.join(PATHS)}); default: those without a file",
    )
    parser.add_argument(
        "--overwrite",
        action="store_true",
        help="replace existing histories (breaks the guard for running workflows)",
    )
    args = parser.parse_args(argv)
    unknown = [p for p in args.paths if p not in PATHS]
    if unknown:
        parser.error(f"unknown path(s) {', '.join(unknown)}; choose from {', '.join(PATHS)}")
    return args


def _shown(file: Path) -> str:
    try:
        return str(file.relative_to(Path.cwd()))
    except ValueError:
        return str(file)


def main(argv: Sequence[str]) -> int:
    args = _parse(argv)
    named: list[str] = list(dict.fromkeys(args.paths))
    if named:
        existing = [p for p in named if history_file(p).exists()]
        if existing and not args.overwrite:
            print(
                "refusing to overwrite recorded histories (they guard running workflows): "
                + ", ".join(_shown(history_file(p)) for p in existing)
                + "\nrecord new paths only, or pass --overwrite if you really mean it",
                file=sys.stderr,
            )
            return 2
        paths = named
    elif args.overwrite:
        paths = list(PATHS)
    else:
        paths = [p for p in PATHS if not history_file(p).exists()]
        skipped = [p for p in PATHS if p not in paths]
        if skipped:
            print(f"already recorded, kept: {', '.join(skipped)}")
        if not paths:
            print("nothing to record")
            return 0
    asyncio.run(record(paths))
    return 0


if __name__ == "__main__":
    try:
        status = main(sys.argv[1:])
    except SystemExit as exit_:  # argparse
        status = exit_.code if isinstance(exit_.code, int) else 1
    except BaseException:
        traceback.print_exc()
        status = 1
    # The Temporal SDK's native threads can abort interpreter finalisation (exit 134,
    # sdk-python issue 300): leave with our own status before that can happen.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)
