"""POST /intent and its workflow, through HTTP, the real Temporal dev server and the database.

One test per row of the spec's processing order and state table, plus the decisions
that fill what it leaves open (amounts, idempotency, pagination, isolation).
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any

import httpx
import pytest
from sqlmodel.ext.asyncio.session import AsyncSession
from temporalio.client import Client, WorkflowExecutionStatus

from ramp.catalog import provider_by_code
from ramp.config import Settings
from ramp.intents.lifecycle import workflow_id
from ramp.intents.service import intent_id_for_key
from ramp.security.tokens import CustomerClaims, TokenService
from tests.helpers.errors import assert_envelope
from tests.helpers.payments import (
    ACH,
    ATLAS,
    BEACON,
    BTC_ADDRESS,
    SEPA,
    WIRE,
    bank,
    complete_onboarding,
    create_intent,
    get_intent,
    provider_event,
    register_accounts,
    step_outcome,
    step_status,
    wait_for_intent,
    wallet,
)
from tests.helpers.projects import ProjectCredentials, bearer, make_customer, make_project
from workflows.intents import IntentWorkflow

pytestmark = pytest.mark.usefixtures("worker")

Envelope = dict[str, Any]


def provider_id(code: str) -> str:
    provider = provider_by_code(code)
    assert provider is not None
    return provider.id


def parse_time(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


async def onboarded(
    client: httpx.AsyncClient, project: ProjectCredentials, token: str, accounts: tuple[str, str]
) -> None:
    """Takes the customer through onboarding once, so later intents auto-complete."""
    response = await create_intent(client, token, accounts)
    assert response.status_code == 201, response.text
    await complete_onboarding(client, project, token, response.json()["intent"]["id"])


async def returning_intent(
    client: httpx.AsyncClient,
    project: ProjectCredentials,
    token: str,
    accounts: tuple[str, str] | None = None,
) -> Envelope:
    """An intent of an already onboarded customer: the auto-complete path."""
    accounts = accounts or await register_accounts(client, token)
    await onboarded(client, project, token, accounts)
    response = await create_intent(client, token, accounts)
    assert response.status_code == 201, response.text
    body: Envelope = response.json()
    return body


# --- the two creation outcomes of the state table -------------------------------------


async def test_first_intent_goes_to_onboarding(
    client: httpx.AsyncClient, customer: dict[str, Any]
) -> None:
    token = customer["access_token"]
    accounts = await register_accounts(client, token)
    response = await create_intent(
        client, token, accounts, amount="250.50", redirectUrl="https://app.example.com/done"
    )
    assert response.status_code == 201, response.text
    body = response.json()
    assert set(body) == {"intent", "frontendUrl", "workflowId", "transaction"}
    intent = body["intent"]
    assert body["transaction"] is None
    assert body["workflowId"] == workflow_id(intent["id"])
    assert re.fullmatch(
        rf"http://testserver/onboarding/{intent['id']}\?token=[\w.-]+", body["frontendUrl"]
    )
    assert intent["status"] == "PENDING"
    assert intent["customerId"] == customer["id"]
    assert intent["src"]["id"] == accounts[0]
    assert intent["dest"]["id"] == accounts[1]
    assert intent["src"]["currency"]["code"] == "USD"
    assert intent["transferAmount"] == {"amount": "250.50", "currencyCode": "USD"}
    assert intent["redirectUrl"] == "https://app.example.com/done"
    assert intent["autoExecute"] is False
    assert intent["failureReason"] is None
    created = parse_time(intent["createdAt"])
    assert parse_time(intent["expiredAt"]) - created == timedelta(hours=24)
    mm_plan = intent["mmPlan"]
    assert mm_plan["type"] == "ONRAMP"
    assert mm_plan["providerAccount"]["providerCode"] == ATLAS
    assert mm_plan["providerAccount"]["id"] == mm_plan["providerAccountId"]
    plan = intent["compliancePlan"]
    assert plan["status"] == "PENDING"
    # Atlas: TERMS_OF_SERVICE <- KYC_BASIC <- SOURCE_OF_FUNDS, in dependency order.
    assert [step["code"] for step in plan["steps"]] == [
        "TERMS_OF_SERVICE",
        "KYC_BASIC",
        "SOURCE_OF_FUNDS",
    ]
    assert [step["dependsOn"] for step in plan["steps"]] == [
        [],
        ["TERMS_OF_SERVICE"],
        ["KYC_BASIC"],
    ]
    assert {step["status"] for step in plan["steps"]} == {"PENDING"}
    assert all(step["complianceEdge"]["id"] for step in plan["steps"])
    assert plan["currentStepCode"] == intent["currentRequirementCode"] == "TERMS_OF_SERVICE"
    # What POST returned is what GET reads from the projection.
    assert (await get_intent(client, token, intent["id"]))["intent"] == intent


async def test_returning_customer_auto_completes_with_deposit_instructions(
    client: httpx.AsyncClient, project: ProjectCredentials, customer: dict[str, Any]
) -> None:
    body = await returning_intent(client, project, customer["access_token"])
    intent = body["intent"]
    assert body["frontendUrl"] is None
    assert body["workflowId"] is None
    assert intent["compliancePlan"]["status"] == "COMPLETED"
    assert intent["compliancePlan"]["currentStepCode"] is None
    assert intent["currentRequirementCode"] is None
    assert all(
        step["status"] == "COMPLETED" and step["metadata"]["completedBy"] == "RECORD"
        for step in intent["compliancePlan"]["steps"]
    )
    assert intent["status"] == "PROCESSING"
    transaction = body["transaction"]
    assert transaction["intentId"] == intent["id"]
    assert transaction["status"] == "PENDING"
    assert transaction["providerReference"].startswith("atlas_")
    assert transaction["lastActivityAt"] == transaction["createdAt"]
    [instruction] = transaction["context"]["depositInstructions"]
    assert instruction["type"] == "BANK"
    assert instruction["encoding"] == "DISPLAY"
    details = instruction["instructions"]
    assert details["rail"] == "ACH"
    assert details["amount"] == "100.00"
    assert details["currencyCode"] == "USD"
    assert set(details["accountIdentifier"]) == {"routingNumber", "accountNumber"}
    assert re.fullmatch(r"RMP[A-Z2-7]{12}", details["reference"])


async def test_off_ramp_deposit_instructions_name_the_chain_and_smallest_unit(
    client: httpx.AsyncClient, project: ProjectCredentials, customer: dict[str, Any]
) -> None:
    token = customer["access_token"]
    accounts = await register_accounts(
        client, token, "USDC_ETHEREUM", "USD", wallet("USDC_ETHEREUM"), bank(ACH)
    )
    await onboarded(client, project, token, accounts)
    response = await create_intent(client, token, accounts, amount="12.5")
    assert response.status_code == 201, response.text
    body = response.json()
    assert body["intent"]["mmPlan"]["type"] == "OFFRAMP"
    [instruction] = body["transaction"]["context"]["depositInstructions"]
    assert instruction["type"] == "CRYPTO"
    details = instruction["instructions"]
    assert re.fullmatch(r"0x[0-9a-fA-F]{40}", details["address"])
    assert details["chain"] == "ETHEREUM"
    assert details["chainId"] == 1
    assert details["amount"] == "12.5"
    assert details["amountInSmallestUnit"] == "12500000"
    assert details["tokenContract"] == "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48"


async def test_satisfied_requirements_are_per_provider(
    client: httpx.AsyncClient, project: ProjectCredentials, customer: dict[str, Any]
) -> None:
    token = customer["access_token"]
    accounts = await register_accounts(client, token)
    await onboarded(client, project, token, accounts)  # with Atlas
    response = await create_intent(client, token, accounts, providerId=provider_id(BEACON))
    body = response.json()
    assert body["intent"]["mmPlan"]["providerAccount"]["providerCode"] == BEACON
    assert body["transaction"] is None
    assert body["intent"]["compliancePlan"]["currentStepCode"] == "TERMS_OF_SERVICE"


# --- onboarding -----------------------------------------------------------------------


async def test_onboarding_advances_step_by_step(
    client: httpx.AsyncClient, project: ProjectCredentials, customer: dict[str, Any]
) -> None:
    token = customer["access_token"]
    intent_id = (await create_intent(client, token, await register_accounts(client, token))).json()[
        "intent"
    ]["id"]
    response = await step_outcome(client, project, intent_id, "TERMS_OF_SERVICE", "SUBMITTED")
    assert response.status_code == 202, response.text
    assert response.json() == {
        "intentId": intent_id,
        "stepCode": "TERMS_OF_SERVICE",
        "outcome": "SUBMITTED",
    }
    body = await wait_for_intent(
        client, token, intent_id, lambda b: step_status(b, "TERMS_OF_SERVICE") == "SUBMITTED"
    )
    assert body["intent"]["compliancePlan"]["currentStepCode"] == "TERMS_OF_SERVICE"
    assert "submittedAt" in body["intent"]["compliancePlan"]["steps"][0]["metadata"]
    # Only the current step can move.
    early = await step_outcome(client, project, intent_id, "KYC_BASIC", "VERIFIED")
    assert early.status_code == 409
    assert early.json()["code"] == "STEP_NOT_CURRENT"
    await step_outcome(client, project, intent_id, "TERMS_OF_SERVICE", "VERIFIED")
    body = await wait_for_intent(
        client, token, intent_id, lambda b: step_status(b, "TERMS_OF_SERVICE") == "COMPLETED"
    )
    plan = body["intent"]["compliancePlan"]
    assert plan["currentStepCode"] == body["intent"]["currentRequirementCode"] == "KYC_BASIC"
    assert plan["steps"][0]["metadata"]["completedBy"] == "ONBOARDING"
    again = await step_outcome(client, project, intent_id, "TERMS_OF_SERVICE", "VERIFIED")
    assert again.status_code == 409


async def test_rejected_requirement_fails_the_intent_with_the_reason_in_the_step(
    client: httpx.AsyncClient,
    project: ProjectCredentials,
    customer: dict[str, Any],
    temporal_client: Client,
) -> None:
    token = customer["access_token"]
    intent_id = (await create_intent(client, token, await register_accounts(client, token))).json()[
        "intent"
    ]["id"]
    await step_outcome(client, project, intent_id, "TERMS_OF_SERVICE", "VERIFIED")
    await wait_for_intent(
        client, token, intent_id, lambda b: step_status(b, "TERMS_OF_SERVICE") == "COMPLETED"
    )
    response = await step_outcome(
        client, project, intent_id, "KYC_BASIC", "REJECTED", "document expired"
    )
    assert response.status_code == 202
    body = await wait_for_intent(
        client, token, intent_id, lambda b: b["intent"]["status"] != "PENDING"
    )
    intent = body["intent"]
    assert intent["status"] == "FAILED"
    assert intent["failureReason"] == "KYC_BASIC rejected: document expired"
    assert intent["compliancePlan"]["status"] == "FAILED"
    kyc = intent["compliancePlan"]["steps"][1]
    assert kyc["status"] == "REJECTED"
    assert kyc["metadata"]["reason"] == "document expired"
    handle = temporal_client.get_workflow_handle_for(IntentWorkflow.run, workflow_id(intent_id))
    outcome = await handle.result()
    assert outcome.status == "FAILED"
    late = await step_outcome(client, project, intent_id, "KYC_BASIC", "VERIFIED")
    assert late.status_code == 409
    assert late.json()["code"] == "COMPLIANCE_CLOSED"
    execute = await client.post(f"/v1/intent/{intent_id}/transaction", headers=bearer(token))
    assert execute.status_code == 400
    assert execute.json()["code"] == "INTENT_CLOSED"


async def test_transaction_after_onboarding_once_only(
    client: httpx.AsyncClient, project: ProjectCredentials, customer: dict[str, Any]
) -> None:
    token = customer["access_token"]
    intent_id = (await create_intent(client, token, await register_accounts(client, token))).json()[
        "intent"
    ]["id"]
    early = await client.post(f"/v1/intent/{intent_id}/transaction", headers=bearer(token))
    assert early.status_code == 400
    assert early.json()["code"] == "COMPLIANCE_NOT_COMPLETE"
    completed = await complete_onboarding(client, project, token, intent_id)
    assert completed["intent"]["compliancePlan"]["status"] == "COMPLETED"
    # Without autoExecute the workflow waits for the client.
    assert completed["transaction"] is None
    assert completed["intent"]["status"] == "PENDING"
    response = await client.post(
        f"/v1/intent/{intent_id}/transaction", json={}, headers=bearer(token)
    )
    assert response.status_code == 201, response.text
    body = response.json()
    assert set(body) == {"intent", "frontendUrl", "workflowId", "transaction"}
    assert body["transaction"]["status"] == "PENDING"
    assert body["intent"]["status"] == "PROCESSING"
    again = await client.post(f"/v1/intent/{intent_id}/transaction", headers=bearer(token))
    assert again.status_code == 400
    assert again.json()["code"] == "TRANSACTION_EXISTS"
    assert again.json()["message"] == "transaction already exists for this intent"


async def test_transaction_of_an_auto_completed_intent_already_exists(
    client: httpx.AsyncClient, project: ProjectCredentials, customer: dict[str, Any]
) -> None:
    token = customer["access_token"]
    body = await returning_intent(client, project, token)
    response = await client.post(
        f"/v1/intent/{body['intent']['id']}/transaction", headers=bearer(token)
    )
    assert response.status_code == 400
    assert response.json()["message"] == "transaction already exists for this intent"


async def test_auto_execute_creates_the_transaction_when_onboarding_completes(
    client: httpx.AsyncClient, project: ProjectCredentials, customer: dict[str, Any]
) -> None:
    token = customer["access_token"]
    response = await create_intent(
        client, token, await register_accounts(client, token), autoExecute=True
    )
    body = response.json()
    assert body["intent"]["autoExecute"] is True
    assert body["transaction"] is None
    intent_id = body["intent"]["id"]
    await complete_onboarding(client, project, token, intent_id)
    done = await wait_for_intent(client, token, intent_id, lambda b: b["transaction"] is not None)
    assert done["intent"]["status"] == "PROCESSING"
    assert done["transaction"]["status"] == "PENDING"
    # Onboarding-path intents keep their hosted page and workflow id.
    assert done["frontendUrl"] is not None
    assert done["workflowId"] == workflow_id(intent_id)


async def test_an_execute_request_body_must_be_empty(
    client: httpx.AsyncClient, project: ProjectCredentials, customer: dict[str, Any]
) -> None:
    token = customer["access_token"]
    intent_id = (await create_intent(client, token, await register_accounts(client, token))).json()[
        "intent"
    ]["id"]
    response = await client.post(
        f"/v1/intent/{intent_id}/transaction", json={"amount": "1"}, headers=bearer(token)
    )
    assert response.status_code == 400
    assert response.json()["code"] == "VALIDATION_ERROR"


async def test_a_provider_refusal_keeps_the_intent_and_answers_502_on_execute(
    client: httpx.AsyncClient, project: ProjectCredentials, customer: dict[str, Any]
) -> None:
    token = customer["access_token"]
    accounts = await register_accounts(client, token)
    await onboarded(client, project, token, accounts)
    # Sandbox test value: the mock provider refuses amounts ending in .91.
    response = await create_intent(client, token, accounts, amount="100.91")
    assert response.status_code == 201, response.text
    body = response.json()
    assert body["transaction"] is None
    assert body["intent"]["status"] == "PENDING"
    assert body["intent"]["compliancePlan"]["status"] == "COMPLETED"
    execute = await client.post(
        f"/v1/intent/{body['intent']['id']}/transaction", headers=bearer(token)
    )
    assert execute.status_code == 502
    assert execute.json()["code"] == "PROVIDER_ERROR"
    after = await get_intent(client, token, body["intent"]["id"])
    assert after["transaction"] is None
    assert after["intent"]["status"] == "PENDING"


# --- transaction lifecycle -------------------------------------------------------------


async def test_provider_events_move_the_transaction_to_success(
    client: httpx.AsyncClient,
    project: ProjectCredentials,
    customer: dict[str, Any],
    temporal_client: Client,
) -> None:
    token = customer["access_token"]
    body = await returning_intent(client, project, token)
    intent_id = body["intent"]["id"]
    transaction_id = body["transaction"]["id"]
    last_activity = body["transaction"]["lastActivityAt"]
    for event, status in (
        ("DEPOSIT_RECEIVED", "IN_PROGRESS"),
        ("PAYOUT_SENT", "IN_PROGRESS"),
        ("SETTLED", "SUCCESS"),
    ):
        response = await provider_event(client, project, transaction_id, event)
        assert response.status_code == 202, response.text
        accepted = response.json()
        assert accepted["transactionId"] == transaction_id
        assert accepted["type"] == event
        body = await wait_for_intent(
            client,
            token,
            intent_id,
            lambda b, last=last_activity: b["transaction"]["lastActivityAt"] != last,  # type: ignore[misc]
        )
        assert body["transaction"]["status"] == status, (event, body)
        assert parse_time(body["transaction"]["lastActivityAt"]) >= parse_time(last_activity)
        last_activity = body["transaction"]["lastActivityAt"]
    assert body["intent"]["status"] == "COMPLETED", body
    outcome = await temporal_client.get_workflow_handle_for(
        IntentWorkflow.run, workflow_id(intent_id)
    ).result()
    assert outcome.status == "COMPLETED"
    late = await provider_event(client, project, transaction_id, "FAILED")
    assert late.status_code == 409
    assert late.json()["code"] == "INVALID_TRANSITION"


async def test_a_failed_transaction_fails_the_intent(
    client: httpx.AsyncClient, project: ProjectCredentials, customer: dict[str, Any]
) -> None:
    token = customer["access_token"]
    body = await returning_intent(client, project, token)
    transaction_id = body["transaction"]["id"]
    invalid = await provider_event(client, project, transaction_id, "SETTLED")
    assert invalid.status_code == 409
    assert invalid.json()["details"] == {"status": "PENDING", "event": "SETTLED"}
    await provider_event(client, project, transaction_id, "DEPOSIT_RECEIVED")
    await wait_for_intent(
        client, token, body["intent"]["id"], lambda b: b["transaction"]["status"] == "IN_PROGRESS"
    )
    await provider_event(client, project, transaction_id, "RETURNED", "beneficiary bank refused")
    done = await wait_for_intent(
        client, token, body["intent"]["id"], lambda b: b["intent"]["status"] != "PROCESSING"
    )
    assert done["intent"]["status"] == "FAILED"
    assert done["transaction"]["status"] == "FAILED"
    assert done["transaction"]["failureReason"] == "beneficiary bank refused"
    assert done["intent"]["failureReason"] == "transaction failed: beneficiary bank refused"


async def test_a_provider_cancellation_cancels_the_intent(
    client: httpx.AsyncClient, project: ProjectCredentials, customer: dict[str, Any]
) -> None:
    token = customer["access_token"]
    body = await returning_intent(client, project, token)
    await provider_event(client, project, body["transaction"]["id"], "CANCELLED")
    done = await wait_for_intent(
        client, token, body["intent"]["id"], lambda b: b["intent"]["status"] != "PROCESSING"
    )
    assert done["intent"]["status"] == "CANCELLED"
    assert done["transaction"]["status"] == "CANCELLED"


async def test_sandbox_events_need_the_owning_project(
    client: httpx.AsyncClient,
    project: ProjectCredentials,
    customer: dict[str, Any],
    db: AsyncSession,
    migrated: Settings,
) -> None:
    body = await returning_intent(client, project, customer["access_token"])
    other = await make_project(db, migrated, name="Other")
    transaction_id = body["transaction"]["id"]
    foreign = await provider_event(client, other, transaction_id, "DEPOSIT_RECEIVED")
    assert foreign.status_code == 404
    missing = await provider_event(client, project, "no-such-id", "DEPOSIT_RECEIVED")
    assert missing.status_code == 404
    anonymous = await client.post(
        f"/v1/sandbox/transactions/{transaction_id}/events", json={"type": "SETTLED"}
    )
    assert anonymous.status_code == 401
    unknown = await provider_event(client, project, transaction_id, "TELEPORTED")
    assert unknown.status_code == 400
    foreign_step = await step_outcome(client, other, body["intent"]["id"], "KYC_BASIC", "VERIFIED")
    assert foreign_step.status_code == 404


# --- provider eligibility and selection -----------------------------------------------


async def selected_provider(
    client: httpx.AsyncClient,
    token: str,
    src: str,
    dest: str,
    source: dict[str, Any],
    destination: dict[str, Any],
    amount: str = "100.00",
    **fields: Any,
) -> httpx.Response:
    accounts = await register_accounts(client, token, src, dest, source, destination)
    return await create_intent(client, token, accounts, amount=amount, **fields)


def provider_code(response: httpx.Response) -> str:
    assert response.status_code == 201, response.text
    return str(response.json()["intent"]["mmPlan"]["providerAccount"]["providerCode"])


async def test_first_eligible_provider_is_selected(
    client: httpx.AsyncClient, customer: dict[str, Any]
) -> None:
    token = customer["access_token"]
    response = await selected_provider(
        client, token, "USD", "USDC_ETHEREUM", bank(ACH), wallet("USDC_ETHEREUM")
    )
    assert provider_code(response) == ATLAS


async def test_preferred_provider_is_used_when_eligible(
    client: httpx.AsyncClient, customer: dict[str, Any]
) -> None:
    token = customer["access_token"]
    response = await selected_provider(
        client,
        token,
        "USD",
        "USDC_ETHEREUM",
        bank(ACH),
        wallet("USDC_ETHEREUM"),
        providerId=provider_id(BEACON),
    )
    assert provider_code(response) == BEACON


async def test_rail_decides_and_an_ineligible_preferred_provider_is_refused(
    client: httpx.AsyncClient, customer: dict[str, Any]
) -> None:
    token = customer["access_token"]
    accounts = await register_accounts(
        client, token, "USD", "USDC_ETHEREUM", bank(WIRE), wallet("USDC_ETHEREUM")
    )
    wire = await create_intent(client, token, accounts, amount="5000.00")
    assert provider_code(wire) == ATLAS
    beacon = provider_id(BEACON)
    refused = await create_intent(client, token, accounts, amount="5000.00", providerId=beacon)
    assert refused.status_code == 400
    error = refused.json()
    assert error["code"] == "PROVIDER_NOT_ELIGIBLE"
    assert error["message"] == (
        f"preferred provider '{beacon}' is not a valid candidate for this payment path"
    )
    assert error["details"]["reasons"] == ["source rail WIRE not supported"]
    assert error["details"]["eligibleProviderIds"] == [provider_id(ATLAS)]
    unknown = await create_intent(client, token, accounts, amount="5000.00", providerId="nope")
    assert unknown.json()["code"] == "PROVIDER_NOT_ELIGIBLE"


async def test_currency_decides(client: httpx.AsyncClient, customer: dict[str, Any]) -> None:
    token = customer["access_token"]
    response = await selected_provider(
        client, token, "USD", "BTC_BITCOIN", bank(ACH), wallet("BTC_BITCOIN", BTC_ADDRESS)
    )
    assert provider_code(response) == BEACON


async def test_account_type_and_direction_decide(
    client: httpx.AsyncClient, customer: dict[str, Any]
) -> None:
    token = customer["access_token"]
    response = await selected_provider(
        client, token, "USDC_ETHEREUM", "USD", wallet("USDC_ETHEREUM"), bank(ACH), amount="50"
    )
    assert provider_code(response) == ATLAS
    assert response.json()["intent"]["mmPlan"]["type"] == "OFFRAMP"


@pytest.mark.parametrize(
    ("country", "iban", "tax_id", "expected"),
    [
        ("DE", "DE89370400440532013000", "12345678901", "sandbox_meridian"),
        ("GB", "GB33BUKB20201555555555", "AB123456C", "sandbox_thames"),
    ],
)
async def test_country_decides(
    client: httpx.AsyncClient,
    customer: dict[str, Any],
    country: str,
    iban: str,
    tax_id: str,
    expected: str,
) -> None:
    token = customer["access_token"]
    source = bank(SEPA, countryCode=country)
    source["accountIdentifier"]["iban"] = iban
    source["beneficiary"]["taxId"] = tax_id
    response = await selected_provider(
        client, token, "EUR", "USDC_ETHEREUM", source, wallet("USDC_ETHEREUM")
    )
    assert provider_code(response) == expected


async def test_no_eligible_provider_leaves_no_intent_and_no_running_workflow(
    client: httpx.AsyncClient, customer: dict[str, Any], temporal_client: Client
) -> None:
    token = customer["access_token"]
    # Each account is valid for its own route; together no provider serves them.
    wire, _ = await register_accounts(
        client, token, "USD", "USDC_ETHEREUM", bank(WIRE), wallet("USDC_ETHEREUM")
    )
    _, btc = await register_accounts(
        client, token, "USD", "BTC_BITCOIN", bank(ACH), wallet("BTC_BITCOIN", BTC_ADDRESS)
    )
    response = await create_intent(
        client, token, (wire, btc), amount="5000.00", headers={"Idempotency-Key": "no-route"}
    )
    assert response.status_code == 400
    error = response.json()
    assert error["code"] == "NO_ELIGIBLE_PROVIDER"
    assert error["message"] == "no provider can handle the requested external accounts"
    reasons = {entry["providerCode"]: entry["reasons"] for entry in error["details"]["providers"]}
    assert reasons[ATLAS] == ["destination currency BTC_BITCOIN not supported"]
    assert reasons[BEACON] == ["source rail WIRE not supported"]
    listed = await client.get("/v1/intent", headers=bearer(token))
    assert listed.json() == []
    running = [
        execution
        async for execution in temporal_client.list_workflows(
            f"WorkflowType = 'IntentWorkflow' AND ExecutionStatus = 'Running' "
            f"AND RampCustomerId = '{customer['id']}'"
        )
    ]
    assert running == []
    handle = temporal_client.get_workflow_handle_for(
        IntentWorkflow.run, workflow_id(intent_id_for_key(customer["id"], "no-route"))
    )
    # The refused workflow ends right after answering, without an intent.
    assert (await handle.result()).status is None
    assert (await handle.describe()).status == WorkflowExecutionStatus.COMPLETED


# --- amounts ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "amount",
    [
        "0",
        "0.00",
        "-5",
        "1e3",
        "1E3",
        " 5",
        "5 ",
        "abc",
        "05",
        ".5",
        "5.",
        "+5",
        "1,000.00",
        "NaN",
        "",
    ],
)
async def test_malformed_amounts_are_refused(
    client: httpx.AsyncClient, customer: dict[str, Any], amount: str
) -> None:
    token = customer["access_token"]
    response = await create_intent(client, token, ("a", "b"), amount=amount)
    assert response.status_code == 400
    error = response.json()
    if amount == "":
        assert error["code"] == "VALIDATION_ERROR"
    else:
        assert error["code"] == "AMOUNT_VALIDATION_ERROR", error
        assert error["details"]["field"] == "amount"


async def test_a_json_number_is_not_an_amount(
    client: httpx.AsyncClient, customer: dict[str, Any]
) -> None:
    response = await client.post(
        "/v1/intent",
        json={"srcExternalAccountId": "a", "destExternalAccountId": "b", "amount": 100},
        headers=bearer(customer["access_token"]),
    )
    assert response.status_code == 400
    assert response.json()["details"]["fields"][0]["pointer"] == "/amount"


@pytest.mark.parametrize(
    ("src", "amount", "max_decimals", "provided"),
    [("USD", "100.001", 2, 3), ("USDC_ETHEREUM", "10.1234567", 6, 7)],
)
async def test_precision_follows_the_source_currency(
    client: httpx.AsyncClient,
    customer: dict[str, Any],
    src: str,
    amount: str,
    max_decimals: int,
    provided: int,
) -> None:
    token = customer["access_token"]
    if src == "USD":
        accounts = await register_accounts(client, token)
    else:
        accounts = await register_accounts(client, token, src, "USD", wallet(src), bank(ACH))
    response = await create_intent(client, token, accounts, amount=amount)
    assert response.status_code == 400
    error = response.json()
    assert error["code"] == "AMOUNT_VALIDATION_ERROR"
    assert error["details"] == {
        "field": "amount",
        "reason": "PRECISION",
        "currencyCode": src,
        "maxDecimals": max_decimals,
        "providedDecimals": provided,
    }
    places = "0" * max_decimals
    fine = await create_intent(client, token, accounts, amount=f"100.{places}")
    assert fine.status_code == 201, fine.text


@pytest.mark.parametrize(("amount", "side"), [("9.99", "below"), ("25000.01", "above")])
async def test_provider_limits_apply(
    client: httpx.AsyncClient, customer: dict[str, Any], amount: str, side: str
) -> None:
    token = customer["access_token"]
    response = await create_intent(client, token, await register_accounts(client, token), amount)
    assert response.status_code == 400
    error = response.json()
    assert error["code"] == "AMOUNT_VALIDATION_ERROR"
    assert side in error["message"]
    assert error["details"] == {
        "field": "amount",
        "reason": "OUT_OF_RANGE",
        "currencyCode": "USD",
        "minimum": "10.00",
        "maximum": "25000.00",
        "providerId": provider_id(ATLAS),
    }


# --- isolation, idempotency, reading ----------------------------------------------------


async def test_customers_only_see_their_own_intents(
    client: httpx.AsyncClient, project: ProjectCredentials, customer: dict[str, Any]
) -> None:
    token = customer["access_token"]
    accounts = await register_accounts(client, token)
    intent_id = (await create_intent(client, token, accounts)).json()["intent"]["id"]
    other = (await make_customer(client, project, "user-2"))["access_token"]
    assert (await client.get(f"/v1/intent/{intent_id}", headers=bearer(other))).status_code == 404
    execute = await client.post(f"/v1/intent/{intent_id}/transaction", headers=bearer(other))
    assert execute.status_code == 404
    assert (await client.get("/v1/intent", headers=bearer(other))).json() == []
    borrowed = await create_intent(client, other, accounts)
    assert borrowed.status_code == 400
    error = borrowed.json()
    assert error["code"] == "EXTERNAL_ACCOUNT_NOT_FOUND"
    assert [f["pointer"] for f in error["details"]["fields"]] == [
        "/srcExternalAccountId",
        "/destExternalAccountId",
    ]
    assert (await client.get("/v1/intent/unknown", headers=bearer(token))).status_code == 404


async def test_an_intent_is_read_only_with_a_token_its_customer_may_use(
    client: httpx.AsyncClient,
    project: ProjectCredentials,
    customer: dict[str, Any],
    migrated: Settings,
) -> None:
    """`GET /v1/intent/{id}` reads the token's customer and the intent in one statement:
    a token of a project, environment or customer that is not the intent's is refused
    as on every other customer endpoint (401), before anything of the intent is shown;
    only its own customer reads it."""
    token = customer["access_token"]
    accounts = await register_accounts(client, token)
    intent_id = (await create_intent(client, token, accounts)).json()["intent"]["id"]
    tokens = TokenService.from_settings(migrated)
    organization = project.organization_id
    for claims in (
        CustomerClaims("no-such-customer", project.project_id, organization, "sandbox"),
        CustomerClaims(customer["id"], "another-project", organization, "sandbox"),
        CustomerClaims(customer["id"], project.project_id, organization, "production"),
    ):
        refused = bearer(tokens.issue_customer_token(claims))
        for path in (f"/v1/intent/{intent_id}", "/v1/intent/unknown"):
            assert_envelope(await client.get(path, headers=refused), 401, "INVALID_TOKEN")
    own = CustomerClaims(customer["id"], project.project_id, organization, "sandbox")
    read = await client.get(
        f"/v1/intent/{intent_id}", headers=bearer(tokens.issue_customer_token(own))
    )
    assert read.status_code == 200, read.text
    assert read.json()["intent"]["id"] == intent_id
    missing = await client.get("/v1/intent/unknown", headers=bearer(token))
    assert_envelope(missing, 404, "NOT_FOUND")


async def test_intent_endpoints_need_a_customer_token(
    client: httpx.AsyncClient, project: ProjectCredentials
) -> None:
    for method, path in (
        ("POST", "/v1/intent"),
        ("GET", "/v1/intent"),
        ("GET", "/v1/intent/x"),
        ("POST", "/v1/intent/x/transaction"),
    ):
        response = await client.request(method, path)
        assert response.status_code == 401, path
        basic = await client.request(method, path, headers=project.basic)
        assert basic.json()["code"] == "INVALID_AUTH_SCHEME", path


async def test_a_retry_with_the_same_idempotency_key_returns_the_same_intent(
    client: httpx.AsyncClient, customer: dict[str, Any]
) -> None:
    token = customer["access_token"]
    accounts = await register_accounts(client, token)
    key = {"Idempotency-Key": "order-42"}
    first = await create_intent(client, token, accounts, headers=key)
    second = await create_intent(client, token, accounts, headers=key)
    assert first.status_code == second.status_code == 201
    assert second.json()["intent"] == first.json()["intent"]
    assert second.headers["Idempotent-Replayed"] == "true"
    assert second.headers["X-Idempotency-Replayed"] == "true"
    changed = await create_intent(client, token, accounts, amount="101.00", headers=key)
    assert changed.status_code == 422
    assert changed.json()["code"] == "IDEMPOTENCY_KEY_REUSED"
    assert len((await client.get("/v1/intent", headers=bearer(token))).json()) == 1


async def test_list_is_newest_first_and_paginated(
    client: httpx.AsyncClient, customer: dict[str, Any]
) -> None:
    token = customer["access_token"]
    accounts = await register_accounts(client, token)
    created = [
        (await create_intent(client, token, accounts, amount=f"{10 + n}.00")).json()["intent"]["id"]
        for n in range(5)
    ]
    everything = await client.get("/v1/intent", headers=bearer(token))
    assert [e["intent"]["id"] for e in everything.json()] == created[::-1]
    assert "link" not in everything.headers
    seen: list[str] = []
    url = "/v1/intent?limit=2"
    pages = 0
    while url:
        page = await client.get(url, headers=bearer(token))
        assert page.status_code == 200
        seen += [e["intent"]["id"] for e in page.json()]
        link = page.headers.get("link")
        url = re.fullmatch(r'<(/v1/intent\?[^>]+)>; rel="next"', link).group(1) if link else ""  # type: ignore[union-attr]
        pages += 1
    assert seen == created[::-1]
    assert pages == 3
    for bad in ("limit=0", "limit=101", "limit=x", "cursor=garbage"):
        response = await client.get(f"/v1/intent?{bad}", headers=bearer(token))
        assert response.status_code == 400, bad


async def test_operators_can_find_intents_by_search_attributes(
    client: httpx.AsyncClient, customer: dict[str, Any], temporal_client: Client
) -> None:
    token = customer["access_token"]
    intent_id = (await create_intent(client, token, await register_accounts(client, token))).json()[
        "intent"
    ]["id"]
    description = await temporal_client.get_workflow_handle(workflow_id(intent_id)).describe()
    attributes = {
        pair.key.name: pair.value for pair in description.typed_search_attributes.search_attributes
    }
    assert attributes["RampIntentStatus"] == "PENDING"
    assert attributes["RampCustomerId"] == customer["id"]
    assert attributes["RampProviderCode"] == ATLAS
    assert attributes["RampCurrentStep"] == "TERMS_OF_SERVICE"
