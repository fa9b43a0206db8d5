"""The intent services answer without HTTP, and their refusals are our own errors: what
the admin API and the dashboard will call is what the API calls. The error catalogue
keeps every wire code and status of the refusals it maps."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.routing import Route
from temporalio import workflow
from temporalio.client import Client

from api.errors import EXCEPTION_HANDLERS
from ramp.config import Settings
from ramp.errors import (
    IntentError,
    InvalidInput,
    OnboardingError,
    Refused,
    RequestError,
    StepError,
    Unprocessable,
    refusal,
)
from ramp.intents import workflow_client
from ramp.intents.clock import ADVANCE_CLOCK
from ramp.intents.service import IntentOrder, IntentService
from ramp.intents.workflow_client import IntentWorkflowClient
from tests.helpers.payments import register_accounts
from tests.helpers.projects import ProjectCredentials
from workflows.intents import IntentWorkflow

pytestmark = pytest.mark.usefixtures("worker")

# What each code answered over HTTP before the catalogue (api/errors.py and
# api/onboarding.py each had a table): the catalogue must keep it.
WIRE_STATUS = {
    IntentError.EXTERNAL_ACCOUNT_NOT_FOUND: 400,
    IntentError.NO_ELIGIBLE_PROVIDER: 400,
    IntentError.PROVIDER_NOT_ELIGIBLE: 400,
    IntentError.AMOUNT_VALIDATION_ERROR: 400,
    IntentError.TRANSACTION_EXISTS: 400,
    IntentError.COMPLIANCE_NOT_COMPLETE: 400,
    IntentError.INTENT_CLOSED: 400,
    IntentError.PROVIDER_ERROR: 502,
    IntentError.TEMPORARILY_UNAVAILABLE: 503,
    StepError.STEP_NOT_CURRENT: 409,
    StepError.COMPLIANCE_CLOSED: 409,
    StepError.INVALID_TRANSITION: 409,
    OnboardingError.VERIFICATION_UNAVAILABLE: 503,
    OnboardingError.SUBMISSION_NOT_FOUND: 503,
    # Added since (issue 29): the advance of a run from before sandbox clocks.
    IntentError.CLOCK_NOT_MOVABLE: 409,
}


def test_the_client_names_what_the_workflow_registers() -> None:
    definition = workflow._Definition.must_from_class(IntentWorkflow)
    assert definition.name == workflow_client.WORKFLOW_TYPE
    updates = {
        workflow_client.OPEN,
        workflow_client.EXECUTE,
        workflow_client.SUBMIT_STEP,
        ADVANCE_CLOCK,
    }
    assert updates <= set(definition.updates)
    signals = {workflow_client.UPDATE_STEP, workflow_client.REPORT_PROVIDER_EVENT}
    assert signals <= set(definition.signals)


@pytest.mark.parametrize(("code", "status"), WIRE_STATUS.items())
async def test_each_workflow_refusal_keeps_its_code_and_status(code: str, status: int) -> None:
    refused = refusal(code, "words", {"currentStepCode": "KYC_BASIC"})
    assert refused is not None

    async def refuse(request: Request) -> None:
        assert refused is not None
        raise refused

    app = Starlette(routes=[Route("/refuse", refuse)], exception_handlers=EXCEPTION_HANDLERS)
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://t") as http:
        response = await http.get("/refuse")
    assert response.status_code == status
    body = response.json()
    assert (body["code"], body["message"]) == (code, "words")
    assert body["details"] == {"currentStepCode": "KYC_BASIC"}
    assert response.headers.get("Retry-After") == ("1" if status == 503 else None)


async def test_the_service_opens_replays_and_refuses_with_domain_errors(
    client: httpx.AsyncClient,
    project: ProjectCredentials,
    customer: dict[str, Any],
    sessions: async_sessionmaker[AsyncSession],
    temporal_client: Client,
    migrated: Settings,
) -> None:
    service = IntentService(
        sessions, IntentWorkflowClient(temporal_client, migrated.task_queue), 3600
    )
    src, dest = await register_accounts(client, customer["access_token"])
    order = IntentOrder(src, dest, "100.00")

    nowhere = IntentOrder(src, "5f0c1c2e-0000-4000-8000-000000000000", "100.00")
    with pytest.raises(InvalidInput) as missing:
        await service.open(project.project_id, customer["id"], nowhere, "a")
    assert missing.value.code == IntentError.EXTERNAL_ACCOUNT_NOT_FOUND

    opened = await service.open(project.project_id, customer["id"], order, "order-1")
    assert not opened.replayed
    assert opened.view.intent.status == "PENDING"
    again = await service.open(project.project_id, customer["id"], order, "order-1")
    assert again.replayed
    assert again.view.intent.id == opened.view.intent.id

    other = IntentOrder(src, dest, "200.00")
    with pytest.raises(Unprocessable) as reused:
        await service.open(project.project_id, customer["id"], other, "order-1")
    assert reused.value.code == RequestError.IDEMPOTENCY_KEY_REUSED

    # Refused by the workflow's validator: the service does not pre-check the projection.
    with pytest.raises(Refused) as early:
        await service.execute(customer["id"], opened.view.intent.id)
    assert early.value.code == IntentError.COMPLIANCE_NOT_COMPLETE
