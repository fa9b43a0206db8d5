"""The JSON API of the hosted onboarding: what the page (or any client) reads and submits.

`GET /v1/onboarding/{intentId}` is the intent's compliance plan as its customer sees it,
with the form of each step; `POST /v1/onboarding/{intentId}/steps/{stepCode}` submits
the current step. Both take the onboarding token of `frontendUrl` as
`Authorization: Bearer <token>`: it names one intent, and no customer token is needed.

The use cases are `ramp.onboarding.service`: this module checks the onboarding token,
reads the submission's body (while holding no database connection) and renders.

The project's setting of the origins allowed to embed the page is api/project_settings.py.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence

from starlette.requests import Request
from starlette.responses import Response

from api.body import read_json, read_json_object, validate_body
from api.errors import not_found, unauthorized
from api.render import json_resource
from api.schemas import (
    OnboardingConsent,
    OnboardingDepositInstruction,
    OnboardingField,
    OnboardingHandoff,
    OnboardingProvider,
    OnboardingResource,
    OnboardingSharing,
    OnboardingStep,
    OnboardingTerms,
    OnboardingTransaction,
    TransferAmountResource,
)
from api.services import Services, services
from ramp.adapters.registry import Connectors
from ramp.db.tables import ComplianceStepRow, IntentRow, TransactionRow
from ramp.errors import OnboardingError
from ramp.intents.models import CryptoDepositInstructions, TransactionContext
from ramp.intents.redirects import hosted_redirect
from ramp.intents.states import IntentStatus, PlanStatus, StepStatus
from ramp.intents.workflow_client import IntentWorkflowClient
from ramp.onboarding.forms import form_fields
from ramp.onboarding.reuse import Reuse
from ramp.onboarding.service import OnboardingService, OnboardingView, submission_model
from ramp.onboarding.terms import terms_for
from ramp.security.tokens import InvalidToken

ONBOARDING_CHALLENGE = 'Bearer realm="ramp-onboarding"'


# --- authentication -------------------------------------------------------------------


def onboarding_token(request: Request) -> str:
    header = request.headers.get("authorization")
    if not header:
        raise unauthorized(
            OnboardingError.MISSING_CREDENTIALS,
            "the onboarding token is required: Authorization: Bearer <token from frontendUrl>",
            ONBOARDING_CHALLENGE,
        )
    scheme, _, value = header.partition(" ")
    if scheme.lower() != "bearer" or not value.strip():
        raise unauthorized(
            OnboardingError.INVALID_AUTH_SCHEME,
            "this endpoint needs Bearer authorization",
            ONBOARDING_CHALLENGE,
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
                OnboardingError.TOKEN_EXPIRED,
                "the onboarding link has expired: the app gets a fresh frontendUrl "
                "from GET /v1/intent/{id}",
                ONBOARDING_CHALLENGE,
            ) from error
        raise unauthorized(
            OnboardingError.INVALID_TOKEN,
            f"{error.reason}: use the token of frontendUrl",
            ONBOARDING_CHALLENGE,
        ) from error
    if claims.intent_id != intent_id:
        raise not_found("intent")
    return claims.customer_id


def _token_customer(request: Request) -> str:
    """The customer the request's onboarding token names (checked without the database)."""
    return check_onboarding_token(
        services(request), onboarding_token(request), request.path_params["intentId"]
    )


# --- endpoints --------------------------------------------------------------------------


def onboarding_service(app: Services) -> OnboardingService:
    return OnboardingService(
        app.db,
        IntentWorkflowClient(app.temporal, app.settings.task_queue),
        app.settings.encryption_keys.get_secret_value(),
        Connectors.from_settings(app.settings),
    )


def _render(view: OnboardingView) -> Response:
    return json_resource(
        onboarding_resource(view.intent, view.steps, view.transaction, view.origins, view.shared)
    )


async def get_onboarding(request: Request) -> Response:
    view = await onboarding_service(services(request)).view(
        request.path_params["intentId"], _token_customer(request)
    )
    return _render(view)


async def answer_consent(request: Request) -> Response:
    """The customer's answer to sharing what another provider holds (`sharing`)."""
    customer_id = _token_customer(request)
    body = await read_json(request, OnboardingConsent)
    view = await onboarding_service(services(request)).consent(
        request.path_params["intentId"], customer_id, body.provider_account_id, body.granted
    )
    return _render(view)


async def submit_step(request: Request) -> Response:
    service = onboarding_service(services(request))
    step_code = request.path_params["stepCode"]
    customer_id = _token_customer(request)
    model = submission_model(step_code)
    intent = await service.submittable(request.path_params["intentId"], customer_id, step_code)
    # Read (up to a few MiB of documents) while no database connection is held.
    typed = await read_json_object(request)
    # Fields the customer consented to share from another provider need not be typed.
    body = await service.with_consented(intent, step_code, typed)
    submission = validate_body(model, body)
    view = await service.submit(intent, step_code, submission)
    return _render(view)


# --- rendering -------------------------------------------------------------------------


def onboarding_resource(
    intent: IntentRow,
    steps: Sequence[ComplianceStepRow],
    transaction: TransactionRow | None,
    origins: Sequence[str],
    shared: Reuse | None = None,
) -> OnboardingResource:
    shared = shared or Reuse()
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
        redirect_url=hosted_redirect(intent, deposit_instructions_shown=transaction is not None),
        embed_origins=list(origins),
        steps=[
            _step(step, intent, shared.prefilled.get(step.code, {}))
            for step in sorted(steps, key=lambda s: (s.position, s.code))
        ],
        sharing=[
            OnboardingSharing(
                provider_account_id=offer.provider_account_id,
                provider_name=offer.provider_name,
                fields=list(offer.fields),
                consent=None
                if offer.granted is None
                else ("GRANTED" if offer.granted else "DECLINED"),
                decided_at=offer.decided_at,
            )
            for offer in shared.offers
        ],
        transaction=_transaction(transaction) if transaction is not None else None,
        expired_at=intent.expired_at,
    )


def _step(
    step: ComplianceStepRow, intent: IntentRow, prefilled: Mapping[str, str]
) -> OnboardingStep:
    metadata = step.step_metadata
    handoff = _handoff(metadata.get("handoff"))
    # A step the provider collects itself has no form of ours.
    fields = (
        None if handoff else form_fields(step.code, intent.transfer_amount, intent.provider_code)
    )
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
                prefilled_from=prefilled.get(f.name),
            )
            for f in fields
        ],
        terms=_terms(intent.provider_name)
        if step.code == "TERMS_OF_SERVICE" and handoff is None
        else None,
        handoff=handoff,
    )


def _handoff(raw: object) -> OnboardingHandoff | None:
    if not isinstance(raw, dict) or raw.get("mode") not in ("LINK", "WAIT"):
        return None
    url = raw.get("url")
    return OnboardingHandoff(
        mode=raw["mode"],
        url=url if isinstance(url, str) and url.startswith("https://") else None,
        embeddable=bool(raw.get("embeddable")),
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
    # Imported here: segno (with xml.sax) costs the API process about 0.1 s of CPU at
    # start, for the QR codes of the onboarding page's wallet steps only.
    import segno

    return str(segno.make(address, error="m").svg_data_uri(scale=4, border=2))
