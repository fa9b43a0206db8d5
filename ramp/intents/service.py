"""Payment intents as use cases: open one (idempotently), create its transaction, read.

Writes go to the intent's workflow, which owns its state and checks every business
rule once (its update validators); reads never ask the workflow, they read the SQL
projection its activities keep up to date. The API, and any other front end, calls
these with plain inputs and gets `IntentView`s or a domain error (`ramp.errors`).
"""

from __future__ import annotations

import hashlib
import json
import logging
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import timedelta

from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession
from temporalio.client import WorkflowUpdateRPCTimeoutOrCancelledError
from temporalio.exceptions import WorkflowAlreadyStartedError
from temporalio.service import RPCError, RPCStatusCode

from ramp.db.engine import read_snapshot
from ramp.db.keyset import Page, PageRequest
from ramp.db.tables import (
    Customer,
    ExternalAccount,
    IntentRow,
    Project,
    TransactionRow,
)
from ramp.errors import (
    CancelRefusal,
    Conflict,
    IntentError,
    InvalidInput,
    NotFound,
    Refused,
    Unavailable,
)
from ramp.idempotency.store import check_key, key_reused
from ramp.intents.amounts import AmountProblem, parse_amount
from ramp.intents.inline_accounts import (
    InlineAccounts,
    inline_account_ids,
    register_inline_accounts,
)
from ramp.intents.lifecycle import refuse_execution
from ramp.intents.models import IntentRequest, IntentState
from ramp.intents.projection import project
from ramp.intents.redirects import check_redirects
from ramp.intents.states import TERMINAL_INTENT_STATUSES, IntentStatus, PlanStatus
from ramp.intents.views import (
    INTENT,
    IntentView,
    owned_accounts,
    page_of_views,
    read_view,
    view_of,
)
from ramp.intents.waits import CANCEL_TIMEOUT, EXECUTE_TIMEOUT
from ramp.intents.workflow_client import IntentWorkflowClient, WorkflowEnded
from ramp.observability import metrics

_IDEMPOTENCY_IDS = uuid.UUID("4f0a3c55-9b1e-4c1e-8a59-2d8f1f0c6e11")
# How long a write waits for the workflow's answer before reporting 503.
WRITE_TIMEOUT = timedelta(seconds=15)

logger = logging.getLogger("ramp.intents")


@dataclass(frozen=True)
class IntentOrder:
    """What a customer asks for when opening an intent (the body of `POST /intent`)."""

    src_external_account_id: str
    dest_external_account_id: str
    amount: str
    provider_id: str | None = None
    auto_execute: bool = False
    redirect_url: str | None = None
    label: str | None = None
    onboarding_redirect_url: str | None = None
    checkout_redirect_url: str | None = None
    # A held quote (GET /v1/intent/quote): its provider, while it is valid (issue 26).
    quote_id: str | None = None


@dataclass(frozen=True)
class OpenedIntent:
    view: IntentView
    # True when another call with the same Idempotency-Key created the intent.
    replayed: bool


def intent_id_for_key(customer_id: str, key: str) -> str:
    """The id of the intent a customer creates with this Idempotency-Key."""
    return str(uuid.uuid5(_IDEMPOTENCY_IDS, f"{customer_id}:{key}"))


def body_fingerprint(order: IntentOrder) -> str:
    """What tells a retry from another request with the same key: a hash of the body
    as the API received it (its JSON names, every field, defaults included)."""
    body = {
        "srcExternalAccountId": order.src_external_account_id,
        "destExternalAccountId": order.dest_external_account_id,
        "amount": order.amount,
        "providerId": order.provider_id,
        "autoExecute": order.auto_execute,
        "redirectUrl": order.redirect_url,
    }
    # Fields added later count only when sent, so a body sent before they existed
    # hashes as it did then (its retry must still match).
    body.update(
        {
            name: value
            for name, value in (
                ("label", order.label),
                ("onboardingRedirectUrl", order.onboarding_redirect_url),
                ("checkoutRedirectUrl", order.checkout_redirect_url),
                ("quoteId", order.quote_id),
            )
            if value is not None
        }
    )
    canonical = json.dumps(body, sort_keys=True)
    return hashlib.sha256(canonical.encode()).hexdigest()


def check_idempotency_key(key: str) -> None:
    check_key(key)


class IntentService:
    def __init__(
        self,
        db: async_sessionmaker[AsyncSession],
        workflows: IntentWorkflowClient,
        lifetime_seconds: int,
    ) -> None:
        self._db = db
        self._workflows = workflows
        self._lifetime_seconds = lifetime_seconds

    async def open(
        self, project_id: str, customer_id: str, order: IntentOrder, idempotency_key: str | None
    ) -> OpenedIntent:
        """Opens the intent through its workflow, with update-with-start.

        The workflow id and the update id derive from the Idempotency-Key, so every call
        with one key sends the same `open` update: Temporal answers an update it accepted
        with its first result and runs one it lost (a restart before acceptance). Rows in
        the projection are never the answer by themselves, since `open` writes them before
        Temporal has accepted it; only a final intent's rows are.
        """
        _check_amount(order.amount)
        fingerprint = body_fingerprint(order)
        if idempotency_key is not None:
            check_idempotency_key(idempotency_key)
        # Without a key the call gets one of its own, handed back in a 503 so that the
        # retry joins this attempt rather than creating a second intent.
        key = idempotency_key if idempotency_key is not None else str(uuid.uuid4())
        intent_id = intent_id_for_key(customer_id, key)
        async with self._db() as session:
            await _check_redirect_urls(session, project_id, order)
            stored = await session.get(IntentRow, intent_id) if idempotency_key else None
            if stored is not None:
                _check_same_request(stored.fingerprint, fingerprint)
            final = stored is not None and IntentStatus(stored.status) in TERMINAL_INTENT_STATUSES
            if not final:
                # For the answer: the workflow's state plus these, with no read afterwards.
                accounts = await owned_accounts(
                    session,
                    customer_id,
                    [order.src_external_account_id, order.dest_external_account_id],
                )
        if final:
            # A final status is only reached by a workflow that holds the intent, which
            # has ended: nothing left to deliver.
            return await self._replayed(customer_id, intent_id)
        request_id = str(uuid.uuid4())
        request = IntentRequest(
            intent_id=intent_id,
            project_id=project_id,
            customer_id=customer_id,
            src_account_id=order.src_external_account_id,
            dest_account_id=order.dest_external_account_id,
            amount=order.amount,
            provider_id=order.provider_id,
            auto_execute=order.auto_execute,
            redirect_url=order.redirect_url,
            label=order.label,
            onboarding_redirect_url=order.onboarding_redirect_url,
            checkout_redirect_url=order.checkout_redirect_url,
            quote_id=order.quote_id,
            lifetime_seconds=self._lifetime_seconds,
            fingerprint=fingerprint,
        )
        try:
            # An ended workflow with rows is a final intent: never open it again. Without
            # rows it was refused, and a retry re-evaluates in a new run.
            opened = await self._workflows.open(
                request, request_id, reopen=stored is None, rpc_timeout=WRITE_TIMEOUT
            )
        except WorkflowAlreadyStartedError:
            # It ended between our read and the call: its rows are final now.
            return await self._replayed(customer_id, intent_id)
        except (RPCError, WorkflowUpdateRPCTimeoutOrCancelledError, RuntimeError) as error:
            if isinstance(error, RPCError) and error.status is RPCStatusCode.ALREADY_EXISTS:
                # The same refusal, as the time-skipping test server words it.
                return await self._replayed(customer_id, intent_id)
            # RuntimeError: the (lazy) client could not connect at all.
            raise _maybe_created(error, intent_id, key) from None
        except Unavailable as error:
            if error.code == IntentError.TEMPORARILY_UNAVAILABLE:
                raise _maybe_created(error, intent_id, key) from None
            raise
        _check_same_request(opened.fingerprint, fingerprint)
        if opened.opened_by != request_id:
            # Another call with this key created it (concurrently, or before).
            return await self._replayed(customer_id, intent_id)
        metrics.INTENTS_CREATED.labels(opened.provider.provider_code).inc()
        return OpenedIntent(_written(opened, accounts), replayed=False)

    async def open_with_accounts(
        self,
        customer: Customer,
        order: IntentOrder,
        accounts: InlineAccounts,
        idempotency_key: str | None,
    ) -> OpenedIntent:
        """Opens an intent with its accounts inline (`order`'s account ids are ignored):
        registers the pair as `POST /customers/external-accounts` does, under ids derived
        from the key, then opens the intent on them as `open` does. Without a key the call
        gets one of its own, as `open` gives itself one, so that its 503 hands back a key
        whose retry finds the same pair."""
        _check_amount(order.amount)  # before anything is stored
        if idempotency_key is not None:
            check_idempotency_key(idempotency_key)
        key = idempotency_key if idempotency_key is not None else str(uuid.uuid4())
        src_id, dest_id = inline_account_ids(customer.id, key)
        order = replace(order, src_external_account_id=src_id, dest_external_account_id=dest_id)
        async with self._db() as session:
            # What the intent would refuse on its form is refused before anything is
            # stored, and so is a key already used for another intent.
            await _check_redirect_urls(session, customer.project_id, order)
            stored = await session.get(IntentRow, intent_id_for_key(customer.id, key))
            if stored is not None:
                _check_same_request(stored.fingerprint, body_fingerprint(order))
            await register_inline_accounts(session, customer, accounts, key)
        return await self.open(customer.project_id, customer.id, order, key)

    async def execute(self, customer_id: str, intent_id: str) -> IntentView:
        """Creates the transaction of an intent whose compliance plan is complete.

        The workflow's `execute` validator refuses what cannot be executed; only an
        intent whose workflow has ended is answered from the projection, final by then.
        """
        async with self._db() as session:
            intent = await _owned_intent(session, customer_id, intent_id)
            accounts = await owned_accounts(
                session, customer_id, [intent.src_account_id, intent.dest_account_id]
            )
        try:
            # A fresh update id per request: Temporal answers a repeated id with the first
            # result, failures included, so a retry after a provider error must not reuse one.
            executed = await self._workflows.execute(
                intent_id, f"execute-{uuid.uuid4()}", EXECUTE_TIMEOUT
            )
        except WorkflowEnded:
            raise await self._closed(customer_id, intent_id) from None
        return _written(executed, accounts)

    async def cancel(self, customer_id: str, intent_id: str) -> IntentView:
        """Cancels an intent whose deposit has not been received (the workflow's `cancel`
        update decides); an intent whose workflow has ended is final: 409."""
        async with self._db() as session:
            intent = await _owned_intent(session, customer_id, intent_id)
            accounts = await owned_accounts(
                session, customer_id, [intent.src_account_id, intent.dest_account_id]
            )
        try:
            # A fresh update id per request, as for execute: a retry after a provider
            # failure must run again (Idempotency-Key replays a success).
            cancelled = await self._workflows.cancel(
                intent_id, f"cancel-{uuid.uuid4()}", CANCEL_TIMEOUT
            )
        except WorkflowEnded:
            view = await self.get(customer_id, intent_id)
            raise Conflict(
                IntentError.INTENT_NOT_CANCELLABLE,
                f"the intent is {view.intent.status}: it can no longer be cancelled",
                {"reason": CancelRefusal.INTENT_CLOSED.value, "status": view.intent.status},
            ) from None
        return _written(cancelled, accounts)

    async def get(self, customer_id: str, intent_id: str) -> IntentView:
        async with self._db() as session:
            return await read_view(await session.connection(), customer_id, intent_id)

    async def transaction(self, customer_id: str, intent_id: str) -> TransactionRow:
        """The transaction of one of the customer's intents; NotFound before it exists."""
        async with self._db() as session:
            await read_snapshot(session)
            await _owned_intent(session, customer_id, intent_id)
            transaction = (
                await session.exec(
                    select(TransactionRow).where(TransactionRow.intent_id == intent_id)
                )
            ).first()
        if transaction is None:
            raise NotFound("transaction")
        return transaction

    async def list(self, customer_id: str, page: PageRequest) -> Page[IntentView]:
        """The customer's intents, newest first."""
        async with self._db() as session:
            await read_snapshot(session)
            customer = INTENT.customer_id == customer_id
            return await page_of_views(await session.connection(), [customer], page)

    async def _replayed(self, customer_id: str, intent_id: str) -> OpenedIntent:
        """The intent as it is now, for a call that did not create it."""
        return OpenedIntent(await self.get(customer_id, intent_id), replayed=True)

    async def _closed(self, customer_id: str, intent_id: str) -> Refused:
        """Why the transaction of an intent whose workflow has ended cannot be created."""
        async with self._db() as session:
            await read_snapshot(session)
            intent = await _owned_intent(session, customer_id, intent_id)
            transaction = (
                await session.exec(
                    select(TransactionRow.id).where(TransactionRow.intent_id == intent_id)
                )
            ).first()
        refusal = refuse_execution(
            IntentStatus(intent.status),
            PlanStatus(intent.plan_status),
            intent.current_step_code,
            has_transaction=transaction is not None,
        )
        if refusal is None:
            return Refused(IntentError.INTENT_CLOSED, "the intent is closed")
        return Refused(*refusal)


def _written(state: IntentState, accounts: Mapping[str, ExternalAccount]) -> IntentView:
    """The view of what a workflow update just wrote, from the same projection rows."""
    rows = project(state)
    return view_of(rows.intent, rows.steps, rows.transaction, accounts)


async def _owned_intent(session: AsyncSession, customer_id: str, intent_id: str) -> IntentRow:
    intent = await session.get(IntentRow, intent_id)
    if intent is None or intent.customer_id != customer_id:
        # Another customer's intent does not exist, as far as this caller knows.
        raise NotFound("intent")
    return intent


def _maybe_created(error: Exception, intent_id: str, key: str) -> Unavailable:
    """The refusal of an open whose outcome is unknown: the workflow may have been
    started and may still open the intent. It says how to retry safely."""
    logger.warning("opening intent %s: outcome unknown: %s", intent_id, error)
    return Unavailable(
        IntentError.TEMPORARILY_UNAVAILABLE,
        "the intent may have been created; retry the same request with the "
        "Idempotency-Key given in details to get it rather than a second intent",
        {"intentId": intent_id, "idempotencyKey": key},
    )


async def _check_redirect_urls(session: AsyncSession, project_id: str, order: IntentOrder) -> None:
    """The hosted onboarding's redirect URLs must be on the project's onboarding origins."""
    redirects = {
        "onboardingRedirectUrl": order.onboarding_redirect_url,
        "checkoutRedirectUrl": order.checkout_redirect_url,
    }
    if any(redirects.values()):
        project = await session.get(Project, project_id)
        check_redirects(redirects, project.onboarding_origins if project else [])


def _check_amount(amount: str) -> None:
    try:
        parse_amount(amount)
    except AmountProblem as problem:
        raise InvalidInput(
            IntentError.AMOUNT_VALIDATION_ERROR, problem.message, problem.details
        ) from None


def _check_same_request(stored: str, given: str) -> None:
    if stored != given:
        # 422, as every creating POST answers (ramp/idempotency); it was 409 before.
        raise key_reused()
