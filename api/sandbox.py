"""Sandbox-only endpoints that stand in for the world outside the service.

`POST /sandbox/transactions/{id}/events` plays the provider reporting progress;
`POST /sandbox/intents/{intentId}/compliance-steps/{stepCode}` plays the verification
behind the hosted onboarding. The use cases are `ramp.intents.sandbox`, which checks the
transition and signals the intent's workflow. `POST /sandbox/intents/{intentId}/advance`
moves the intent's timers forward (`ramp.sandbox_clock`). In production these paths do
not exist.
"""

from __future__ import annotations

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

from api.auth import authenticate_project
from api.body import read_json
from api.render import json_resource
from api.schemas import (
    ProviderEventAccepted,
    SandboxProviderEvent,
    SandboxStepOutcome,
    StepOutcomeAccepted,
)
from api.schemas.sandbox_clock import SandboxClockAdvance, SandboxClockAdvanced
from api.services import Services, services
from ramp.config import Environment
from ramp.intents.sandbox import SandboxService
from ramp.intents.workflow_client import IntentWorkflowClient
from ramp.sandbox_clock import SandboxClock


def _sandbox(request: Request) -> Services:
    app = services(request)
    if app.settings.ramp_env is not Environment.SANDBOX:
        raise HTTPException(404)
    return app


def _service(app: Services) -> SandboxService:
    return SandboxService(app.db, IntentWorkflowClient(app.temporal, app.settings.task_queue))


async def report_transaction_event(request: Request) -> Response:
    app = _sandbox(request)
    project = await authenticate_project(request)
    body = await read_json(request, SandboxProviderEvent)
    event = await _service(app).report_transaction_event(
        project.id, request.path_params["id"], body.type, body.reason
    )
    accepted = ProviderEventAccepted(
        event_id=event.event_id, transaction_id=event.transaction_id, type=event.type
    )
    return json_resource(accepted, 202)


async def record_step_outcome(request: Request) -> Response:
    app = _sandbox(request)
    project = await authenticate_project(request)
    body = await read_json(request, SandboxStepOutcome)
    intent_id = request.path_params["intentId"]
    update = await _service(app).record_step_outcome(
        project.id, intent_id, request.path_params["stepCode"], body.outcome, body.reason
    )
    accepted = StepOutcomeAccepted(
        intent_id=intent_id, step_code=update.step_code, outcome=update.outcome
    )
    return json_resource(accepted, 202)


async def advance_intent_clock(request: Request) -> Response:
    app = _sandbox(request)
    project = await authenticate_project(request)
    body = await read_json(request, SandboxClockAdvance)
    clock = SandboxClock(app.db, IntentWorkflowClient(app.temporal, app.settings.task_queue))
    moved = await clock.advance(project.id, request.path_params["intentId"], body.seconds)
    answer = SandboxClockAdvanced(
        intent_id=moved.intent_id,
        advanced_seconds=moved.seconds,
        clock_offset_seconds=moved.offset_seconds,
        webhook_retries_moved=moved.deliveries,
    )
    return json_resource(answer)
