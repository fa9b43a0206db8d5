"""Signed webhooks: endpoints, events of an intent's transitions, delivery, the log.

A real receiver on loopback gets the POSTs; it verifies them as a project would, with
nothing but the client secret: through the `standardwebhooks` package, and through a
hand-written HMAC check of our own headers.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import shutil
import socket
import subprocess
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlmodel.ext.asyncio.session import AsyncSession
from standardwebhooks import Webhook
from standardwebhooks.webhooks import WebhookVerificationError

from api.openapi import openapi_document
from ramp import projects
from ramp.config import Environment, Settings
from ramp.db.tables import Project
from ramp.security.encryption import SecretBox
from ramp.webhooks.endpoints import EndpointRefused, check_url
from tests.helpers.openapi import conforms
from tests.helpers.payments import (
    complete_onboarding,
    create_intent,
    provider_event,
    register_accounts,
    wait_for_intent,
)
from tests.helpers.projects import ProjectCredentials, make_customer, make_project
from tests.helpers.webhook_api import add_endpoint, deliveries, wait_for_deliveries
from tests.helpers.webhook_receiver import Received, Receiver, receiving

pytestmark = pytest.mark.usefixtures("worker")

NODE = shutil.which("node") or ""
ALL_EVENTS = [
    "INTENT_STATUS_CHANGED",
    "COMPLIANCE_UPDATED",
    "MONEY_MOVEMENT_UPDATED",
    "DEPOSIT_UNMATCHED",
]


@pytest.fixture
async def receiver() -> AsyncIterator[Receiver]:
    async with receiving() as running:
        yield running


def hand_verify(secret: str, received: Received, now: datetime | None = None) -> None:
    """What a receiver of our own headers writes: no library, a few lines."""
    timestamp = received.headers["x-ramp-timestamp"]
    signed_at = datetime.fromisoformat(timestamp.replace("Z", "+00:00"))
    if abs((now or datetime.now(UTC)) - signed_at) > timedelta(minutes=5):
        raise ValueError("stale timestamp")
    expected = hmac.new(
        secret.encode(), timestamp.encode() + b"." + received.body, hashlib.sha256
    ).hexdigest()
    if not any(
        hmac.compare_digest(expected, given)
        for given in received.headers["x-ramp-signature"].split(",")
    ):
        raise ValueError("bad signature")


def story(received: list[Received]) -> set[tuple[str, str, str, str | None]]:
    """(event type, subject, status, previous status) of each event received."""
    out = set()
    for item in received:
        event = item.json()
        data = event["data"]
        subject = data.get("requirementCode") or ("transaction" if "transactionId" in data else "")
        out.add((event["eventType"], subject, data["status"], data["previousStatus"]))
    return out


async def onboarding_intent(
    client: httpx.AsyncClient, project: ProjectCredentials, external_id: str, **fields: Any
) -> tuple[str, str]:
    """A new customer's intent (it needs onboarding); returns (token, intent id)."""
    customer = await make_customer(client, project, external_id)
    token: str = customer["access_token"]
    accounts = await register_accounts(client, token)
    response = await create_intent(client, token, accounts, **fields)
    assert response.status_code == 201, response.text
    return token, response.json()["intent"]["id"]


# --- endpoints ------------------------------------------------------------------------


async def test_endpoints_are_managed_by_the_project(
    client: httpx.AsyncClient, project: ProjectCredentials, db: AsyncSession, migrated: Settings
) -> None:
    created = await add_endpoint(client, project, "https://hooks.example.com/ramp")
    conforms(openapi_document(), "WebhookEndpointResource", created)
    assert created["eventTypes"] == ALL_EVENTS
    assert created["enabled"] is True
    assert created["disabledReason"] is None

    only = await add_endpoint(
        client,
        project,
        "https://other.example.com/x",
        eventTypes=["MONEY_MOVEMENT_UPDATED"],
        description="ledger",
    )
    listed = await client.get("/v1/webhooks/endpoints", headers=project.basic)
    assert [e["id"] for e in listed.json()] == [created["id"], only["id"]]

    patched = await client.patch(
        f"/v1/webhooks/endpoints/{created['id']}", json={"enabled": False}, headers=project.basic
    )
    assert patched.status_code == 200, patched.text
    assert patched.json()["enabled"] is False
    assert patched.json()["disabledReason"] == "disabled by the project"
    assert patched.json()["url"] == "https://hooks.example.com/ramp"

    # Another project sees none of it.
    other = await make_project(db, migrated, name="Other")
    assert (await client.get("/v1/webhooks/endpoints", headers=other.basic)).json() == []
    foreign = await client.patch(
        f"/v1/webhooks/endpoints/{created['id']}", json={"enabled": True}, headers=other.basic
    )
    assert foreign.status_code == 404
    assert foreign.json()["code"] == "NOT_FOUND"

    removed = await client.delete(f"/v1/webhooks/endpoints/{created['id']}", headers=project.basic)
    assert removed.status_code == 204
    again = await client.delete(f"/v1/webhooks/endpoints/{created['id']}", headers=project.basic)
    assert again.status_code == 404


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"url": "ftp://hooks.example.com"}, "VALIDATION_ERROR"),
        ({"url": "hooks.example.com/x"}, "VALIDATION_ERROR"),
        ({"url": "https://hooks.example.com", "eventTypes": []}, "VALIDATION_ERROR"),
        ({"url": "https://hooks.example.com", "eventTypes": ["PAID"]}, "VALIDATION_ERROR"),
        ({"url": "https://user:pw@hooks.example.com"}, "INVALID_WEBHOOK_ENDPOINT"),
        ({"url": "https://hooks.example.com", "secret": "x"}, "VALIDATION_ERROR"),
    ],
)
async def test_bad_endpoint_settings_are_refused(
    client: httpx.AsyncClient, project: ProjectCredentials, body: dict[str, Any], code: str
) -> None:
    response = await client.post("/v1/webhooks/endpoints", json=body, headers=project.basic)
    assert response.status_code == 400, response.text
    assert response.json()["code"] == code


async def test_webhook_endpoints_need_project_credentials(client: httpx.AsyncClient) -> None:
    for method, path in [
        ("GET", "/v1/webhooks/endpoints"),
        ("GET", "/v1/webhooks/deliveries"),
        ("POST", f"/v1/webhooks/deliveries/{uuid.uuid4()}/redeliver"),
    ]:
        response = await client.request(method, path)
        assert response.status_code == 401
        assert response.json()["code"] == "MISSING_CREDENTIALS"


# --- events and signatures ------------------------------------------------------------


async def test_an_intent_reports_every_transition_once_signed_both_ways(
    client: httpx.AsyncClient, project: ProjectCredentials, receiver: Receiver
) -> None:
    await add_endpoint(client, project, receiver.url)
    token, intent_id = await onboarding_intent(client, project, "story", autoExecute=True)
    await complete_onboarding(client, project, token, intent_id)
    funded = await wait_for_intent(
        client, token, intent_id, lambda body: body["transaction"] is not None
    )
    transaction_id = funded["transaction"]["id"]
    for event, status in (("DEPOSIT_RECEIVED", "IN_PROGRESS"), ("SETTLED", "SUCCESS")):
        assert (await provider_event(client, project, transaction_id, event)).status_code == 202
        await wait_for_intent(
            client,
            token,
            intent_id,
            lambda body, status=status: body["transaction"]["status"] == status,  # type: ignore[misc]
        )

    expected = {
        ("INTENT_STATUS_CHANGED", "", "PENDING", None),
        ("COMPLIANCE_UPDATED", "TERMS_OF_SERVICE", "COMPLETED", "PENDING"),
        ("COMPLIANCE_UPDATED", "KYC_BASIC", "COMPLETED", "PENDING"),
        ("COMPLIANCE_UPDATED", "SOURCE_OF_FUNDS", "COMPLETED", "PENDING"),
        ("MONEY_MOVEMENT_UPDATED", "transaction", "PENDING", None),
        ("INTENT_STATUS_CHANGED", "", "PROCESSING", "PENDING"),
        ("MONEY_MOVEMENT_UPDATED", "transaction", "IN_PROGRESS", "PENDING"),
        ("MONEY_MOVEMENT_UPDATED", "transaction", "SUCCESS", "IN_PROGRESS"),
        ("INTENT_STATUS_CHANGED", "", "COMPLETED", "PROCESSING"),
    }
    received = await receiver.wait_for(lambda got: len(got) >= len(expected))
    assert story(received) == expected

    # Exactly once: one delivery per event, each acknowledged at its first attempt.
    log = await wait_for_deliveries(
        client,
        project,
        lambda found: (
            len(found) == len(expected) and all(d["status"] == "SUCCEEDED" for d in found)
        ),
        intentId=intent_id,
    )
    assert {d["eventId"] for d in log} == {r.json()["eventId"] for r in received}
    assert all(d["attemptCount"] == 1 and d["attempts"][0]["statusCode"] == 200 for d in log)
    assert len(receiver.received) == len(expected)

    document = openapi_document()
    for delivery in log:
        conforms(document, "WebhookDeliveryResource", delivery)
    for item in received:
        envelope = item.json()
        conforms(document, "WebhookEvent", envelope)
        assert set(envelope) == {"eventId", "eventType", "timestamp", "projectId", "data"}
        assert envelope["projectId"] == project.project_id
        assert envelope["data"]["intentId"] == intent_id
        assert item.headers["webhook-id"] == envelope["eventId"]
        assert item.headers["x-ramp-event-type"] == envelope["eventType"]
        assert item.headers["x-ramp-client-id"] == project.client_id
        assert item.headers["content-type"] == "application/json"
        # Both conventions verify with the client secret alone.
        assert Webhook(project.client_secret.encode()).verify(item.body, item.headers) == envelope
        hand_verify(project.client_secret, item)
    money = [r.json()["data"] for r in received if "transactionId" in r.json()["data"]]
    assert {m["transactionId"] for m in money} == {transaction_id}
    assert all(m["providerReference"] for m in money)


async def test_a_tampered_or_replayed_webhook_fails_verification(
    client: httpx.AsyncClient, project: ProjectCredentials, receiver: Receiver
) -> None:
    await add_endpoint(client, project, receiver.url, eventTypes=["INTENT_STATUS_CHANGED"])
    await onboarding_intent(client, project, "tamper")
    (item,) = await receiver.wait_for(lambda got: len(got) == 1)
    secret = project.client_secret
    standard = Webhook(secret.encode())
    standard.verify(item.body, item.headers)
    hand_verify(secret, item)
    # The portable form of the key, for Standard Webhooks libraries that take a string.
    portable = "whsec_" + base64.b64encode(secret.encode()).decode()
    Webhook(portable).verify(item.body, item.headers)

    tampered = Received(item.path, item.headers, item.body.replace(b"PENDING", b"SUCCESS"))
    with pytest.raises(WebhookVerificationError):
        standard.verify(tampered.body, tampered.headers)
    with pytest.raises(ValueError, match="bad signature"):
        hand_verify(secret, tampered)

    # The same delivery, replayed ten minutes later, is refused by both checks.
    old = str(int(item.headers["webhook-timestamp"]) - 600)
    with pytest.raises(WebhookVerificationError, match="too old"):
        standard.verify(item.body, {**item.headers, "webhook-timestamp": old})
    with pytest.raises(ValueError, match="stale"):
        hand_verify(secret, item, now=datetime.now(UTC) + timedelta(minutes=10))

    with pytest.raises(WebhookVerificationError):
        Webhook(b"not the client secret").verify(item.body, item.headers)


async def test_an_endpoint_receives_only_the_event_types_it_asked_for(
    client: httpx.AsyncClient, project: ProjectCredentials, receiver: Receiver
) -> None:
    async with receiving() as everything:
        await add_endpoint(client, project, receiver.url, eventTypes=["COMPLIANCE_UPDATED"])
        await add_endpoint(client, project, everything.url)
        token, intent_id = await onboarding_intent(client, project, "filter")
        await complete_onboarding(client, project, token, intent_id)
        await everything.wait_for(lambda got: len(got) == 4)
        received = await receiver.wait_for(lambda got: len(got) == 3)
    assert {r.json()["eventType"] for r in received} == {"COMPLIANCE_UPDATED"}
    # Each endpoint has its own deliveries of the same events.
    compliance = await deliveries(client, project, eventType="COMPLIANCE_UPDATED")
    assert len(compliance) == 6
    assert len({d["eventId"] for d in compliance}) == 3


async def test_a_returning_customer_hears_of_an_auto_completed_intent(
    client: httpx.AsyncClient, project: ProjectCredentials, receiver: Receiver
) -> None:
    token, first = await onboarding_intent(client, project, "returning")
    await complete_onboarding(client, project, token, first)
    await add_endpoint(client, project, receiver.url)
    accounts = await register_accounts(client, token)
    response = await create_intent(client, token, accounts)
    assert response.status_code == 201, response.text
    assert response.json()["transaction"] is not None
    received = await receiver.wait_for(lambda got: len(got) == 5)
    assert story(received) == {
        ("COMPLIANCE_UPDATED", "TERMS_OF_SERVICE", "COMPLETED", None),
        ("COMPLIANCE_UPDATED", "KYC_BASIC", "COMPLETED", None),
        ("COMPLIANCE_UPDATED", "SOURCE_OF_FUNDS", "COMPLETED", None),
        ("MONEY_MOVEMENT_UPDATED", "transaction", "PENDING", None),
        ("INTENT_STATUS_CHANGED", "", "PROCESSING", None),
    }


async def test_a_rejection_is_reported_with_its_reason(
    client: httpx.AsyncClient, project: ProjectCredentials, receiver: Receiver
) -> None:
    await add_endpoint(client, project, receiver.url)
    _, intent_id = await onboarding_intent(client, project, "rejected")
    rejected = await client.post(
        f"/v1/sandbox/intents/{intent_id}/compliance-steps/TERMS_OF_SERVICE",
        json={"outcome": "REJECTED", "reason": "terms declined"},
        headers=project.basic,
    )
    assert rejected.status_code == 202
    received = await receiver.wait_for(lambda got: len(got) == 3)
    events = {r.json()["eventType"]: r.json()["data"] for r in received if r.json()}
    failed = [
        r.json()["data"]
        for r in received
        if r.json()["eventType"] == "INTENT_STATUS_CHANGED"
        and r.json()["data"]["status"] == "FAILED"
    ]
    assert failed == [
        {
            "intentId": intent_id,
            "customerId": failed[0]["customerId"],
            "status": "FAILED",
            "previousStatus": "PENDING",
            "failureReason": "TERMS_OF_SERVICE rejected: terms declined",
        }
    ]
    assert events["COMPLIANCE_UPDATED"]["status"] == "REJECTED"


# --- delivery -------------------------------------------------------------------------


async def test_a_failing_endpoint_gets_the_event_after_retries(
    client: httpx.AsyncClient, project: ProjectCredentials, receiver: Receiver
) -> None:
    receiver.statuses = [500, 503]
    await add_endpoint(client, project, receiver.url, eventTypes=["INTENT_STATUS_CHANGED"])
    await onboarding_intent(client, project, "retries")
    received = await receiver.wait_for(lambda got: len(got) == 3)
    # The same message each time: consumers deduplicate on the id.
    assert len({r.headers["webhook-id"] for r in received}) == 1
    assert len({r.body for r in received}) == 1
    (delivery,) = await wait_for_deliveries(
        client, project, lambda found: bool(found) and found[0]["status"] == "SUCCEEDED"
    )
    assert [a["statusCode"] for a in delivery["attempts"]] == [500, 503, 200]
    assert [a["number"] for a in delivery["attempts"]] == [1, 2, 3]
    assert delivery["attempts"][0]["error"] == "HTTP 500"
    assert delivery["attempts"][2]["error"] is None
    assert delivery["attemptCount"] == 3
    assert delivery["maxAttempts"] == 6
    assert delivery["nextAttemptAt"] is None


async def test_retries_go_to_the_endpoints_current_url(
    client: httpx.AsyncClient, project: ProjectCredentials, receiver: Receiver
) -> None:
    receiver.default_status = 500
    receiver.hold.set()
    endpoint = await add_endpoint(
        client, project, receiver.url, eventTypes=["INTENT_STATUS_CHANGED"]
    )
    await onboarding_intent(client, project, "moved")
    async with receiving() as moved:
        await receiver.wait_for(lambda got: len(got) == 1)
        # The first attempt is still waiting for its answer: fix the URL meanwhile.
        patched = await client.patch(
            f"/v1/webhooks/endpoints/{endpoint['id']}",
            json={"url": moved.url},
            headers=project.basic,
        )
        assert patched.status_code == 200
        receiver.hold.clear()
        receiver.release()
        (arrived,) = await moved.wait_for(lambda got: len(got) == 1)
    assert arrived.headers["webhook-id"] == receiver.received[0].headers["webhook-id"]
    (delivery,) = await wait_for_deliveries(
        client, project, lambda found: bool(found) and found[0]["status"] == "SUCCEEDED"
    )
    assert delivery["url"] == moved.url
    assert [a["statusCode"] for a in delivery["attempts"]] == [500, 200]


async def test_a_delivery_is_exhausted_after_six_attempts(
    client: httpx.AsyncClient, project: ProjectCredentials, receiver: Receiver
) -> None:
    receiver.default_status = 500
    await add_endpoint(client, project, receiver.url, eventTypes=["INTENT_STATUS_CHANGED"])
    await onboarding_intent(client, project, "exhausted")
    (delivery,) = await wait_for_deliveries(
        client, project, lambda found: bool(found) and found[0]["status"] == "EXHAUSTED"
    )
    assert delivery["attemptCount"] == 6
    assert [a["statusCode"] for a in delivery["attempts"]] == [500] * 6
    assert delivery["lastStatusCode"] == 500
    assert len(receiver.received) == 6


async def test_an_unreachable_endpoint_records_the_error(
    client: httpx.AsyncClient, project: ProjectCredentials
) -> None:
    # A port that is bound but not listening: connections to it are refused.
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{closed.getsockname()[1]}/hooks"
        await add_endpoint(client, project, url, eventTypes=["INTENT_STATUS_CHANGED"])
        await onboarding_intent(client, project, "unreachable")
        (delivery,) = await wait_for_deliveries(
            client, project, lambda found: bool(found) and found[0]["status"] == "EXHAUSTED"
        )
    first = delivery["attempts"][0]
    assert first["statusCode"] is None
    assert first["error"].startswith("ConnectError")


async def test_an_endpoint_that_never_answers_in_time_fails_the_attempt(
    client: httpx.AsyncClient, project: ProjectCredentials, receiver: Receiver
) -> None:
    receiver.hold.set()  # answers only when released: after the 5 s timeout of this worker
    await add_endpoint(client, project, receiver.url, eventTypes=["INTENT_STATUS_CHANGED"])
    await onboarding_intent(client, project, "slow")
    (delivery,) = await wait_for_deliveries(
        client, project, lambda found: bool(found) and found[0]["attemptCount"] >= 1, within=30
    )
    assert delivery["status"] == "RETRYING"
    first = delivery["attempts"][0]
    assert first["statusCode"] is None
    assert first["error"] == "no answer within 5 s"
    assert first["latencyMs"] >= 5000
    receiver.hold.clear()
    receiver.release()
    await wait_for_deliveries(
        client, project, lambda found: found[0]["status"] == "SUCCEEDED", within=30
    )


async def test_disabling_an_endpoint_cancels_its_pending_deliveries(
    client: httpx.AsyncClient, project: ProjectCredentials, receiver: Receiver
) -> None:
    receiver.default_status = 500
    receiver.hold.set()
    endpoint = await add_endpoint(
        client, project, receiver.url, eventTypes=["INTENT_STATUS_CHANGED"]
    )
    await onboarding_intent(client, project, "disabled")
    await receiver.wait_for(lambda got: len(got) == 1)
    patched = await client.patch(
        f"/v1/webhooks/endpoints/{endpoint['id']}", json={"enabled": False}, headers=project.basic
    )
    assert patched.status_code == 200
    (cancelled,) = await deliveries(client, project)
    assert cancelled["status"] == "CANCELLED"
    assert cancelled["lastError"] == "the endpoint was disabled or removed"
    # The attempt under way ends: it is logged, and the delivery stays cancelled.
    receiver.hold.clear()
    receiver.release()
    (logged,) = await wait_for_deliveries(
        client, project, lambda found: found[0]["attemptCount"] == 1
    )
    assert logged["status"] == "CANCELLED"
    assert [a["statusCode"] for a in logged["attempts"]] == [500]
    # Enabled again, the endpoint gets new events only.
    await client.patch(
        f"/v1/webhooks/endpoints/{endpoint['id']}", json={"enabled": True}, headers=project.basic
    )
    receiver.default_status = 200
    await onboarding_intent(client, project, "enabled-again")
    await receiver.wait_for(lambda got: len(got) == 2)
    log = await wait_for_deliveries(
        client, project, lambda found: {d["status"] for d in found} == {"CANCELLED", "SUCCEEDED"}
    )
    assert len(log) == 2


async def test_410_gone_disables_the_endpoint(
    client: httpx.AsyncClient, project: ProjectCredentials, receiver: Receiver
) -> None:
    receiver.statuses = [410]
    endpoint = await add_endpoint(client, project, receiver.url)
    token, intent_id = await onboarding_intent(client, project, "gone")
    await wait_for_deliveries(
        client, project, lambda found: any(d["status"] == "GONE" for d in found)
    )
    listed = (await client.get("/v1/webhooks/endpoints", headers=project.basic)).json()
    assert listed[0]["id"] == endpoint["id"]
    assert listed[0]["enabled"] is False
    assert listed[0]["disabledReason"] == "the endpoint answered 410 Gone"
    # Nothing more goes to it.
    await complete_onboarding(client, project, token, intent_id)
    log = await deliveries(client, project)
    assert len(log) == 1
    assert len(receiver.received) == 1


async def test_a_delivery_can_be_sent_again(
    client: httpx.AsyncClient,
    project: ProjectCredentials,
    receiver: Receiver,
    db: AsyncSession,
    migrated: Settings,
) -> None:
    endpoint = await add_endpoint(
        client, project, receiver.url, eventTypes=["INTENT_STATUS_CHANGED"]
    )
    await onboarding_intent(client, project, "again")
    (first,) = await wait_for_deliveries(
        client, project, lambda found: bool(found) and found[0]["status"] == "SUCCEEDED"
    )
    response = await client.post(
        f"/v1/webhooks/deliveries/{first['id']}/redeliver", headers=project.basic
    )
    assert response.status_code == 202, response.text
    again = response.json()
    assert again["redeliveryOf"] == first["id"]
    assert again["eventId"] == first["eventId"]
    assert again["maxAttempts"] == 1
    received = await receiver.wait_for(lambda got: len(got) == 2)
    assert received[0].body == received[1].body
    assert received[0].headers["webhook-id"] == received[1].headers["webhook-id"]
    fetched = await client.get(f"/v1/webhooks/deliveries/{again['id']}", headers=project.basic)
    assert fetched.status_code == 200

    other = await make_project(db, migrated, name="Other")
    foreign = await client.post(
        f"/v1/webhooks/deliveries/{first['id']}/redeliver", headers=other.basic
    )
    assert foreign.status_code == 404
    assert (
        await client.get(f"/v1/webhooks/deliveries/{first['id']}", headers=other.basic)
    ).status_code == 404

    await client.patch(
        f"/v1/webhooks/endpoints/{endpoint['id']}", json={"enabled": False}, headers=project.basic
    )
    refused = await client.post(
        f"/v1/webhooks/deliveries/{first['id']}/redeliver", headers=project.basic
    )
    assert refused.status_code == 409
    assert refused.json()["code"] == "ENDPOINT_DISABLED"


async def test_the_delivery_log_pages_and_filters(
    client: httpx.AsyncClient, project: ProjectCredentials, receiver: Receiver
) -> None:
    await add_endpoint(client, project, receiver.url, eventTypes=["INTENT_STATUS_CHANGED"])
    for n in range(3):
        await onboarding_intent(client, project, f"page-{n}")
    await wait_for_deliveries(client, project, lambda found: len(found) == 3)

    first = await client.get(
        "/v1/webhooks/deliveries",
        params={"limit": "2", "eventType": "INTENT_STATUS_CHANGED"},
        headers=project.basic,
    )
    assert first.status_code == 200
    assert len(first.json()) == 2
    link = first.headers["link"]
    assert link.startswith("</v1/webhooks/deliveries?")
    assert link.endswith('>; rel="next"')
    assert "eventType=INTENT_STATUS_CHANGED" in link
    second = await client.get(link[1 : link.index(">")], headers=project.basic)
    assert len(second.json()) == 1
    assert "link" not in second.headers
    ids = [d["id"] for d in first.json() + second.json()]
    assert len(set(ids)) == 3

    none = await deliveries(client, project, eventType="MONEY_MOVEMENT_UPDATED")
    assert none == []
    bad = await client.get(
        "/v1/webhooks/deliveries", params={"status": "LOST"}, headers=project.basic
    )
    assert bad.status_code == 400
    assert bad.json()["code"] == "VALIDATION_ERROR"
    cursor = await client.get(
        "/v1/webhooks/deliveries", params={"cursor": "nonsense"}, headers=project.basic
    )
    assert cursor.json()["code"] == "INVALID_CURSOR"


# --- secret rotation ------------------------------------------------------------------


async def test_a_rotated_secret_signs_alongside_the_new_one_until_its_grace_ends(
    client: httpx.AsyncClient,
    project: ProjectCredentials,
    receiver: Receiver,
    db: AsyncSession,
    secret_box: SecretBox,
) -> None:
    await add_endpoint(client, project, receiver.url, eventTypes=["INTENT_STATUS_CHANGED"])
    rotated = await projects.rotate_client_secret(
        db, project_id=project.project_id, secret_box=secret_box, grace=timedelta(hours=24)
    )
    old, new = project.client_secret, rotated.clientSecret
    assert new != old
    renewed = ProjectCredentials(
        project.organization_id, project.project_id, project.client_id, new
    )
    # Both secrets authenticate during the grace period.
    for credentials in (project, renewed):
        listed = await client.get("/v1/webhooks/endpoints", headers=credentials.basic)
        assert listed.status_code == 200

    await onboarding_intent(client, renewed, "rotation")
    (item,) = await receiver.wait_for(lambda got: len(got) == 1)
    assert len(item.headers["webhook-signature"].split(" ")) == 2
    assert len(item.headers["x-ramp-signature"].split(",")) == 2
    for secret in (old, new):
        Webhook(secret.encode()).verify(item.body, item.headers)
        hand_verify(secret, item)

    # The grace period ends: the old secret neither signs nor authenticates.
    stored = await db.get(Project, project.project_id)
    assert stored is not None
    stored.previous_secret_expires_at = datetime.now(UTC) - timedelta(seconds=1)
    db.add(stored)
    await db.commit()
    assert (await client.get("/v1/webhooks/endpoints", headers=project.basic)).status_code == 401
    await onboarding_intent(client, renewed, "rotation-2")
    (_, later) = await receiver.wait_for(lambda got: len(got) == 2)
    assert len(later.headers["webhook-signature"].split(" ")) == 1
    Webhook(new.encode()).verify(later.body, later.headers)
    with pytest.raises(WebhookVerificationError):
        Webhook(old.encode()).verify(later.body, later.headers)


def documented_python(heading: str, language: str = "python") -> str:
    """The first code block in `language` after `heading` in docs/webhooks.md."""
    text = (Path(__file__).resolve().parents[1] / "docs" / "webhooks.md").read_text()
    after = text[text.index(heading) :]
    start = after.index(f"```{language}\n") + len(f"```{language}\n")
    return after[start : after.index("```", start)]


async def test_the_documented_verification_code_verifies_real_deliveries(
    client: httpx.AsyncClient, project: ProjectCredentials, receiver: Receiver
) -> None:
    await add_endpoint(client, project, receiver.url, eventTypes=["INTENT_STATUS_CHANGED"])
    await onboarding_intent(client, project, "documented")
    (item,) = await receiver.wait_for(lambda got: len(got) == 1)
    # Header names as a web framework hands them over (case as sent).
    headers = {name.title(): value for name, value in item.headers.items()}
    headers.update(item.headers)

    ours: dict[str, Any] = {}
    exec(documented_python("Our headers, with the standard library only"), ours)  # noqa: S102
    ours["verify"](project.client_secret, headers, item.body)
    with pytest.raises(ValueError, match="bad signature"):
        ours["verify"](project.client_secret, headers, item.body + b" ")

    standard: dict[str, Any] = {
        "client_secret": project.client_secret,
        "raw_body": item.body,
        "request": type("Request", (), {"headers": item.headers}),
    }
    exec(documented_python("Standard Webhooks, with the `standardwebhooks` package"), standard)  # noqa: S102
    assert standard["event"] == item.json()


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("http://hooks.example.com/x", "must use https"),
        ("https://127.0.0.1/x", "public host"),
        ("https://10.1.2.3/x", "public host"),
        ("https://[::1]/x", "public host"),
        ("https://localhost:8443/x", "public host"),
        ("https://169.254.169.254/latest", "never reaches"),
        ("https://2130706433/", "public host"),
        ("https://127.1/", "public host"),
        ("https://0177.0.0.1/", "public host"),
        ("https://0/", "never reaches"),
        ("https://[::ffff:127.0.0.1]/", "public host"),
        ("https://[::ffff:10.0.0.1]/", "public host"),
    ],
)
def test_production_endpoints_must_be_https_on_a_public_host(url: str, reason: str) -> None:
    with pytest.raises(EndpointRefused, match=reason):
        check_url(url, Environment.PRODUCTION)
    assert check_url("https://hooks.example.com/x", Environment.PRODUCTION)
    local = url.replace("https://", "http://")
    if reason == "never reaches":  # cloud metadata and "this host": refused everywhere
        with pytest.raises(EndpointRefused, match=reason):
            check_url(local, Environment.SANDBOX)
    else:  # http, loopback and private: a sandbox's own receivers
        assert check_url(local, Environment.SANDBOX)


async def test_the_documented_node_verification_verifies_real_deliveries(
    client: httpx.AsyncClient, project: ProjectCredentials, receiver: Receiver, tmp_path: Path
) -> None:
    """The Node.js snippet of docs/webhooks.md, run by node (scripts/test installs it)."""
    assert NODE, "node is not installed: ./scripts/test installs Debian's nodejs"
    await add_endpoint(client, project, receiver.url, eventTypes=["INTENT_STATUS_CHANGED"])
    await onboarding_intent(client, project, "documented-node")
    (item,) = await receiver.wait_for(lambda got: len(got) == 1)
    script = tmp_path / "verify.js"
    script.write_text(
        documented_python("The same in Node.js", "js")
        + """
const [secret, headersFile, bodyFile, tamper] = process.argv.slice(2);
const fs = require("fs");
let body = fs.readFileSync(bodyFile);
if (tamper === "yes") body = Buffer.concat([body, Buffer.from(" ")]);
try { verify(secret, JSON.parse(fs.readFileSync(headersFile, "utf8")), body); console.log("ok"); }
catch (e) { console.log(e.message); }
"""
    )
    (tmp_path / "headers.json").write_text(json.dumps(item.headers))
    (tmp_path / "body").write_bytes(item.body)

    def node(tamper: str) -> str:
        done = subprocess.run(
            [
                NODE,
                str(script),
                project.client_secret,
                str(tmp_path / "headers.json"),
                str(tmp_path / "body"),
                tamper,
            ],
            capture_output=True,
            text=True,
            timeout=30,
            check=True,
        )
        return done.stdout.strip()

    assert node("no") == "ok"
    assert node("yes") == "bad signature"
