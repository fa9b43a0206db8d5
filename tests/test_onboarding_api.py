"""The hosted onboarding's JSON API, driven over HTTP against the app, a real worker and
a real Temporal server: forms, validation, verification outcomes, tokens, and that no
personal data reaches a workflow history."""

from __future__ import annotations

import copy
import json
import logging
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession
from temporalio.client import Client

from api.logs import ACCESS_LOGGER, RedactTokens
from api.openapi import openapi_document
from ramp.config import Settings
from ramp.db.tables import ComplianceRecord, OnboardingSubmission
from ramp.db.types import utcnow
from ramp.onboarding import reuse
from ramp.onboarding.forms import FORMS, SUBMISSION_MODELS
from ramp.onboarding.verification import sandbox_verdict
from ramp.origins import (
    InvalidOrigin,
    content_security_policy,
    normalize_origin,
    origin_allowed,
)
from ramp.security.encryption import SecretBox
from ramp.security.tokens import TokenService
from tests.helpers.cli import ramp_in_process as ramp
from tests.helpers.onboarding import (
    DOCUMENT_NUMBER,
    FIRST_NAME,
    LAST_NAME,
    TERMS,
    document,
    history_json,
    kyc_basic,
    onboarding,
    png,
    source_of_funds,
    start_onboarding,
    step,
    submit,
)
from tests.helpers.openapi import conforms
from tests.helpers.payments import (
    ACH,
    SEPA,
    create_intent,
    get_intent,
    register_accounts,
    step_outcome,
    step_status,
    wait_for_intent,
    wallet,
)
from tests.helpers.projects import ProjectCredentials, bearer, make_customer

pytestmark = pytest.mark.usefixtures("worker")


async def test_a_customer_completes_every_step_and_gets_deposit_instructions(
    client: httpx.AsyncClient, customer: dict[str, Any], temporal_client: Client
) -> None:
    token = customer["access_token"]
    intent_id, link = await start_onboarding(client, token, autoExecute=True)
    view = await onboarding(client, intent_id, link)
    conforms(openapi_document(), "OnboardingResource", view)
    assert [s["code"] for s in view["steps"]] == [
        "TERMS_OF_SERVICE",
        "KYC_BASIC",
        "SOURCE_OF_FUNDS",
    ]
    assert view["currentStepCode"] == "TERMS_OF_SERVICE"
    assert view["provider"] == {"code": "sandbox_atlas", "name": "Atlas Payments (sandbox)"}
    assert view["transferAmount"] == {"amount": "100.00", "currencyCode": "USD"}
    assert view["transaction"] is None
    terms = step(view, "TERMS_OF_SERVICE")
    assert terms["terms"]["version"] == "2026-01"
    assert terms["terms"]["paragraphs"]
    assert [f["name"] for f in terms["fields"]] == ["accepted"]
    kyc_fields = {f["name"]: f for f in step(view, "KYC_BASIC")["fields"]}
    assert kyc_fields["idDocument.file"]["accept"] == ["image/png", "image/jpeg", "application/pdf"]
    assert kyc_fields["address.line2"]["required"] is False
    # Below the large-amount threshold, evidence of funds is optional.
    sof_fields = {f["name"]: f for f in step(view, "SOURCE_OF_FUNDS")["fields"]}
    assert sof_fields["evidence"]["required"] is False

    after_terms = await submit(client, intent_id, link, "TERMS_OF_SERVICE", TERMS)
    assert after_terms.status_code == 200, after_terms.text
    assert step(after_terms.json(), "TERMS_OF_SERVICE")["status"] == "COMPLETED"
    assert after_terms.json()["currentStepCode"] == "KYC_BASIC"

    after_kyc = await submit(client, intent_id, link, "KYC_BASIC", kyc_basic())
    assert after_kyc.status_code == 200, after_kyc.text
    assert after_kyc.json()["currentStepCode"] == "SOURCE_OF_FUNDS"

    done = await submit(client, intent_id, link, "SOURCE_OF_FUNDS", source_of_funds())
    assert done.status_code == 200, done.text
    final = done.json()
    conforms(openapi_document(), "OnboardingResource", final)
    assert final["planStatus"] == "COMPLETED"
    assert final["currentStepCode"] is None
    assert final["status"] == "PROCESSING"
    instruction = final["transaction"]["depositInstructions"][0]
    assert instruction["type"] == "BANK"
    assert instruction["instructions"]["reference"].startswith("RMP")
    assert instruction["qrCode"] is None

    # The intent as the API client reads it: no read-after-write gap.
    envelope = await get_intent(client, token, intent_id)
    assert envelope["intent"]["status"] == "PROCESSING"
    assert envelope["transaction"]["id"] == final["transaction"]["id"]
    steps = envelope["intent"]["compliancePlan"]["steps"]
    assert all(s["metadata"]["completedBy"] == "ONBOARDING" for s in steps)
    assert all("submittedAt" in s["metadata"] and "verifiedAt" in s["metadata"] for s in steps)

    # What the customer entered never enters the workflow's history.
    history = await history_json(temporal_client, intent_id)
    assert "submit_step" in history
    for secret in (FIRST_NAME, LAST_NAME, DOCUMENT_NUMBER, "1988-07-14", "Acme Corp"):
        assert secret not in history
    assert document()["data"][:24] not in history

    # Verified through onboarding, the requirements are on record for the next intent.
    accounts = (envelope["intent"]["src"]["id"], envelope["intent"]["dest"]["id"])
    second = await create_intent(client, token, accounts)
    assert second.json()["transaction"] is not None


async def test_submissions_are_stored_encrypted(
    client: httpx.AsyncClient, customer: dict[str, Any], db: AsyncSession, migrated: Settings
) -> None:
    intent_id, link = await start_onboarding(client, customer["access_token"])
    await submit(client, intent_id, link, "TERMS_OF_SERVICE", TERMS)
    response = await submit(client, intent_id, link, "KYC_BASIC", kyc_basic())
    assert response.status_code == 200, response.text
    rows = (
        await db.exec(
            select(OnboardingSubmission).where(OnboardingSubmission.intent_id == intent_id)
        )
    ).all()
    assert sorted(row.step_code for row in rows) == ["KYC_BASIC", "TERMS_OF_SERVICE"]
    kyc = next(row for row in rows if row.step_code == "KYC_BASIC")
    assert LAST_NAME not in kyc.payload_encrypted
    assert LAST_NAME in SecretBox.from_settings(migrated).decrypt(kyc.payload_encrypted)


async def test_a_step_filled_by_consented_data_completes_without_the_customer(
    client: httpx.AsyncClient, customer: dict[str, Any], db: AsyncSession
) -> None:
    token = customer["access_token"]
    intent_id, link = await start_onboarding(client, token)
    await submit(client, intent_id, link, "TERMS_OF_SERVICE", TERMS)
    verified = await submit(client, intent_id, link, "KYC_BASIC", kyc_basic())
    assert step(verified.json(), "KYC_BASIC")["status"] == "COMPLETED"
    # The same customer, a euro route: Meridian, whose plan also has KYC_BASIC.
    accounts = await register_accounts(
        client, token, "EUR", "USDC_ETHEREUM", copy.deepcopy(SEPA), wallet("USDC_ETHEREUM")
    )
    euro_id, euro_link = await start_onboarding(client, token, accounts=accounts)
    view = await onboarding(client, euro_id, euro_link)
    conforms(openapi_document(), "OnboardingResource", view)
    assert view["provider"]["code"] == "sandbox_meridian"
    [offer] = view["sharing"]
    assert offer["providerName"] == "Atlas Payments (sandbox)"
    assert offer["consent"] is None
    assert "KYC_BASIC.idDocument.file" in offer["fields"]
    # Terms are each provider's own: never offered.
    assert not [f for f in offer["fields"] if f.startswith("TERMS_OF_SERVICE")]
    answered = await client.post(
        f"/v1/onboarding/{euro_id}/consent",
        json={"providerAccountId": offer["providerAccountId"], "granted": True},
        headers=bearer(euro_link),
    )
    assert answered.status_code == 200, answered.text
    assert answered.json()["sharing"][0]["consent"] == "GRANTED"
    fields = step(answered.json(), "KYC_BASIC")["fields"]
    assert all(f["prefilledFrom"] == "Atlas Payments (sandbox)" for f in fields if f["required"])
    # Meridian's terms accepted, its KYC_BASIC is submitted with Atlas's data at once.
    after_terms = await submit(client, euro_id, euro_link, "TERMS_OF_SERVICE", TERMS)
    assert after_terms.status_code == 200, after_terms.text
    assert step(after_terms.json(), "KYC_BASIC")["status"] == "COMPLETED"
    assert after_terms.json()["currentStepCode"] == "PROOF_OF_ADDRESS"
    kept = (
        await db.exec(select(OnboardingSubmission).where(OnboardingSubmission.intent_id == euro_id))
    ).all()
    assert sorted(row.step_code for row in kept) == ["KYC_BASIC", "TERMS_OF_SERVICE"]


async def test_consent_is_asked_only_for_data_another_provider_holds(
    client: httpx.AsyncClient, customer: dict[str, Any]
) -> None:
    intent_id, link = await start_onboarding(client, customer["access_token"])
    view = await onboarding(client, intent_id, link)
    assert view["sharing"] == []
    answered = await client.post(
        f"/v1/onboarding/{intent_id}/consent",
        json={"providerAccountId": "no-such-account", "granted": True},
        headers=bearer(link),
    )
    assert answered.status_code == 404, answered.text


async def test_crypto_deposits_come_with_a_qr_code(
    client: httpx.AsyncClient, customer: dict[str, Any]
) -> None:
    token = customer["access_token"]
    accounts = await register_accounts(
        client,
        token,
        src="USDC_ETHEREUM",
        dest="USD",
        source=wallet("USDC_ETHEREUM"),
        destination=dict(ACH),
    )
    intent_id, link = await start_onboarding(client, token, accounts=accounts, autoExecute=True)
    await submit(client, intent_id, link, "TERMS_OF_SERVICE", TERMS)
    await submit(client, intent_id, link, "KYC_BASIC", kyc_basic())
    done = await submit(client, intent_id, link, "SOURCE_OF_FUNDS", source_of_funds())
    instruction = done.json()["transaction"]["depositInstructions"][0]
    assert instruction["type"] == "CRYPTO"
    assert instruction["qrCode"].startswith("data:image/svg+xml")
    assert instruction["instructions"]["address"].startswith("0x")


async def test_without_auto_execute_the_plan_completes_without_a_transaction(
    client: httpx.AsyncClient, customer: dict[str, Any]
) -> None:
    intent_id, link = await start_onboarding(client, customer["access_token"])
    await submit(client, intent_id, link, "TERMS_OF_SERVICE", TERMS)
    await submit(client, intent_id, link, "KYC_BASIC", kyc_basic())
    done = (await submit(client, intent_id, link, "SOURCE_OF_FUNDS", source_of_funds())).json()
    assert done["planStatus"] == "COMPLETED"
    assert done["status"] == "PENDING"
    assert done["transaction"] is None


async def test_invalid_submissions_are_refused_field_by_field(
    client: httpx.AsyncClient, customer: dict[str, Any], db: AsyncSession
) -> None:
    intent_id, link = await start_onboarding(client, customer["access_token"])

    def pointers(response: httpx.Response) -> dict[str, str]:
        assert response.status_code == 400, response.text
        body = response.json()
        assert body["code"] == "VALIDATION_ERROR"
        return {f["pointer"]: f["reason"] for f in body["details"]["fields"]}

    refused = pointers(await submit(client, intent_id, link, "TERMS_OF_SERVICE", {}))
    assert set(refused) == {"/accepted", "/termsVersion"}
    refused = pointers(
        await submit(client, intent_id, link, "TERMS_OF_SERVICE", {**TERMS, "accepted": False})
    )
    assert "must be accepted" in refused["/accepted"]
    refused = pointers(
        await submit(client, intent_id, link, "TERMS_OF_SERVICE", {**TERMS, "termsVersion": "x"})
    )
    assert "/termsVersion" in refused
    assert (await submit(client, intent_id, link, "TERMS_OF_SERVICE", TERMS)).status_code == 200

    bad = kyc_basic(dateOfBirth="2020-01-01", nationality="XX", extra="field")
    bad["address"] = {**bad["address"], "postalCode": ""}
    bad["idDocument"] = {
        **bad["idDocument"],
        "file": document(b"GIF89a not a png", content_type="image/png"),
    }
    refused = pointers(await submit(client, intent_id, link, "KYC_BASIC", bad))
    assert "at least 18" in refused["/dateOfBirth"]
    assert "ISO 3166-1" in refused["/nationality"]
    assert "/extra" in refused
    assert "/address/postalCode" in refused
    assert "not image/png" in refused["/idDocument/file"]
    wrong_type = kyc_basic()
    wrong_type["idDocument"]["file"] = {**document(), "contentType": "image/gif"}
    refused = pointers(await submit(client, intent_id, link, "KYC_BASIC", wrong_type))
    assert "/idDocument/file/contentType" in refused
    not_base64 = kyc_basic()
    not_base64["idDocument"]["file"] = {**document(), "data": "%%%%"}
    refused = pointers(await submit(client, intent_id, link, "KYC_BASIC", not_base64))
    assert "base64" in refused["/idDocument/file/data"]
    # A number is not a string: nothing is coerced.
    refused = pointers(await submit(client, intent_id, link, "KYC_BASIC", kyc_basic(lastName=7)))
    assert "/lastName" in refused

    # Refused submissions store nothing: only the accepted terms are on file.
    stored = (
        await db.exec(
            select(OnboardingSubmission.step_code).where(
                OnboardingSubmission.intent_id == intent_id
            )
        )
    ).all()
    assert list(stored) == ["TERMS_OF_SERVICE"]


async def test_large_amounts_need_evidence_of_funds(
    client: httpx.AsyncClient, customer: dict[str, Any]
) -> None:
    intent_id, link = await start_onboarding(client, customer["access_token"], amount="15000.00")
    view = await onboarding(client, intent_id, link)
    evidence = next(f for f in step(view, "SOURCE_OF_FUNDS")["fields"] if f["name"] == "evidence")
    assert evidence["required"] is True
    await submit(client, intent_id, link, "TERMS_OF_SERVICE", TERMS)
    await submit(client, intent_id, link, "KYC_BASIC", kyc_basic())
    refused = await submit(client, intent_id, link, "SOURCE_OF_FUNDS", source_of_funds())
    assert refused.status_code == 400, refused.text
    assert refused.json()["details"]["fields"][0]["pointer"] == "/evidence"
    pdf = document(b"%PDF-1.7\n%sandbox payslip\n", content_type="application/pdf")
    accepted = await submit(
        client, intent_id, link, "SOURCE_OF_FUNDS", source_of_funds(evidence=pdf)
    )
    assert accepted.status_code == 200, accepted.text
    assert accepted.json()["planStatus"] == "COMPLETED"


async def test_documents_may_exceed_the_general_body_limit_up_to_their_own(
    client: httpx.AsyncClient, customer: dict[str, Any]
) -> None:
    intent_id, link = await start_onboarding(client, customer["access_token"])
    await submit(client, intent_id, link, "TERMS_OF_SERVICE", TERMS)
    big = kyc_basic()
    big["idDocument"]["file"] = document(png(padding=200_000))  # over 64 KiB of JSON
    accepted = await submit(client, intent_id, link, "KYC_BASIC", big)
    assert accepted.status_code == 200, accepted.text
    too_big = await client.post(
        f"/v1/onboarding/{intent_id}/steps/SOURCE_OF_FUNDS",
        content=b"{" + b" " * (7 * 1024 * 1024) + b"}",
        headers={**bearer(link), "Content-Type": "application/json"},
    )
    assert too_big.status_code == 413
    # Elsewhere the general limit still applies.
    elsewhere = await client.post(
        "/v1/customers",
        content=b"{" + b" " * (100 * 1024) + b"}",
        headers={"Content-Type": "application/json"},
    )
    assert elsewhere.status_code == 413


async def test_only_the_current_step_can_be_submitted(
    client: httpx.AsyncClient, customer: dict[str, Any], db: AsyncSession
) -> None:
    intent_id, link = await start_onboarding(client, customer["access_token"])
    ahead = await submit(client, intent_id, link, "KYC_BASIC", kyc_basic())
    assert ahead.status_code == 409
    assert ahead.json()["code"] == "STEP_NOT_CURRENT"
    assert ahead.json()["details"]["currentStepCode"] == "TERMS_OF_SERVICE"
    unknown = await submit(client, intent_id, link, "KYC_ENHANCED", {})
    assert unknown.status_code == 404
    await submit(client, intent_id, link, "TERMS_OF_SERVICE", TERMS)
    again = await submit(client, intent_id, link, "TERMS_OF_SERVICE", TERMS)
    assert again.status_code == 409
    assert again.json()["code"] == "STEP_NOT_CURRENT"
    # Refused submissions keep no personal data: only the accepted one is stored.
    stored = (await db.exec(select(OnboardingSubmission.step_code))).all()
    assert stored == ["TERMS_OF_SERVICE"]


async def test_manual_review_waits_for_the_verification(
    client: httpx.AsyncClient, customer: dict[str, Any], project: ProjectCredentials
) -> None:
    intent_id, link = await start_onboarding(client, customer["access_token"])
    await submit(client, intent_id, link, "TERMS_OF_SERVICE", TERMS)
    review = await submit(client, intent_id, link, "KYC_BASIC", kyc_basic(last_name="Review"))
    assert review.status_code == 200, review.text
    assert step(review.json(), "KYC_BASIC")["status"] == "SUBMITTED"
    assert review.json()["currentStepCode"] == "KYC_BASIC"
    twice = await submit(client, intent_id, link, "KYC_BASIC", kyc_basic())
    assert twice.status_code == 409
    assert twice.json()["code"] == "INVALID_TRANSITION"
    # The reviewer (in the sandbox: this endpoint) decides later.
    verified = await step_outcome(client, project, intent_id, "KYC_BASIC", "VERIFIED")
    assert verified.status_code == 202
    await wait_for_intent(
        client,
        customer["access_token"],
        intent_id,
        lambda body: step_status(body, "KYC_BASIC") == "COMPLETED",
    )
    view = await onboarding(client, intent_id, link)
    assert step(view, "KYC_BASIC")["status"] == "COMPLETED"
    assert view["currentStepCode"] == "SOURCE_OF_FUNDS"


async def test_a_rejection_fails_the_intent_with_its_reason(
    client: httpx.AsyncClient, customer: dict[str, Any]
) -> None:
    token = customer["access_token"]
    intent_id, link = await start_onboarding(client, token)
    await submit(client, intent_id, link, "TERMS_OF_SERVICE", TERMS)
    rejected = await submit(client, intent_id, link, "KYC_BASIC", kyc_basic(last_name="reject"))
    assert rejected.status_code == 200, rejected.text
    view = rejected.json()
    assert view["status"] == "FAILED"
    assert view["planStatus"] == "FAILED"
    assert step(view, "KYC_BASIC") | {"status": "REJECTED"} == step(view, "KYC_BASIC")
    assert step(view, "KYC_BASIC")["reason"] == "identity could not be verified"
    envelope = await get_intent(client, token, intent_id)
    assert envelope["intent"]["status"] == "FAILED"
    reason = envelope["intent"]["failureReason"]
    assert reason == "KYC_BASIC rejected: identity could not be verified"
    closed = await submit(client, intent_id, link, "SOURCE_OF_FUNDS", source_of_funds())
    assert closed.status_code == 409
    assert closed.json()["code"] == "COMPLIANCE_CLOSED"


async def test_the_token_names_one_intent(
    client: httpx.AsyncClient,
    customer: dict[str, Any],
    project: ProjectCredentials,
    migrated: Settings,
) -> None:
    token = customer["access_token"]
    intent_id, link = await start_onboarding(client, token)
    other = await make_customer(client, project, "someone-else")
    other_id, other_link = await start_onboarding(client, other["access_token"])

    missing = await client.get(f"/v1/onboarding/{intent_id}")
    assert missing.status_code == 401
    assert missing.json()["code"] == "MISSING_CREDENTIALS"
    assert missing.headers["WWW-Authenticate"].startswith("Bearer")
    customer_token = await client.get(f"/v1/onboarding/{intent_id}", headers=bearer(token))
    assert customer_token.status_code == 401
    assert customer_token.json()["code"] == "INVALID_TOKEN"
    foreign = await client.get(f"/v1/onboarding/{intent_id}", headers=bearer(other_link))
    assert foreign.status_code == 404
    assert foreign.json()["code"] == "NOT_FOUND"
    foreign_submit = await submit(client, other_id, link, "TERMS_OF_SERVICE", TERMS)
    assert foreign_submit.status_code == 404

    expired = TokenService.from_settings(migrated).issue_onboarding_token(
        intent_id, customer["id"], timedelta(seconds=-5)
    )
    late = await client.get(f"/v1/onboarding/{intent_id}", headers=bearer(expired))
    assert late.status_code == 401
    assert late.json()["code"] == "TOKEN_EXPIRED"
    late_submit = await submit(client, intent_id, expired, "TERMS_OF_SERVICE", TERMS)
    assert late_submit.status_code == 401


async def test_projects_choose_the_origins_that_may_embed_the_page(
    client: httpx.AsyncClient, project: ProjectCredentials, customer: dict[str, Any]
) -> None:
    path = "/v1/project/onboarding-origins"
    assert (await client.get(path, headers=project.basic)).json() == {"origins": []}
    assert (await client.get(path)).status_code == 401
    saved = await client.put(
        path,
        json={"origins": ["https://App.Example.com:443", "http://localhost:*"]},
        headers=project.basic,
    )
    assert saved.status_code == 200, saved.text
    assert saved.json() == {"origins": ["https://app.example.com", "http://localhost:*"]}
    refused = await client.put(
        path,
        json={"origins": ["https://ok.example.com", "https://app.example.com/path"]},
        headers=project.basic,
    )
    assert refused.status_code == 400
    assert refused.json()["details"]["fields"][0]["pointer"] == "/origins/1"
    assert (await client.get(path, headers=project.basic)).json()["origins"] == [
        "https://app.example.com",
        "http://localhost:*",
    ]

    intent_id, link = await start_onboarding(client, customer["access_token"])
    view = await onboarding(client, intent_id, link)
    assert view["embedOrigins"] == ["https://app.example.com", "http://localhost:*"]
    page = await client.get(f"/onboarding/{intent_id}", params={"token": link})
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    policy = page.headers["content-security-policy"]
    assert "frame-ancestors https://app.example.com http://localhost:*" in policy
    assert "script-src 'self'" in policy
    assert page.headers["x-content-type-options"] == "nosniff"
    assert page.headers["referrer-policy"] == "no-referrer"


async def test_the_page_answers_bad_links_with_an_error_page(
    client: httpx.AsyncClient, customer: dict[str, Any], migrated: Settings
) -> None:
    intent_id, _ = await start_onboarding(client, customer["access_token"])
    expired = TokenService.from_settings(migrated).issue_onboarding_token(
        intent_id, customer["id"], timedelta(seconds=-5)
    )
    late = await client.get(f"/onboarding/{intent_id}", params={"token": expired})
    assert late.status_code == 401
    assert "This link has expired" in late.text
    assert "frame-ancestors" in late.headers["content-security-policy"]
    wrong = await client.get(f"/onboarding/{intent_id}", params={"token": "not-a-token"})
    assert wrong.status_code == 401
    assert "This link is not valid" in wrong.text
    # An id that names nothing, with a token: the link is not valid (without a token the
    # page is served alike for every id: tests/test_onboarding_link_privacy.py).
    unknown = await client.get(
        "/onboarding/00000000-0000-0000-0000-000000000000", params={"token": "not-a-token"}
    )
    assert unknown.status_code == 401
    assert "This link is not valid" in unknown.text
    script = await client.get("/onboarding/assets/onboarding.js")
    assert script.status_code == 200
    assert script.headers["x-content-type-options"] == "nosniff"
    assert (await client.get("/onboarding/assets/missing.js")).status_code == 404


def test_every_form_field_is_a_field_of_its_submission_model() -> None:
    for code, fields in FORMS.items():
        schema = SUBMISSION_MODELS[code].model_json_schema(by_alias=True)
        defs = schema.get("$defs", {})
        for field in fields:
            node = schema
            for part in field.name.split("."):
                assert part in node["properties"], (code, field.name)
                node = node["properties"][part]
                ref = node.get("$ref") or next(
                    (o["$ref"] for o in node.get("anyOf", []) if "$ref" in o), None
                )
                if ref:
                    node = defs[ref.rsplit("/", 1)[1]]


def test_sandbox_verdicts_follow_the_documented_test_values() -> None:
    assert sandbox_verdict("KYC_BASIC", {"lastName": "Morgan"}).outcome == "VERIFIED"
    assert sandbox_verdict("KYC_BASIC", {"lastName": " REJECT "}).outcome == "REJECTED"
    assert sandbox_verdict("KYC_BASIC", {"lastName": "Review"}).outcome == "SUBMITTED"
    assert sandbox_verdict("SOURCE_OF_FUNDS", {"description": "reject"}).outcome == "REJECTED"
    assert sandbox_verdict("PROOF_OF_ADDRESS", {"issuer": "Review"}).outcome == "SUBMITTED"
    assert sandbox_verdict("KYC_ENHANCED", {"occupation": "Reject"}).reason
    assert sandbox_verdict("TERMS_OF_SERVICE", {"accepted": True}).outcome == "VERIFIED"


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("https://App.example.com", "https://app.example.com"),
        ("https://app.example.com:443", "https://app.example.com"),
        ("http://localhost:*", "http://localhost:*"),
        ("http://127.0.0.1:5173", "http://127.0.0.1:5173"),
    ],
)
def test_origins_are_normalised(given: str, expected: str) -> None:
    assert normalize_origin(given) == expected


@pytest.mark.parametrize(
    "bad",
    [
        "app.example.com",
        "https://app.example.com/",
        "https://app.example.com/path",
        "ftp://app.example.com",
        "https://user@app.example.com",
        "https://*.example.com",
        "https://app.example.com:*",
        "https://app.example.com:70000",
        "https://-bad-.example.com",
        "http://[::1]:3000",
        "*",
    ],
)
def test_bad_origins_are_refused(bad: str) -> None:
    with pytest.raises(InvalidOrigin):
        normalize_origin(bad)


def test_production_projects_need_https() -> None:
    with pytest.raises(InvalidOrigin):
        normalize_origin("http://app.example.com", production=True)
    assert normalize_origin("https://app.example.com", production=True)


def test_origin_matching_and_the_policy() -> None:
    allowed = ["https://app.example.com", "http://localhost:*"]
    assert origin_allowed("https://app.example.com", allowed)
    assert origin_allowed("http://localhost:5173", allowed)
    assert not origin_allowed("http://localhost.evil.com", allowed)
    assert not origin_allowed("https://app.example.com.evil.com", allowed)
    assert not origin_allowed("http://127.0.0.1:5173", allowed)
    policy = content_security_policy(allowed)
    assert "frame-ancestors https://app.example.com http://localhost:*" in policy
    assert "'unsafe-inline'" not in policy


def test_the_cli_manages_the_embedding_origins(tmp_path: Path) -> None:
    created = ramp("project", "create", "--name", "Embeds", "--data-dir", str(tmp_path))
    assert created.returncode == 0, created.stderr
    project_id = json.loads(created.stdout)["projectId"]
    where = ("--project-id", project_id, "--data-dir", str(tmp_path))
    allowed = ramp(
        "project",
        "allow-origin",
        *where,
        "--origin",
        "https://App.example.com",
        "--origin",
        "http://localhost:*",
    )
    assert allowed.returncode == 0, allowed.stderr
    origins = ["https://app.example.com", "http://localhost:*"]
    assert json.loads(allowed.stdout)["onboardingOrigins"] == origins
    removed = ramp("project", "disallow-origin", *where, "--origin", "https://app.example.com")
    assert json.loads(removed.stdout)["onboardingOrigins"] == ["http://localhost:*"]
    refused = ramp("project", "allow-origin", *where, "--origin", "https://app.example.com/x")
    assert refused.returncode == 1
    assert "is not an origin" in refused.stderr
    assert "Traceback" not in refused.stderr


def test_access_logs_never_hold_an_onboarding_token(client: httpx.AsyncClient) -> None:
    # The filter create_app installs on uvicorn's access logger, given a record shaped
    # like uvicorn's: (client, method, path with query, HTTP version, status).
    logger = logging.getLogger(ACCESS_LOGGER)
    (installed,) = [f for f in logger.filters if isinstance(f, RedactTokens)]
    record = logging.LogRecord(
        ACCESS_LOGGER,
        logging.INFO,
        __file__,
        1,
        '%s - "%s %s HTTP/%s" %d',
        ("127.0.0.1:5000", "GET", "/onboarding/i-1?token=eyJhbGci.secret.sig&x=1", "1.1", 200),
        None,
    )
    assert installed.filter(record)
    line = record.getMessage()
    assert "secret" not in line
    assert "/onboarding/i-1?token=[redacted]&x=1" in line


def test_a_proof_of_address_older_than_a_year_is_not_offered_again() -> None:
    def kept(issued: str) -> ComplianceRecord:
        return ComplianceRecord(
            customer_id="c", provider_account_id="a", requirement_code="PROOF_OF_ADDRESS",
            provider_code="sandbox_meridian", origin=reuse.ONBOARDING,
            fields={"issueDate": issued}, recorded_at=utcnow(),
        )  # fmt: skip

    today = date.today()
    assert reuse._still_valid(kept((today - timedelta(days=30)).isoformat()))
    assert not reuse._still_valid(kept((today - timedelta(days=400)).isoformat()))
    assert reuse.overlay(
        {"address.city": "Berlin", "firstName": "Zoë"}, {"address": {"line1": "x"}}
    ) == {
        "address": {"city": "Berlin", "line1": "x"},
        "firstName": "Zoë",
    }
