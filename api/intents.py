"""Payment intents: create (through the intent's workflow), read (from the projection).

Writes go to the workflow, which owns the intent's state; reads never ask the
workflow, they read the SQL projection its activities keep up to date.
"""

from __future__ import annotations

import hashlib
import json
import logging
import uuid
from collections.abc import Iterable, Mapping, Sequence
from datetime import timedelta
from urllib.parse import urlencode

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request
from starlette.responses import Response
from temporalio.client import (
    WithStartWorkflowOperation,
    WorkflowUpdateFailedError,
    WorkflowUpdateRPCTimeoutOrCancelledError,
)
from temporalio.common import WorkflowIDConflictPolicy, WorkflowIDReusePolicy
from temporalio.exceptions import ApplicationError, WorkflowAlreadyStartedError
from temporalio.service import RPCError, RPCStatusCode

from api.auth import authenticate_customer
from api.body import read_json
from api.errors import ApiError, bad_request, not_found
from api.pagination import newest_first, next_page_headers, page_size
from api.render import intent_envelope, intent_resource, json_list, json_resource
from api.schemas import CreateIntent, ExecuteIntent, IntentEnvelope
from api.services import Services, services
from ramp import temporal
from ramp.db.engine import read_snapshot
from ramp.db.projection import project
from ramp.db.tables import ComplianceStepRow, ExternalAccount, IntentRow, TransactionRow
from ramp.intents.amounts import AmountProblem, parse_amount
from ramp.intents.errors import IntentError
from ramp.intents.lifecycle import refuse_execution, workflow_id
from ramp.intents.models import IntentRequest, IntentState
from ramp.intents.states import TERMINAL_INTENT_STATUSES, IntentStatus, PlanStatus
from workflows.intents import IntentWorkflow

IDEMPOTENCY_HEADER = "idempotency-key"
# Every call with one Idempotency-Key sends this update to the intent's workflow.
OPEN_UPDATE_ID = "open"
_IDEMPOTENCY_IDS = uuid.UUID("4f0a3c55-9b1e-4c1e-8a59-2d8f1f0c6e11")
# How long POST /intent waits for the workflow's answer before reporting 503.
_OPEN_TIMEOUT = timedelta(seconds=15)

logger = logging.getLogger("ramp.api")


async def create_intent(request: Request) -> Response:
    """Opens the intent through its workflow, with update-with-start.

    The workflow id and the update id derive from the Idempotency-Key, so every call
    with one key sends the same `open` update: Temporal answers an update it accepted
    with its first result and runs one it lost (a restart before acceptance). Rows in
    the projection are never the answer by themselves, since `open` writes them before
    Temporal has accepted it; only a final intent's rows are.
    """
    app = services(request)
    async with app.db() as session:
        customer = await authenticate_customer(request, session)
        body = await read_json(request, CreateIntent)
        try:
            parse_amount(body.amount)
        except AmountProblem as problem:
            raise bad_request(
                IntentError.AMOUNT_VALIDATION_ERROR, problem.message, problem.details
            ) from None
        fingerprint = body_fingerprint(body)
        given = _idempotency_key(request)
        # Without a header the call gets a key of its own, handed back in a 503 so
        # that the retry joins this attempt rather than creating a second intent.
        key = given if given is not None else str(uuid.uuid4())
        intent_id = intent_id_for_key(customer.id, key)
        stored = await session.get(IntentRow, intent_id) if given is not None else None
        if stored is not None:
            _check_same_request(stored.fingerprint, fingerprint)
        final = stored is not None and IntentStatus(stored.status) in TERMINAL_INTENT_STATUSES
        if not final:
            # For the response: the workflow's answer plus these, with no read afterwards.
            accounts = await _accounts(
                session, customer.id, [body.src_external_account_id, body.dest_external_account_id]
            )
    if final:
        # A final status is only reached by a workflow that holds the intent, which
        # has ended: nothing left to deliver.
        return await _replayed(app, customer.id, intent_id)
    request_id = str(uuid.uuid4())
    try:
        opened = await app.temporal.execute_update_with_start_workflow(
            IntentWorkflow.open,
            request_id,
            start_workflow_operation=WithStartWorkflowOperation(
                IntentWorkflow.run,
                IntentRequest(
                    intent_id=intent_id,
                    project_id=customer.project_id,
                    customer_id=customer.id,
                    src_account_id=body.src_external_account_id,
                    dest_account_id=body.dest_external_account_id,
                    amount=body.amount,
                    provider_id=body.provider_id,
                    auto_execute=body.auto_execute,
                    redirect_url=body.redirect_url,
                    lifetime_seconds=app.settings.intent_lifetime_seconds,
                    fingerprint=fingerprint,
                ),
                id=workflow_id(intent_id),
                task_queue=temporal.TASK_QUEUE,
                # A retry with the same Idempotency-Key joins the running workflow.
                id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
                # An ended workflow with rows is a final intent: never open it again.
                # Without rows it was refused, and a retry re-evaluates in a new run.
                id_reuse_policy=(
                    WorkflowIDReusePolicy.REJECT_DUPLICATE
                    if stored is not None
                    else WorkflowIDReusePolicy.ALLOW_DUPLICATE
                ),
            ),
            id=OPEN_UPDATE_ID,
            rpc_timeout=_OPEN_TIMEOUT,
        )
    except WorkflowAlreadyStartedError:
        # It ended between our read and the call: its rows are final now.
        return await _replayed(app, customer.id, intent_id)
    except (RPCError, WorkflowUpdateRPCTimeoutOrCancelledError, RuntimeError) as error:
        if isinstance(error, RPCError) and error.status is RPCStatusCode.ALREADY_EXISTS:
            # The same refusal, as the time-skipping test server words it.
            return await _replayed(app, customer.id, intent_id)
        # RuntimeError: the (lazy) client could not connect at all.
        raise _maybe_created(error, intent_id, key) from None
    except WorkflowUpdateFailedError as error:
        if _temporarily_unavailable(error):
            raise _maybe_created(error, intent_id, key) from None
        raise
    _check_same_request(opened.fingerprint, fingerprint)
    if opened.opened_by != request_id:
        # Another call with this key created it (concurrently, or before).
        return await _replayed(app, customer.id, intent_id)
    return json_resource(_written(app, opened, accounts), 201)


async def _replayed(app: Services, customer_id: str, intent_id: str) -> Response:
    """The intent as it is now, for a call that did not create it."""
    envelope = await _envelope(app, customer_id, intent_id)
    return json_resource(envelope, 201, headers={"Idempotent-Replayed": "true"})


def _temporarily_unavailable(error: WorkflowUpdateFailedError) -> bool:
    cause = error.cause
    return isinstance(cause, ApplicationError) and cause.type == IntentError.TEMPORARILY_UNAVAILABLE


def _maybe_created(error: Exception, intent_id: str, key: str) -> ApiError:
    """503 for a `POST /intent` whose outcome is unknown: the workflow may have been
    started and may still open the intent. The answer says how to retry safely."""
    logger.warning("POST /intent outcome unknown (intent %s): %s", intent_id, error)
    return ApiError(
        503,
        IntentError.TEMPORARILY_UNAVAILABLE,
        "the intent may have been created; retry the same request with the "
        "Idempotency-Key given in details to get it rather than a second intent",
        {"intentId": intent_id, "idempotencyKey": key},
        headers={"Retry-After": "1"},
    )


async def list_intents(request: Request) -> Response:
    app = services(request)
    async with app.db() as session:
        await read_snapshot(session)
        customer = await authenticate_customer(request, session)
        query = select(IntentRow).where(IntentRow.customer_id == customer.id)
        rows = list(
            (
                await session.exec(
                    newest_first(request, query, col(IntentRow.created_at), col(IntentRow.id))
                )
            ).all()
        )
        envelopes = await load_envelopes(session, rows[: page_size(request)], app)
    headers = next_page_headers(request, rows, lambda row: (row.created_at, row.id))
    return json_list(envelopes, headers=headers)


async def get_intent(request: Request) -> Response:
    app = services(request)
    async with app.db() as session:
        await read_snapshot(session)
        customer = await authenticate_customer(request, session)
        intent = await _owned_intent(session, customer.id, request.path_params["id"])
        envelope = (await load_envelopes(session, [intent], app))[0]
    return json_resource(envelope)


async def execute_intent(request: Request) -> Response:
    """POST /intent/{intentId}/transaction: the transaction of a compliant intent."""
    app = services(request)
    intent_id = request.path_params["intentId"]
    async with app.db() as session:
        customer = await authenticate_customer(request, session)
        if await request.body():
            await read_json(request, ExecuteIntent)
        intent = await _owned_intent(session, customer.id, intent_id)
        transaction = (
            await session.exec(
                select(TransactionRow.id).where(TransactionRow.intent_id == intent_id)
            )
        ).first()
        # Answer the common refusals from the projection; the workflow re-checks.
        refusal = refuse_execution(
            IntentStatus(intent.status),
            PlanStatus(intent.plan_status),
            intent.current_step_code,
            has_transaction=transaction is not None,
        )
        if refusal is not None:
            raise bad_request(*refusal)
        accounts = await _accounts(
            session, customer.id, [intent.src_account_id, intent.dest_account_id]
        )
    handle = app.temporal.get_workflow_handle_for(IntentWorkflow.run, workflow_id(intent_id))
    # A fresh update id per request: Temporal answers a repeated id with the first
    # result, failures included, so a retry after a provider error must not reuse one.
    executed = await handle.execute_update(
        IntentWorkflow.execute, id=f"execute-{uuid.uuid4()}", rpc_timeout=_OPEN_TIMEOUT
    )
    return json_resource(_written(app, executed, accounts), 201)


async def load_envelopes(
    session: AsyncSession, intents: Sequence[IntentRow], app: Services
) -> list[IntentEnvelope]:
    """Response envelopes of `intents`, with three queries whatever their number."""
    if not intents:
        return []
    ids = [intent.id for intent in intents]
    steps = (
        await session.exec(
            select(ComplianceStepRow).where(col(ComplianceStepRow.intent_id).in_(ids))
        )
    ).all()
    transactions = {
        row.intent_id: row
        for row in (
            await session.exec(select(TransactionRow).where(col(TransactionRow.intent_id).in_(ids)))
        ).all()
    }
    accounts = await _accounts(
        session,
        intents[0].customer_id,
        {i.src_account_id for i in intents} | {i.dest_account_id for i in intents},
    )
    return [
        _render(
            app,
            intent,
            [step for step in steps if step.intent_id == intent.id],
            transactions.get(intent.id),
            accounts,
        )
        for intent in intents
    ]


def _written(
    app: Services, state: IntentState, accounts: Mapping[str, ExternalAccount]
) -> IntentEnvelope:
    """The envelope of what a workflow update just wrote, from the same projection rows."""
    rows = project(state)
    return _render(app, rows.intent, rows.steps, rows.transaction, accounts)


def _render(
    app: Services,
    intent: IntentRow,
    steps: Sequence[ComplianceStepRow],
    transaction: TransactionRow | None,
    accounts: Mapping[str, ExternalAccount],
) -> IntentEnvelope:
    resource = intent_resource(
        intent, steps, accounts[intent.src_account_id], accounts[intent.dest_account_id]
    )
    return intent_envelope(
        resource,
        transaction,
        frontend_url=_frontend_url(app, intent) if _onboarding_open(intent) else None,
        workflow_id=workflow_id(intent.id) if intent.onboarding else None,
    )


async def _accounts(
    session: AsyncSession, customer_id: str, ids: Iterable[str]
) -> dict[str, ExternalAccount]:
    rows = await session.exec(
        select(ExternalAccount).where(
            col(ExternalAccount.id).in_(list(ids)), ExternalAccount.customer_id == customer_id
        )
    )
    return {row.id: row for row in rows.all()}


async def _envelope(app: Services, customer_id: str, intent_id: str) -> IntentEnvelope:
    async with app.db() as session:
        await read_snapshot(session)
        intent = await _owned_intent(session, customer_id, intent_id)
        return (await load_envelopes(session, [intent], app))[0]


async def _owned_intent(session: AsyncSession, customer_id: str, intent_id: str) -> IntentRow:
    intent = await session.get(IntentRow, intent_id)
    if intent is None or intent.customer_id != customer_id:
        # Another customer's intent does not exist, as far as this caller knows.
        raise not_found("intent")
    return intent


def _onboarding_open(intent: IntentRow) -> bool:
    """Whether the intent's hosted page still has something to show: it went through
    onboarding and has not reached a final status (no token is minted for those)."""
    return intent.onboarding and IntentStatus(intent.status) not in TERMINAL_INTENT_STATUSES


def _frontend_url(app: Services, intent: IntentRow) -> str:
    token = app.tokens.issue_onboarding_token(
        intent.id, intent.customer_id, timedelta(seconds=app.settings.onboarding_token_ttl_seconds)
    )
    return f"{app.settings.public_url}/onboarding/{intent.id}?{urlencode({'token': token})}"


def intent_id_for_key(customer_id: str, key: str) -> str:
    """The id of the intent a customer creates with this Idempotency-Key."""
    return str(uuid.uuid5(_IDEMPOTENCY_IDS, f"{customer_id}:{key}"))


def body_fingerprint(body: CreateIntent) -> str:
    canonical = json.dumps(body.model_dump(mode="json", by_alias=True), sort_keys=True)
    return hashlib.sha256(canonical.encode()).hexdigest()


def _idempotency_key(request: Request) -> str | None:
    key = request.headers.get(IDEMPOTENCY_HEADER)
    if key is None:
        return None
    if not 1 <= len(key) <= 255 or not key.isprintable():
        raise bad_request(
            "INVALID_IDEMPOTENCY_KEY", "Idempotency-Key must be 1 to 255 printable characters"
        )
    return key


def _check_same_request(stored: str, given: str) -> None:
    if stored != given:
        raise ApiError(
            409,
            "IDEMPOTENCY_KEY_REUSED",
            "this Idempotency-Key was used with a different request body",
        )
