"""The reference's optional fields of POST /intent: `label` stored and returned; the
redirect URLs checked against the project's onboarding origins and used by the hosted
onboarding. Through HTTP, the session's Temporal and worker."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import httpx
import pytest

from ramp.intents.redirects import url_origin
from ramp.intents.service import IntentOrder, body_fingerprint
from tests.helpers.onboarding import onboarding, onboarding_token
from tests.helpers.payments import (
    complete_onboarding,
    create_intent,
    get_intent,
    register_accounts,
    wait_for_intent,
)
from tests.helpers.projects import ProjectCredentials

pytestmark = pytest.mark.usefixtures("worker")

APP = "https://app.example.com"
ONBOARDED = f"{APP}/ramp/onboarded"
CHECKOUT = f"{APP}/ramp/checkout"


async def allow(client: httpx.AsyncClient, project: ProjectCredentials, *origins: str) -> None:
    response = await client.put(
        "/v1/project/onboarding-origins", json={"origins": list(origins)}, headers=project.basic
    )
    assert response.status_code == 200, response.text


async def test_label_and_redirects_are_stored_and_returned(
    client: httpx.AsyncClient, project: ProjectCredentials, customer: dict[str, Any]
) -> None:
    await allow(client, project, APP)
    token = customer["access_token"]
    accounts = await register_accounts(client, token)
    response = await create_intent(
        client,
        token,
        accounts,
        label="order #1001",
        onboardingRedirectUrl=ONBOARDED,
        checkoutRedirectUrl=CHECKOUT,
        redirectUrl="https://elsewhere.example/done",
    )
    assert response.status_code == 201, response.text
    intent = response.json()["intent"]
    assert intent["label"] == "order #1001"
    assert intent["onboardingRedirectUrl"] == ONBOARDED
    assert intent["checkoutRedirectUrl"] == CHECKOUT
    assert (await get_intent(client, token, intent["id"]))["intent"] == intent
    # Without them: null, as before.
    plain = (await create_intent(client, token, accounts)).json()["intent"]
    assert (plain["label"], plain["onboardingRedirectUrl"], plain["checkoutRedirectUrl"]) == (
        None,
        None,
        None,
    )


async def test_the_hosted_onboarding_redirects_by_what_it_showed(
    client: httpx.AsyncClient, project: ProjectCredentials, customer: dict[str, Any]
) -> None:
    await allow(client, project, APP)
    token = customer["access_token"]
    accounts = await register_accounts(client, token)
    created = await create_intent(
        client,
        token,
        accounts,
        autoExecute=True,
        onboardingRedirectUrl=ONBOARDED,
        checkoutRedirectUrl=CHECKOUT,
    )
    envelope = created.json()
    intent_id = envelope["intent"]["id"]
    link_token = onboarding_token(envelope)
    # Onboarding open, nothing to pay yet: back to the onboarding redirect.
    assert (await onboarding(client, intent_id, link_token))["redirectUrl"] == ONBOARDED
    await complete_onboarding(client, project, token, intent_id)
    await wait_for_intent(client, token, intent_id, lambda b: b["transaction"] is not None)
    # Deposit instructions shown: the checkout redirect.
    assert (await onboarding(client, intent_id, link_token))["redirectUrl"] == CHECKOUT


async def test_redirects_off_the_allowed_origins_are_refused(
    client: httpx.AsyncClient, project: ProjectCredentials, customer: dict[str, Any]
) -> None:
    token = customer["access_token"]
    accounts = await register_accounts(client, token)
    # No origin allowed yet.
    refused = await create_intent(client, token, accounts, onboardingRedirectUrl=ONBOARDED)
    assert refused.status_code == 400
    assert refused.json()["code"] == "REDIRECT_URL_NOT_ALLOWED"
    await allow(client, project, APP, "http://localhost:*")
    elsewhere = await create_intent(
        client,
        token,
        accounts,
        onboardingRedirectUrl="https://evil.example/x",
        checkoutRedirectUrl=f"{APP}:8443/x",  # another port is another origin
    )
    assert elsewhere.status_code == 400
    assert elsewhere.json()["details"]["fields"] == [
        {"pointer": "/onboardingRedirectUrl", "reason": "is not on an allowed origin"},
        {"pointer": "/checkoutRedirectUrl", "reason": "is not on an allowed origin"},
    ]
    local = await create_intent(
        client, token, accounts, checkoutRedirectUrl="http://localhost:5173/paid"
    )
    assert local.status_code == 201, local.text
    cases: tuple[tuple[str, Any], ...] = (
        ("label", ""),
        ("label", "x" * 201),
        ("label", 7),
        ("onboardingRedirectUrl", "ftp://app.example.com/x"),
        ("checkoutRedirectUrl", "/relative"),
    )
    for field, value in cases:
        fields: dict[str, Any] = {field: value}
        bad = await create_intent(client, token, accounts, **fields)
        assert bad.status_code == 400, (field, value)
        assert bad.json()["code"] == "VALIDATION_ERROR"
        assert bad.json()["details"]["fields"][0]["pointer"] == f"/{field}"


def test_a_body_without_the_new_fields_hashes_as_before() -> None:
    """A retry of a request sent before these fields existed must still match its intent."""
    order = IntentOrder("src", "dest", "100.00", None, False, None)
    before = {
        "srcExternalAccountId": "src",
        "destExternalAccountId": "dest",
        "amount": "100.00",
        "providerId": None,
        "autoExecute": False,
        "redirectUrl": None,
    }
    expected = hashlib.sha256(json.dumps(before, sort_keys=True).encode()).hexdigest()
    assert body_fingerprint(order) == expected
    labelled = IntentOrder("src", "dest", "100.00", label="x")
    assert body_fingerprint(labelled) != expected


def test_url_origins() -> None:
    assert url_origin("https://App.Example.com/a?b") == "https://app.example.com"
    assert url_origin("https://app.example.com:443/a") == "https://app.example.com"
    assert url_origin("http://localhost:5173/x") == "http://localhost:5173"
    assert url_origin("http://[::1]:8080/") == "http://[::1]:8080"
