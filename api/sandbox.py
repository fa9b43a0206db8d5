"""Sandbox-only endpoints that stand in for the world outside the service.

`POST /sandbox/transactions/{id}/events` plays the provider reporting progress;
`POST /sandbox/intents/{intentId}/compliance-steps/{stepCode}` plays the verification
behind the hosted onboarding. Both signal the intent's workflow exactly as the real
sources will, after checking the transition against the projection so that an
impossible one gets a 409 instead of silence. In production these paths do not exist.
"""

from __future__ import annotations

import uuid

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

from api.auth import authenticate_project
from api.body import read_json
from api.errors import ApiError, not_found
from api.render import json_resource
from api.schemas import (
    ProviderEventAccepted,
    SandboxProviderEvent,
    SandboxStepOutcome,
    StepOutcomeAccepted,
)
from api.services import Services, services
from api.steps import check_step_outcome
from ramp.config import Environment
from ramp.db.tables import IntentRow, TransactionRow
from ramp.intents.lifecycle import workflow_id
from ramp.intents.models import ProviderEvent, StepUpdate
from ramp.intents.states import (
    TransactionStatus,
    next_transaction_status,
)
from workflows.intents import IntentWorkflow


def _sandbox(request: Request) -> Services:
    app = services(request)
    if app.settings.ramp_env is not Environment.SANDBOX:
        raise HTTPException(404)
    return app


async def report_transaction_event(request: Request) -> Response:
    app = _sandbox(request)
    transaction_id = request.path_params["id"]
    async with app.db() as session:
        project = await authenticate_project(request, session)
        body = await read_json(request, SandboxProviderEvent)
        transaction = await session.get(TransactionRow, transaction_id)
        if transaction is None or transaction.project_id != project.id:
            raise not_found("transaction")
    status = TransactionStatus(transaction.status)
    if next_transaction_status(status, body.type) is None:
        raise ApiError(
            409,
            "INVALID_TRANSITION",
            f"{body.type} does not apply to a {status} transaction",
            {"status": status, "event": body.type},
        )
    event = ProviderEvent(
        event_id=str(uuid.uuid4()),
        transaction_id=transaction.id,
        type=body.type,
        reason=body.reason,
    )
    handle = app.temporal.get_workflow_handle_for(
        IntentWorkflow.run, workflow_id(transaction.intent_id)
    )
    await handle.signal(IntentWorkflow.report_provider_event, event)
    accepted = ProviderEventAccepted(
        event_id=event.event_id, transaction_id=transaction.id, type=event.type
    )
    return json_resource(accepted, 202)


async def record_step_outcome(request: Request) -> Response:
    app = _sandbox(request)
    intent_id = request.path_params["intentId"]
    step_code = request.path_params["stepCode"]
    async with app.db() as session:
        project = await authenticate_project(request, session)
        body = await read_json(request, SandboxStepOutcome)
        intent = await session.get(IntentRow, intent_id)
        if intent is None or intent.project_id != project.id:
            raise not_found("intent")
        await check_step_outcome(session, intent, step_code, body.outcome)
    handle = app.temporal.get_workflow_handle_for(IntentWorkflow.run, workflow_id(intent_id))
    await handle.signal(
        IntentWorkflow.update_step,
        StepUpdate(step_code=step_code, outcome=body.outcome, reason=body.reason),
    )
    accepted = StepOutcomeAccepted(intent_id=intent_id, step_code=step_code, outcome=body.outcome)
    return json_resource(accepted, 202)
