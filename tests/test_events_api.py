"""Issue 29: the events a client can read (`GET /v1/events[/{id}]`) and sandbox clocks
(`POST /v1/sandbox/intents/{id}/advance`), through HTTP against the service's worker.

The module's worker retries webhooks an hour apart: only an advance brings a retry
forward within a test.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

import httpx
import pytest
from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel.ext.asyncio.session import AsyncSession
from temporalio.client import Client
from temporalio.worker import Worker

from ramp.adapters.contract import DepositMatch, ProviderTransferEvent
from ramp.config import Settings
from ramp.db.tables import ProviderAccount
from ramp.intents.states import ProviderEventType
from ramp.provider_webhooks.unmatched import report_unmatched
from ramp.security.encryption import SecretBox
from ramp.webhooks.models import DeliveryPolicy
from tests.helpers.payments import create_intent, register_accounts, wait_for_intent
from tests.helpers.projects import ProjectCredentials, bearer, make_customer, make_project
from tests.helpers.webhook_api import add_endpoint, wait_for_deliveries
from tests.helpers.webhook_receiver import receiving
from worker import build_worker

HOURLY_RETRIES = DeliveryPolicy(retry_delays_seconds=(3600.0, 3600.0), timeout_seconds=5)
DAY = 24 * 3600


@pytest.fixture(scope="module")
async def worker(
    temporal_client: Client,
    sessions: async_sessionmaker[AsyncSession],
    secret_box: SecretBox,
    migrated: Settings,
) -> AsyncIterator[Worker]:
    async with build_worker(
        temporal_client,
        sessions,
        secret_box,
        delivery=HOURLY_RETRIES,
        task_queue=migrated.task_queue,
    ) as running:
        yield running


pytestmark = pytest.mark.usefixtures("worker")


def next_link(response: httpx.Response) -> str | None:
    link = response.headers.get("link")
    return None if link is None else str(link).split(";")[0].strip("<>")


async def new_intent(
    client: httpx.AsyncClient, project: ProjectCredentials, name: str
) -> tuple[str, str, dict[str, Any]]:
    """A customer's new intent (onboarding open, so nothing moves by itself): the
    customer's token, the customer's id and the intent."""
    customer = await make_customer(client, project, name)
    token = customer["access_token"]
    created = await create_intent(client, token, await register_accounts(client, token))
    assert created.status_code == 201, created.text
    return token, customer["id"], created.json()["intent"]


async def events(
    client: httpx.AsyncClient, project: ProjectCredentials, **params: str
) -> httpx.Response:
    response = await client.get("/v1/events", params=params, headers=project.basic)
    assert response.status_code == 200, response.text
    return response


async def test_every_event_is_stored_and_read_as_its_webhook_carries_it(
    client: httpx.AsyncClient, project: ProjectCredentials, db: AsyncSession, migrated: Settings
) -> None:
    # No endpoint at all: the events are stored anyway.
    _, first_customer, first = await new_intent(client, project, "alice")
    _, second_customer, second = await new_intent(client, project, "bob")
    listed = (await events(client, project)).json()
    created = [e for e in listed if e["eventType"] == "INTENT_STATUS_CHANGED"]
    assert [e["data"]["intentId"] for e in created] == [second["id"], first["id"]]
    assert created[0]["data"]["customerId"] == second_customer
    assert created[0]["data"]["status"] == "PENDING"
    assert created[0]["data"]["previousStatus"] is None
    assert created[0]["projectId"] == project.project_id

    # One event alone: the very bytes the list holds.
    one = await client.get(f"/v1/events/{created[0]['eventId']}", headers=project.basic)
    assert one.status_code == 200, one.text
    assert one.headers["content-type"] == "application/json"
    assert one.json() == created[0]
    assert one.content == json.dumps(created[0], separators=(",", ":"), ensure_ascii=False).encode()

    # Filters.
    by_intent = (await events(client, project, intentId=first["id"])).json()
    assert by_intent
    assert {e["data"]["intentId"] for e in by_intent} == {first["id"]}
    by_customer = (await events(client, project, customerId=first_customer)).json()
    assert [e["eventId"] for e in by_customer] == [e["eventId"] for e in by_intent]
    typed = (
        await events(client, project, type="INTENT_STATUS_CHANGED,MONEY_MOVEMENT_UPDATED")
    ).json()
    assert typed == created
    assert (await events(client, project, type="DEPOSIT_UNMATCHED")).json() == []
    later = (datetime.now(UTC) + timedelta(minutes=1)).isoformat()
    assert (await events(client, project, createdFrom=later)).json() == []
    assert (await events(client, project, createdTo=later)).json() == listed

    # Pages of one, newest first, the filter carried over.
    page = await events(client, project, type="INTENT_STATUS_CHANGED", limit="1")
    assert [e["eventId"] for e in page.json()] == [created[0]["eventId"]]
    link = next_link(page)
    assert link is not None
    assert link.startswith("/v1/events?type=INTENT_STATUS_CHANGED")
    rest = await client.get(link, headers=project.basic)
    assert [e["eventId"] for e in rest.json()] == [created[1]["eventId"]]
    assert next_link(rest) is None

    # Another project sees none of them, and its cursor is not this list's.
    other = await make_project(db, migrated, "Other")
    assert (await events(client, other)).json() == []
    missing = await client.get(f"/v1/events/{created[0]['eventId']}", headers=other.basic)
    assert missing.status_code == 404
    assert missing.json()["code"] == "NOT_FOUND"
    foreign = await client.get(link, headers=other.basic)
    assert foreign.status_code == 400
    assert foreign.json()["code"] == "INVALID_CURSOR"


async def test_event_list_errors(
    client: httpx.AsyncClient, project: ProjectCredentials, customer: dict[str, Any]
) -> None:
    assert (await client.get("/v1/events")).status_code == 401
    wrong = await client.get("/v1/events", headers=bearer(customer["access_token"]))
    assert wrong.status_code == 401
    for params, code in (
        ({"limit": "101"}, "VALIDATION_ERROR"),
        ({"cursor": "nope"}, "INVALID_CURSOR"),
        ({"type": "INTENT_CREATED"}, "VALIDATION_ERROR"),
        ({"createdFrom": "yesterday"}, "VALIDATION_ERROR"),
        ({"createdFrom": "2026-11-26T10:00:00Z", "createdTo": "2026-11-26T09:00:00Z"}, None),
        ({"intentId": "x" * 201}, "VALIDATION_ERROR"),
    ):
        answer = await client.get("/v1/events", params=params, headers=project.basic)
        assert answer.status_code == 400, params
        assert answer.json()["code"] == (code or "VALIDATION_ERROR")
    # A customers' cursor is not the events list's.
    await make_customer(client, project, "a")
    await make_customer(client, project, "b")
    customers = await client.get("/v1/customers", params={"limit": "1"}, headers=project.basic)
    cursor = next_link(customers)
    assert cursor is not None
    stolen = await client.get("/v1/events?" + cursor.split("?", 1)[1], headers=project.basic)
    assert stolen.status_code == 400
    assert stolen.json()["code"] == "INVALID_CURSOR"


async def test_a_webhook_names_the_event_it_carries(
    client: httpx.AsyncClient, project: ProjectCredentials
) -> None:
    async with receiving() as receiver:
        await add_endpoint(client, project, receiver.url, eventTypes=["INTENT_STATUS_CHANGED"])
        _, _, intent = await new_intent(client, project, "carol")
        (received,) = await receiver.wait_for(lambda got: len(got) == 1)
    stored = await client.get(f"/v1/events/{received.headers['webhook-id']}", headers=project.basic)
    assert stored.content == received.body
    (delivery,) = await wait_for_deliveries(
        client, project, lambda found: bool(found) and found[0]["status"] == "SUCCEEDED"
    )
    assert delivery["eventId"] == received.json()["eventId"] == stored.json()["eventId"]
    assert stored.json()["data"]["intentId"] == intent["id"]


async def advance(
    client: httpx.AsyncClient, project: ProjectCredentials, intent_id: str, seconds: Any
) -> httpx.Response:
    return await client.post(
        f"/v1/sandbox/intents/{intent_id}/advance", json={"seconds": seconds}, headers=project.basic
    )


async def test_an_intent_expires_in_two_calls_and_no_other_moves(
    client: httpx.AsyncClient, project: ProjectCredentials, db: AsyncSession, migrated: Settings
) -> None:
    token, _, intent = await new_intent(client, project, "dave")
    other_token, _, other = await new_intent(client, project, "erin")

    # Not another project's intent, and only whole seconds forward.
    stranger = await make_project(db, migrated, "Stranger")
    refused = await advance(client, stranger, intent["id"], DAY)
    assert refused.status_code == 404
    for seconds in (0, -5, 1.5, "60", None):
        bad = await advance(client, project, intent["id"], seconds)
        assert bad.status_code == 400, seconds
        assert bad.json()["code"] == "VALIDATION_ERROR"

    moved = await advance(client, project, intent["id"], 3600)
    assert moved.status_code == 200, moved.text
    assert moved.json() == {
        "intentId": intent["id"],
        "advancedSeconds": 3600,
        "clockOffsetSeconds": 3600.0,
        "webhookRetriesMoved": 0,
    }
    assert (await advance(client, project, intent["id"], DAY)).json()["clockOffsetSeconds"] == (
        DAY + 3600.0
    )
    expired = await wait_for_intent(
        client, token, intent["id"], lambda body: body["intent"]["status"] == "EXPIRED"
    )
    assert expired["intent"]["failureReason"] == "the intent expired"
    # Its event is stored; the other intent of the project did not move.
    ended = (await events(client, project, intentId=intent["id"])).json()
    assert ended[0]["data"]["status"] == "EXPIRED"
    untouched = await wait_for_intent(client, other_token, other["id"], lambda body: True)
    assert untouched["intent"]["status"] == "PENDING"
    # The workflow has ended (or is ending): a later advance moves webhook retries only,
    # or reports the intent closed while the run finishes.
    after = await advance(client, project, intent["id"], 60)
    assert after.status_code == 200, after.text


async def test_an_advance_brings_the_intents_webhook_retries_forward(
    client: httpx.AsyncClient, project: ProjectCredentials
) -> None:
    async with receiving() as receiver:
        receiver.statuses = [500]
        await add_endpoint(client, project, receiver.url, eventTypes=["INTENT_STATUS_CHANGED"])
        _, _, intent = await new_intent(client, project, "frank")
        (failed,) = await wait_for_deliveries(
            client, project, lambda found: bool(found) and found[0]["status"] == "RETRYING"
        )
        due = datetime.fromisoformat(failed["nextAttemptAt"])
        assert due - datetime.now(UTC) > timedelta(minutes=50)
        moved = await advance(client, project, intent["id"], 3600)
        assert moved.json()["webhookRetriesMoved"] == 1
        received = await receiver.wait_for(lambda got: len(got) == 2)
    assert received[1].headers["webhook-id"] == received[0].headers["webhook-id"]
    (delivered,) = await wait_for_deliveries(
        client, project, lambda found: bool(found) and found[0]["status"] == "SUCCEEDED"
    )
    assert delivered["attemptCount"] == 2


async def test_money_no_intent_matches_is_an_event_delivered_once(
    client: httpx.AsyncClient,
    project: ProjectCredentials,
    sessions: async_sessionmaker[AsyncSession],
) -> None:
    """Unmatched money with no intent (reported by the provider-event relay) is stored and
    delivered like every event, with `intentId` null, once however often it is reported."""
    account_id = str(uuid.uuid4())
    async with sessions() as session:
        session.add(
            ProviderAccount(id=account_id, project_id=project.project_id, provider_code="MONERIUM")
        )
        await session.commit()
    payment = ProviderTransferEvent(
        provider_event_id="message-9",
        provider_reference="issue-unmatched:order-9",
        provider_state="processed",
        events=(ProviderEventType.DEPOSIT_RECEIVED, ProviderEventType.SETTLED),
        match=DepositMatch(
            provider_customer_id="nobody-we-know", amount=Decimal("12.50"), currency="eur",
            payment_reference="order-9",
        ),
    )  # fmt: skip
    async with receiving() as receiver:
        await add_endpoint(client, project, receiver.url, eventTypes=["DEPOSIT_UNMATCHED"])
        for _ in range(2):
            await report_unmatched(sessions, account_id, payment, datetime.now(UTC))
        (received,) = await receiver.wait_for(lambda got: len(got) == 1)
        (delivery,) = await wait_for_deliveries(
            client, project, lambda found: bool(found) and found[0]["status"] == "SUCCEEDED"
        )
    assert delivery["intentId"] is None
    listed = await client.get("/v1/events", params={"type": "DEPOSIT_UNMATCHED"},
                              headers=project.basic)  # fmt: skip
    (event,) = listed.json()
    assert json.dumps(event, separators=(",", ":")).encode() == received.body
    assert event["eventId"] == delivery["eventId"] == received.headers["webhook-id"]
    assert event["data"]["intentId"] is None
    assert event["data"]["customerId"] is None
    assert event["data"]["providerReference"] == "order-9"
    assert (event["data"]["amount"], event["data"]["currency"]) == ("12.50", "EUR")
    assert event["data"]["providerAccountId"] == account_id
