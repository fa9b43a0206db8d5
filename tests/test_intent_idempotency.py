"""Retries of POST /intent: which answer is a replay, a lost `open` update, a refusal's
trace in the logs, and a 503 that tells how to retry safely.

Through HTTP, the session's real Temporal dev server and worker, and the database.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import httpx
import pytest
from sqlmodel.ext.asyncio.session import AsyncSession
from temporalio.client import Client, WorkflowExecutionStatus

from api.app import create_app
from ramp.config import Settings
from ramp.db.tables import IntentRow
from ramp.intents.lifecycle import workflow_id
from ramp.intents.models import IntentRequest
from ramp.intents.service import intent_id_for_key
from tests.helpers.payments import (
    ACH,
    BTC_ADDRESS,
    WIRE,
    bank,
    create_intent,
    get_intent,
    register_accounts,
    step_outcome,
    step_status,
    wait_for_intent,
    wallet,
)
from tests.helpers.projects import ProjectCredentials
from tests.helpers.servers import derive_settings, serve
from workflows.intents import IntentWorkflow

pytestmark = pytest.mark.usefixtures("worker")


def attributes(description: Any) -> dict[str, Any]:
    return {
        pair.key.name: pair.value for pair in description.typed_search_attributes.search_attributes
    }


async def test_of_concurrent_identical_requests_only_the_creator_is_not_a_replay(
    client: httpx.AsyncClient, customer: dict[str, Any]
) -> None:
    token = customer["access_token"]
    accounts = await register_accounts(client, token)
    keys = ["burst-a", "burst-b", "burst-c"]
    answers = await asyncio.gather(
        *(
            create_intent(client, token, accounts, headers={"Idempotency-Key": key})
            for key in keys
            for _ in range(8)
        )
    )
    for n, key in enumerate(keys):
        mine = answers[n * 8 : n * 8 + 8]
        assert [answer.status_code for answer in mine] == [201] * 8, [a.text for a in mine]
        assert {answer.json()["intent"]["id"] for answer in mine} == {
            intent_id_for_key(customer["id"], key)
        }
        replayed = [answer.headers.get("Idempotent-Replayed") for answer in mine]
        assert sorted(replayed, key=str) == [None] + ["true"] * 7, key
    # A later retry is a replay too.
    again = await create_intent(client, token, accounts, headers={"Idempotency-Key": keys[0]})
    assert again.status_code == 201
    assert again.headers["Idempotent-Replayed"] == "true"


async def test_a_replay_delivers_an_open_update_the_server_lost(
    client: httpx.AsyncClient,
    project: ProjectCredentials,
    customer: dict[str, Any],
    temporal_client: Client,
    db: AsyncSession,
    migrated: Settings,
) -> None:
    """The state a server restart leaves behind: rows written by an `open` that was never
    accepted, and a running workflow of that id without state. A retry with the key must
    send the update again, so the workflow holds the intent and applies outcomes."""
    token = customer["access_token"]
    accounts = await register_accounts(client, token)
    key = {"Idempotency-Key": "lost-open"}
    first = await create_intent(client, token, accounts, headers=key)
    assert first.status_code == 201, first.text
    intent_id = first.json()["intent"]["id"]
    row = await db.get(IntentRow, intent_id)
    assert row is not None
    # The same workflow id, started as update-with-start starts it, but its update lost.
    await temporal_client.get_workflow_handle(workflow_id(intent_id)).terminate("test")
    orphan = await temporal_client.start_workflow(
        IntentWorkflow.run,
        IntentRequest(
            intent_id=intent_id,
            project_id=row.project_id,
            customer_id=row.customer_id,
            src_account_id=row.src_account_id,
            dest_account_id=row.dest_account_id,
            amount=row.amount,
            lifetime_seconds=86400,
            fingerprint=row.fingerprint,
        ),
        id=workflow_id(intent_id),
        task_queue=migrated.task_queue,
    )
    assert "RampIntentStatus" not in attributes(await orphan.describe())

    retried = await create_intent(client, token, accounts, headers=key)
    assert retried.status_code == 201, retried.text
    assert retried.json()["intent"]["id"] == intent_id
    # The workflow's state replaced what the lost attempt wrote (the same revision).
    assert (await get_intent(client, token, intent_id))["intent"] == retried.json()["intent"]
    # The update reached the workflow before the answer: it holds the intent now.
    assert attributes(await orphan.describe())["RampIntentStatus"] == "PENDING"
    accepted = await step_outcome(client, project, intent_id, "TERMS_OF_SERVICE", "VERIFIED")
    assert accepted.status_code == 202, accepted.text
    await wait_for_intent(
        client, token, intent_id, lambda body: step_status(body, "TERMS_OF_SERVICE") == "COMPLETED"
    )


async def test_a_refusal_logs_one_line_and_marks_its_workflow(
    client: httpx.AsyncClient,
    customer: dict[str, Any],
    temporal_client: Client,
    caplog: pytest.LogCaptureFixture,
) -> None:
    token = customer["access_token"]
    wire, _ = await register_accounts(
        client, token, "USD", "USDC_ETHEREUM", bank(WIRE), wallet("USDC_ETHEREUM")
    )
    _, btc = await register_accounts(
        client, token, "USD", "BTC_BITCOIN", bank(ACH), wallet("BTC_BITCOIN", BTC_ADDRESS)
    )
    caplog.set_level(logging.DEBUG)
    refused = await create_intent(
        client, token, (wire, btc), headers={"Idempotency-Key": "refused-quietly"}
    )
    assert refused.status_code == 400
    assert refused.json()["code"] == "NO_ELIGIBLE_PROVIDER"
    handle = temporal_client.get_workflow_handle(
        workflow_id(intent_id_for_key(customer["id"], "refused-quietly"))
    )
    await handle.result()
    tracebacks = [r for r in caplog.records if r.exc_info and r.levelno >= logging.INFO]
    assert tracebacks == [], [r.getMessage() for r in tracebacks]
    intent_id = intent_id_for_key(customer["id"], "refused-quietly")
    notes = [r.getMessage() for r in caplog.records if r.levelno == logging.INFO]
    # The workflow logger appends the workflow's context in parentheses.
    assert [n.split(" (")[0] for n in notes if "refused" in n] == [
        f"intent {intent_id} refused: NO_ELIGIBLE_PROVIDER"
    ]
    description = await handle.describe()
    assert description.status == WorkflowExecutionStatus.COMPLETED
    assert attributes(description)["RampIntentStatus"] == "REFUSED"
    memo = await description.memo_value("refused")
    assert memo == "NO_ELIGIBLE_PROVIDER: no provider can handle the requested external accounts"


async def test_a_503_names_the_key_that_retries_the_same_intent(
    client: httpx.AsyncClient, customer: dict[str, Any], migrated: Settings
) -> None:
    """Without an Idempotency-Key, a 503 (Temporal unreachable: the outcome is unknown)
    hands back the key the call used, so its retry cannot create a second intent."""
    token = customer["access_token"]
    accounts = await register_accounts(client, token)
    unreachable = create_app(derive_settings(migrated, TEMPORAL_ADDRESS="127.0.0.1:9"))
    async with serve(unreachable) as cut_off:
        failed = await create_intent(cut_off, token, accounts)
    assert failed.status_code == 503, failed.text
    assert failed.headers["Retry-After"]
    error = failed.json()
    assert error["code"] == "TEMPORARILY_UNAVAILABLE"
    assert "may have been created" in error["message"]
    retry_key = error["details"]["idempotencyKey"]
    assert error["details"]["intentId"] == intent_id_for_key(customer["id"], retry_key)

    retried = await create_intent(client, token, accounts, headers={"Idempotency-Key": retry_key})
    assert retried.status_code == 201, retried.text
    assert retried.json()["intent"]["id"] == error["details"]["intentId"]
    assert (await get_intent(client, token, error["details"]["intentId"]))["intent"]
