"""The JSON API of the hosted onboarding: what the page (or any client) reads and submits.

`GET /v1/onboarding/{intentId}` is the intent's compliance plan as its customer sees it,
with the form of each step; `POST /v1/onboarding/{intentId}/steps/{stepCode}` submits
the current step. Both take the onboarding token of `frontendUrl` as
`Authorization: Bearer <token>`: it names one intent, and no customer token is needed.

A submission is validated, stored encrypted (it is personal data) and handed to the
intent's workflow by id through the `submit_step` update; the workflow verifies it and
decides what comes next, and the response is rendered from the state it returns.

The project's setting of the origins allowed to embed the page is api/project_settings.py.
"""

from __future__ import annotations

import functools
import json
import uuid
from collections.abc import Sequence
from datetime import timedelta

import segno
from sqlmodel import col, delete, select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request
from starlette.responses import Response
from temporalio.client import WorkflowUpdateFailedError
from temporalio.exceptions import ApplicationError

from activities.onboarding import SUBMISSION_NOT_FOUND, VERIFICATION_UNAVAILABLE
from api.body import read_json
from api.errors import ApiError, bad_request, not_found, unauthorized
from api.render import json_resource
from api.schemas import (
    OnboardingDepositInstruction,
    OnboardingField,
    OnboardingProvider,
    OnboardingResource,
    OnboardingStep,
    OnboardingTerms,
    OnboardingTransaction,
    TransferAmountResource,
)
from api.services import Services, services
from api.steps import check_step_outcome
from ramp.db.engine import read_snapshot
from ramp.db.projection import project
from ramp.db.tables import (
    ComplianceStepRow,
    IntentRow,
    OnboardingSubmission,
    Project,
    TransactionRow,
)
from ramp.intents.lifecycle import workflow_id
from ramp.intents.models import CryptoDepositInstructions, StepSubmission, TransactionContext
from ramp.intents.states import IntentStatus, PlanStatus, StepOutcome, StepStatus
from ramp.onboarding.forms import (
    SUBMISSION_MODELS,
    SubmissionProblem,
    check_for_intent,
    form_fields,
)
from ramp.onboarding.terms import terms_for
from ramp.security.encryption import SecretBox
from ramp.security.tokens import InvalidToken
from workflows.intents import IntentWorkflow

ONBOARDING_CHALLENGE = 'Bearer realm="ramp-onboarding"'
# Verification in the sandbox is immediate; a vendor may take longer.
_SUBMIT_TIMEOUT = timedelta(seconds=30)
# What the workflow's refusals and failures of `submit_step` mean over HTTP.
_SUBMIT_ERROR_STATUS: dict[str, int] = {
    "STEP_NOT_CURRENT": 409,
    "COMPLIANCE_CLOSED": 409,
    "INVALID_TRANSITION": 409,
    "INTENT_CLOSED": 409,
    VERIFICATION_UNAVAILABLE: 503,
    SUBMISSION_NOT_FOUND: 503,
    "TEMPORARILY_UNAVAILABLE": 503,
}


# --- authentication -------------------------------------------------------------------


def onboarding_token(request: Request) -> str:
    header = request.headers.get("authorization")
    if not header:
        raise unauthorized(
            "MISSING_CREDENTIALS",
            "the onboarding token is required: Authorization: Bearer <token from frontendUrl>",
            ONBOARDING_CHALLENGE,
        )
    scheme, _, value = header.partition(" ")
    if scheme.lower() != "bearer" or not value.strip():
        raise unauthorized(
            "INVALID_AUTH_SCHEME", "this endpoint needs Bearer authorization", ONBOARDING_CHALLENGE
        )
    return value.strip()


def check_onboarding_token(app: Services, token: str, intent_id: str) -> str:
    """The customer id the token grants `intent_id` to; 401 if the token is not valid,
    404 if it is valid for another intent (as for any id that is not the caller's)."""
    try:
        claims = app.tokens.verify_onboarding_token(token)
    except InvalidToken as error:
        if error.expired:
            raise unauthorized(
                "TOKEN_EXPIRED",
                "the onboarding link has expired: the app gets a fresh frontendUrl "
                "from GET /v1/intent/{id}",
                ONBOARDING_CHALLENGE,
            ) from error
        raise unauthorized(
            "INVALID_TOKEN", f"{error.reason}: use the token of frontendUrl", ONBOARDING_CHALLENGE
        ) from error
    if claims.intent_id != intent_id:
        raise not_found("intent")
    return claims.customer_id


async def _authorized_intent(request: Request, session: AsyncSession) -> IntentRow:
    return await _intent_of(session, request.path_params["intentId"], _token_customer(request))


def _token_customer(request: Request) -> str:
    """The customer the request's onboarding token names (checked without the database)."""
    return check_onboarding_token(
        services(request), onboarding_token(request), request.path_params["intentId"]
    )


async def _intent_of(session: AsyncSession, intent_id: str, customer_id: str) -> IntentRow:
    intent = await session.get(IntentRow, intent_id)
    if intent is None or intent.customer_id != customer_id or not intent.onboarding:
        raise not_found("intent")
    return intent


# --- endpoints --------------------------------------------------------------------------


async def get_onboarding(request: Request) -> Response:
    app = services(request)
    async with app.db() as session:
        await read_snapshot(session)
        intent = await _authorized_intent(request, session)
        steps = (
            await session.exec(
                select(ComplianceStepRow).where(ComplianceStepRow.intent_id == intent.id)
            )
        ).all()
        transaction = (
            await session.exec(select(TransactionRow).where(TransactionRow.intent_id == intent.id))
        ).first()
        owner = await session.get(Project, intent.project_id)
    assert owner is not None
    return json_resource(onboarding_resource(intent, steps, transaction, owner.onboarding_origins))


async def submit_step(request: Request) -> Response:
    app = services(request)
    step_code = request.path_params["stepCode"]
    customer_id = _token_customer(request)
    model = SUBMISSION_MODELS.get(step_code)
    if model is None:
        raise ApiError(
            409,
            "STEP_NOT_SUPPORTED",
            f"{step_code} cannot be submitted through the hosted onboarding",
        )
    async with app.db() as session:
        intent = await _intent_of(session, request.path_params["intentId"], customer_id)
        await check_step_outcome(session, intent, step_code, StepOutcome.SUBMITTED)
    # Read (up to a few MiB of documents) while no database connection is held.
    submission = await read_json(request, model)
    try:
        check_for_intent(step_code, submission, intent.transfer_amount)
    except SubmissionProblem as problem:
        raise bad_request(
            "VALIDATION_ERROR",
            "request body is invalid",
            {"fields": [{"pointer": problem.pointer, "reason": problem.reason}]},
        ) from None
    payload = submission.model_dump(mode="json", by_alias=True, exclude_none=True)
    async with app.db() as session:
        stored = OnboardingSubmission(
            id=str(uuid.uuid4()),
            intent_id=intent.id,
            step_code=step_code,
            payload_encrypted=_secret_box(app).encrypt(json.dumps(payload)),
        )
        session.add(stored)
        await session.commit()
        owner = await session.get(Project, intent.project_id)
        assert owner is not None
        origins = list(owner.onboarding_origins)
    handle = app.temporal.get_workflow_handle_for(IntentWorkflow.run, workflow_id(intent.id))
    try:
        state = await handle.execute_update(
            IntentWorkflow.submit_step,
            StepSubmission(step_code=step_code, submission_id=stored.id),
            id=f"submit-{stored.id}",
            rpc_timeout=_SUBMIT_TIMEOUT,
        )
    except WorkflowUpdateFailedError as error:
        # The workflow answered: the submission was refused or failed and changed nothing,
        # so no personal data is kept. An update that was not answered in time (or whose
        # caller went away) may still run and verify this submission: it stays, and the
        # housekeeping's retention purges it with the intent's other submissions.
        async with app.db() as session:
            await session.exec(
                delete(OnboardingSubmission).where(col(OnboardingSubmission.id) == stored.id)
            )
            await session.commit()
        refused = _submit_failed(error)
        if refused is not None:
            raise refused from None
        raise
    rows = project(state)
    return json_resource(onboarding_resource(rows.intent, rows.steps, rows.transaction, origins))


def _submit_failed(error: WorkflowUpdateFailedError) -> ApiError | None:
    """The onboarding's own answer to a refused or failed submission."""
    cause = error.cause
    if not isinstance(cause, ApplicationError) or cause.type not in _SUBMIT_ERROR_STATUS:
        return None
    details = cause.details[0] if cause.details and isinstance(cause.details[0], dict) else {}
    status = _SUBMIT_ERROR_STATUS[cause.type]
    return ApiError(
        status,
        cause.type,
        cause.message,
        details,
        headers={"Retry-After": "1"} if status == 503 else None,
    )


# --- rendering -------------------------------------------------------------------------


def onboarding_resource(
    intent: IntentRow,
    steps: Sequence[ComplianceStepRow],
    transaction: TransactionRow | None,
    origins: Sequence[str],
) -> OnboardingResource:
    return OnboardingResource(
        intent_id=intent.id,
        status=IntentStatus(intent.status),
        failure_reason=intent.failure_reason,
        plan_status=PlanStatus(intent.plan_status),
        current_step_code=intent.current_step_code,
        provider=OnboardingProvider(code=intent.provider_code, name=intent.provider_name),
        transfer_amount=TransferAmountResource(
            amount=intent.amount, currency_code=intent.currency_code
        ),
        auto_execute=intent.auto_execute,
        redirect_url=intent.redirect_url,
        embed_origins=list(origins),
        steps=[_step(step, intent) for step in sorted(steps, key=lambda s: (s.position, s.code))],
        transaction=_transaction(transaction) if transaction is not None else None,
        expired_at=intent.expired_at,
    )


def _step(step: ComplianceStepRow, intent: IntentRow) -> OnboardingStep:
    fields = form_fields(step.code, intent.transfer_amount)
    metadata = step.step_metadata
    return OnboardingStep(
        code=step.code,
        description=step.description,
        status=StepStatus(step.status),
        depends_on=list(step.depends_on),
        completed_by=metadata.get("completedBy"),
        reason=metadata.get("reason"),
        fields=None
        if fields is None
        else [
            OnboardingField(
                name=f.name,
                kind=f.kind,
                required=f.required,
                options=list(f.options),
                max_length=f.max_length,
                accept=list(f.accept),
                max_bytes=f.max_bytes,
                autocomplete=f.autocomplete,
            )
            for f in fields
        ],
        terms=_terms(intent.provider_name) if step.code == "TERMS_OF_SERVICE" else None,
    )


def _terms(provider_name: str) -> OnboardingTerms:
    terms = terms_for(provider_name)
    return OnboardingTerms(
        version=terms.version, title=terms.title, paragraphs=list(terms.paragraphs)
    )


def _transaction(transaction: TransactionRow) -> OnboardingTransaction:
    context = TransactionContext.model_validate(transaction.context)
    return OnboardingTransaction(
        id=transaction.id,
        status=transaction.status,
        deposit_instructions=[
            OnboardingDepositInstruction(
                type=instruction.type,
                instructions=instruction.instructions,
                qr_code=qr_code(instruction.instructions.address)
                if isinstance(instruction.instructions, CryptoDepositInstructions)
                else None,
            )
            for instruction in context.deposit_instructions
        ],
    )


@functools.lru_cache(maxsize=256)
def qr_code(address: str) -> str:
    """A QR code of a deposit address as an SVG data URI (generated here: no third party).

    The plain address, which every wallet scans; amount and network are shown beside it.
    """
    return str(segno.make(address, error="m").svg_data_uri(scale=4, border=2))


def _secret_box(app: Services) -> SecretBox:
    return _box(app.settings.encryption_keys.get_secret_value())


@functools.lru_cache(maxsize=4)
def _box(keys: str) -> SecretBox:
    return SecretBox(keys)
