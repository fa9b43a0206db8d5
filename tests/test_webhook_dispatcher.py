"""The delivery dispatcher in the service's worker: head-of-line isolation, and the
hand-over from the previous design's workflows (the migration).

Everything runs for real: the service's worker (with its dispatcher) on the test
Temporal server, the API, the database and receivers on loopback.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator
from datetime import timedelta

import httpx
import pytest
from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession
from standardwebhooks import Webhook
from standardwebhooks.exceptions import WebhookVerificationError
from temporalio.client import Client
from temporalio.worker import Worker

from ramp import projects
from ramp.config import Settings
from ramp.db.tables import WebhookAttempt, WebhookDelivery
from ramp.db.types import utcnow
from ramp.security.encryption import SecretBox
from ramp.webhooks.dispatcher import DeliveryDispatcher
from ramp.webhooks.models import (
    AttemptOutcome,
    DeliveryOrder,
    DeliveryPolicy,
    DeliveryStatus,
)
from tests.helpers.legacy_deliveries import delivery_workflow_id, start_delivery
from tests.helpers.payments import create_intent, register_accounts
from tests.helpers.projects import ProjectCredentials, make_customer
from tests.helpers.webhook_api import (
    add_endpoint,
    stored_delivery,
    wait_for_deliveries,
)
from tests.helpers.webhook_receiver import receiving
from worker import build_worker

# Retries come fast; an attempt may take a minute (the slow endpoint's must outlast the
# test), and two attempts per endpoint go at once.
PATIENT = DeliveryPolicy(retry_delays_seconds=(0.2,) * 5, timeout_seconds=60)
PER_ENDPOINT = 2


@pytest.fixture(scope="module")
async def worker(
    temporal_client: Client,
    sessions: async_sessionmaker[AsyncSession],
    secret_box: SecretBox,
    migrated: Settings,
) -> AsyncIterator[Worker]:
    dispatcher = DeliveryDispatcher(sessions, secret_box, PATIENT, per_endpoint=PER_ENDPOINT)
    async with build_worker(
        temporal_client,
        sessions,
        secret_box,
        delivery=PATIENT,
        dispatcher=dispatcher,
        task_queue=migrated.task_queue,
    ) as running:
        yield running


def refused_url() -> str:
    """A port bound but not listening: connections to it are refused."""
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{closed.getsockname()[1]}/hooks"


@pytest.mark.usefixtures("worker")
async def test_a_slow_or_dead_endpoint_holds_up_neither_other_endpoints_nor_intents(
    client: httpx.AsyncClient, project: ProjectCredentials
) -> None:
    async with receiving() as slow, receiving() as good:
        slow.hold.set()  # answers only when released: never, during the test
        slow_endpoint = await add_endpoint(client, project, slow.url)
        await add_endpoint(client, project, refused_url())
        healthy = await add_endpoint(client, project, good.url)
        customer = await make_customer(client, project, "isolation")
        accounts = await register_accounts(client, customer["access_token"])
        for _ in range(4):
            response = await create_intent(client, customer["access_token"], accounts)
            assert response.status_code == 201, response.text

        # Every event reached the healthy endpoint...
        succeeded = await wait_for_deliveries(
            client,
            project,
            lambda found: bool(found) and all(d["status"] == "SUCCEEDED" for d in found),
            endpointId=healthy["id"],
        )
        # ...while the slow endpoint still holds its first attempts open, as many as its
        # bound lets go at once, and nothing more was sent to it.
        assert len(slow.received) == PER_ENDPOINT
        assert len(succeeded) > PER_ENDPOINT
        assert len(good.received) == len(succeeded)
        # Let the held attempts end and be logged before the test's rows are deleted.
        slow.hold.clear()
        slow.release()
        await wait_for_deliveries(
            client,
            project,
            lambda found: sum(d["attemptCount"] for d in found) >= PER_ENDPOINT,
            endpointId=slow_endpoint["id"],
        )


async def legacy_delivery(
    db: AsyncSession,
    migrated: Settings,
    url: str,
    temporal_client: Client,
    **stored_as: object,
) -> str:
    """A delivery as the previous code stored it: no `due_at` (its workflow owned it)."""
    return await stored_delivery(
        db, migrated, url, temporal_client, PATIENT, due_at=None, **stored_as
    )


async def run_legacy_workflow(
    temporal_client: Client, migrated: Settings, delivery_id: str
) -> AttemptOutcome:
    assert await start_delivery(
        temporal_client, DeliveryOrder(delivery_id=delivery_id, policy=PATIENT), migrated.task_queue
    )
    handle = temporal_client.get_workflow_handle(
        delivery_workflow_id(delivery_id), result_type=AttemptOutcome
    )
    outcome: AttemptOutcome = await handle.result()
    return outcome


async def logged(db: AsyncSession, delivery_id: str) -> tuple[WebhookDelivery, list[int]]:
    async with asyncio.timeout(20):
        while True:
            db.expire_all()
            delivery = await db.get(WebhookDelivery, delivery_id)
            assert delivery is not None
            if delivery.status not in (DeliveryStatus.PENDING, DeliveryStatus.RETRYING):
                numbers = (
                    await db.exec(
                        select(WebhookAttempt.number).where(
                            WebhookAttempt.delivery_id == delivery_id
                        )
                    )
                ).all()
                return delivery, sorted(numbers)
            await asyncio.sleep(0.05)


@pytest.mark.usefixtures("worker")
async def test_deliveries_of_the_previous_designs_workflows_are_taken_over_without_loss(
    db: AsyncSession, migrated: Settings, temporal_client: Client
) -> None:
    """Migration: a workflow started by the previous code, for a delivery not attempted
    yet and for one between retries, hands it over; each event arrives once."""
    async with receiving() as receiver:
        fresh = await legacy_delivery(db, migrated, receiver.url, temporal_client)
        between_retries = await legacy_delivery(
            db,
            migrated,
            receiver.url,
            temporal_client,
            status=DeliveryStatus.RETRYING,
            attempt_count=1,
            last_status_code=503,
            next_attempt_at=utcnow(),
        )
        for delivery_id in (fresh, between_retries):
            outcome = await run_legacy_workflow(temporal_client, migrated, delivery_id)
            # Handed over: the workflow ends without sending anything itself.
            assert outcome.status is DeliveryStatus.PENDING
        received = await receiver.wait_for(lambda got: len(got) == 2)

    assert len({hook.headers["webhook-id"] for hook in received}) == 2
    delivery, numbers = await logged(db, fresh)
    assert (delivery.status, numbers) == (DeliveryStatus.SUCCEEDED, [1])
    delivery, numbers = await logged(db, between_retries)
    # The retry schedule goes on where it was: this was the second attempt.
    assert (delivery.status, numbers) == (DeliveryStatus.SUCCEEDED, [2])


@pytest.mark.usefixtures("worker")
async def test_a_previous_workflow_whose_delivery_ended_sends_nothing(
    db: AsyncSession, migrated: Settings, temporal_client: Client
) -> None:
    async with receiving() as receiver:
        ended = await legacy_delivery(
            db, migrated, receiver.url, temporal_client, status=DeliveryStatus.SUCCEEDED
        )
        outcome = await run_legacy_workflow(temporal_client, migrated, ended)
    assert outcome.status is DeliveryStatus.SUCCEEDED
    assert receiver.received == []


@pytest.mark.usefixtures("worker")
async def test_an_attempt_that_waited_for_its_endpoint_is_signed_with_the_secret_of_its_start(
    client: httpx.AsyncClient, project: ProjectCredentials, db: AsyncSession, secret_box: SecretBox
) -> None:
    """Keys read with a delivery sign only the attempts that start as it commits: one
    queued behind its endpoint's bound reads them again, so a rotation meanwhile signs it."""
    async with receiving() as slow:
        slow.hold.set()
        await add_endpoint(client, project, slow.url)
        customer = await make_customer(client, project, "rotation-queued")
        accounts = await register_accounts(client, customer["access_token"])
        for _ in range(3):
            response = await create_intent(client, customer["access_token"], accounts)
            assert response.status_code == 201, response.text
        # The endpoint's bound of attempts is under way (held); the rest wait in its queue.
        await slow.wait_for(lambda got: len(got) == PER_ENDPOINT)
        rotated = await projects.rotate_client_secret(
            db, project_id=project.project_id, secret_box=secret_box, grace=timedelta(0)
        )
        slow.release()
        renewed = ProjectCredentials(
            project.organization_id, project.project_id, project.client_id, rotated.clientSecret
        )
        delivered = await wait_for_deliveries(
            client,
            renewed,
            lambda found: bool(found) and all(d["status"] == "SUCCEEDED" for d in found),
        )
        received = slow.received
    assert len(received) == len(delivered) > PER_ENDPOINT
    for early in received[:PER_ENDPOINT]:
        Webhook(project.client_secret.encode()).verify(early.body, early.headers)
    for late in received[PER_ENDPOINT:]:
        assert " " not in late.headers["webhook-signature"]
        Webhook(rotated.clientSecret.encode()).verify(late.body, late.headers)
        with pytest.raises(WebhookVerificationError):
            Webhook(project.client_secret.encode()).verify(late.body, late.headers)
