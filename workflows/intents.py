"""IntentWorkflow: one per payment intent, from `POST /intent` to a final status.

`POST /intent` starts it with update-with-start: the `open` update selects the provider,
builds the compliance plan and, when every requirement is already satisfied, creates
the transaction, all before the HTTP response. The workflow then waits, durably, for
onboarding outcomes (`update_step`), `POST /intent/{id}/transaction` (`execute`),
provider events (`report_provider_event`) and its expiry timer.

State changes are computed by `ramp.intents.lifecycle` (pure, deterministic) and
written to the SQL projection by the `record_intent` activity after each change. One
lock serialises handlers, so each sees the state the previous one left.
"""

from __future__ import annotations

import contextlib
from datetime import timedelta

from temporalio import workflow
from temporalio.exceptions import ActivityError, ApplicationError

from ramp import temporal
from ramp.errors import Conflict, IntentError, Refused, Unavailable
from ramp.intents import cancellation, lifecycle
from ramp.intents.activity_options import VERIFY as _VERIFY
from ramp.intents.clock import ClockAdvance, ClockAdvanced
from ramp.intents.models import (
    IntentOutcome,
    IntentRequest,
    IntentState,
    ProviderEvent,
    StepSubmission,
    StepUpdate,
    SubmissionCheck,
)
from ramp.onboarding.activities import verify_submission
from workflows import provider_calls as calls
from workflows.intent_base import select_and_check
from workflows.provider_flow import ProviderFlow
from workflows.sandbox_path import CANCEL_ORDER_ON_EXPIRY, CUSTOMER_CANCEL, SandboxPath, cause_of

__all__ = [
    "CANCEL_ORDER_ON_EXPIRY",
    "CLOSE_APART",
    "CUSTOMER_CANCEL",
    "ONE_PROVIDER_PATH",
    "OPEN_UPDATE_WAIT",
    "OPEN_WITHOUT_UPDATE",
    "PROVIDER_CONNECTORS",
    "IntentRun",
    "IntentWorkflow",
]

# Patch ids: workflows started before a change replay the old code path (see
# tests/test_replay.py; each id's lifecycle in docs/decisions.md). Added with the
# bounded wait for the `open` update, events kept until the intent is
# opened, and refusals marked for operators.
OPEN_WITHOUT_UPDATE = "open-without-update"

# How long `run()` waits for the `open` update before opening the intent itself. The
# update arrives with the start, in the same workflow task; it is missing only when the
# server lost it (a restart before it was accepted), and a retry of `POST /intent` with
# the same Idempotency-Key would deliver it again. Opening from here repairs the intent
# when nobody retries: the lookups, the order (keyed by the derived transaction id) and
# the projection write are all safe to repeat.
OPEN_UPDATE_WAIT = timedelta(minutes=1)
# Added with the first network connector (Bridge): its intents took the provider path.
PROVIDER_CONNECTORS = "provider-connectors"
# Added with issue 25: every new intent, the sandbox's included, takes the provider
# path (workflows/provider_flow.py); sandbox intents from before take
# workflows/sandbox_path.py.
ONE_PROVIDER_PATH = "one-provider-path"
# Marks a refused intent's workflow in the Temporal UI (RampIntentStatus).
REFUSED = "REFUSED"
# Added with issue 23: the run ends in a workflow task of its own, after CLOSING_DELAY,
# never in the task that answered an update (see `_close`).
CLOSE_APART = "close-apart"
CLOSING_DELAY = timedelta(seconds=1)
# Added after a CI run of the worker-kill test: a provider event for the transaction
# the order is placing waits for that transaction, rather than being dropped (see
# `report_provider_event`).
EVENT_AWAITS_ORDER = "event-awaits-order"


class IntentRun(ProviderFlow, SandboxPath):
    """IntentWorkflow's state and the bodies of its handlers. A plain object the
    workflow class delegates to, so that `workflow.defn`, which inspects every member
    of the workflow class in every workflow run (the sandbox imports this module anew
    each time), sees the handlers only (docs/decisions.md, issue 25)."""

    async def run(self, request: IntentRequest) -> IntentOutcome:
        if workflow.patched(OPEN_WITHOUT_UPDATE):
            try:
                await workflow.wait_condition(self._decided, timeout=OPEN_UPDATE_WAIT)
            except TimeoutError:
                workflow.logger.warning(
                    "intent %s: no open update within %s; the workflow opens it",
                    request.intent_id,
                    OPEN_UPDATE_WAIT,
                )
                # Visible in the Temporal UI: this intent did not open the usual way.
                workflow.upsert_memo({"openedWithoutUpdate": True})
                with contextlib.suppress(ApplicationError):  # a refusal: marked, run ends
                    await self._open(None)
        else:
            await workflow.wait_condition(self._decided)
        state = self._state
        if state is not None and self._one_path:
            await self._run_provider(state)
        elif state is not None:
            await self._run_sandbox(state)
        await self._close()
        return IntentOutcome(intent_id=request.intent_id, status=state.status if state else None)

    async def _close(self) -> None:
        """Waits for the handlers, then lets the run end in a workflow task of its own.

        The server refuses a task that completes the workflow while a new event (a
        provider's signal) arrived during it, and drops that task's update answers with
        it: a cancel racing a deposit got "unexpected workflow task failure" (503), after
        the order was voided and CANCELLED recorded. A timer first answers the update in
        this task; a refused closing task then holds nothing but the closing. A refused
        intent (no state) still ends at once: nothing signals it."""
        await workflow.wait_condition(workflow.all_handlers_finished)
        if self._state is not None and workflow.patched(CLOSE_APART):
            await workflow.sleep(CLOSING_DELAY)
            await workflow.wait_condition(workflow.all_handlers_finished)

    async def open(self, request_id: str | None = None) -> IntentState:
        """Selects the provider, builds the plan and, when it is complete, the transaction.

        Returns the state as the projection now holds it: the API renders the 201 from it.
        `request_id` names the `POST /intent` call; the state's `opened_by` is the first
        call answered with it, so the API tells the creating call from replays.
        """
        return await self._open(request_id)

    async def _open(self, request_id: str | None) -> IntentState:
        async with self._lock:
            if self._refusal is not None:
                raise self._refusal
            if self._state is not None:
                # Another request with the same Idempotency-Key: the API compares
                # fingerprints and refuses a different body. An intent the workflow
                # opened itself goes to the first request that asks for it.
                if self._state.opened_by is None:
                    self._state.opened_by = request_id
                return self._state
            request = self._request
            try:
                selection, checks = await select_and_check(request)
            except (ActivityError, ApplicationError) as error:
                self._refusal = _business_error(error, "the intent could not be opened; try again")
                self._mark_refused(self._refusal)
                raise self._refusal from None
            state = lifecycle.open_intent(request, selection, checks.results, self._now())
            state.opened_by = request_id
            # Bridge's intents took the provider path before it was every intent's.
            self._one_path = _connector(state) or workflow.patched(ONE_PROVIDER_PATH)
            # A network connector's order is placed by the driver, outside this update;
            # an in-process one's here, so the 201 carries the transaction. A provider
            # failure leaves a valid intent without a transaction: the client may retry
            # with POST /intent/{id}/transaction.
            if self._one_path:
                if calls.orders_inline(state.provider) and lifecycle.should_auto_execute(state):
                    await self._order_inline(state)
            elif lifecycle.should_auto_execute(state):
                await self._create_transaction(state, raise_on_failure=False)
            await self._record(state)
            self._state = state
            self._publish(state)
            return state

    def _decided(self) -> bool:
        """Whether the intent was opened or refused."""
        return self._state is not None or self._refusal is not None

    async def _until_decided(self) -> None:
        """Signals that arrive before the intent is opened wait for it (they were dropped
        before OPEN_WITHOUT_UPDATE); `run()` opens it within OPEN_UPDATE_WAIT."""
        if not self._decided() and workflow.patched(OPEN_WITHOUT_UPDATE):
            await workflow.wait_condition(self._decided)

    def _mark_refused(self, refusal: ApplicationError) -> None:
        """One log line, and a search attribute and memo that explain to an operator
        why this workflow closed without an intent."""
        request = self._request
        workflow.logger.info("intent %s refused: %s", request.intent_id, refusal.type)
        if not workflow.patched(OPEN_WITHOUT_UPDATE):
            return
        workflow.upsert_search_attributes(
            [
                temporal.INTENT_STATUS.value_set(REFUSED),
                temporal.PROJECT_ID.value_set(request.project_id),
                temporal.CUSTOMER_ID.value_set(request.customer_id),
            ]
        )
        workflow.upsert_memo({"refused": f"{refusal.type}: {refusal.message}"})

    async def execute(self) -> IntentState:
        """Creates the transaction of an intent whose compliance plan is complete; returns
        the state as the projection now holds it."""
        async with self._lock:
            state = self._opened()
            refusal = lifecycle.execution_refusal(state)
            if refusal is not None:
                raise temporal.application_error(Refused(*refusal))
            if not self._one_path:
                await self._create_transaction(state, raise_on_failure=True)
                await self._record(state)
                self._publish(state)
                return state
            if calls.orders_inline(state.provider):
                revision = state.revision
                await self._order_inline(state)
                if state.revision != revision:
                    await self._record(state)
                    self._publish(state)
                if state.transaction is None:
                    raise temporal.application_error(self._no_order_error(state))
                return state
        await self._execute_by_driver(state)
        if state.transaction is None and self._transfer_refusal is not None:
            raise temporal.application_error(self._no_order_error(state))
        return state

    def check_execute(self) -> None:
        # Refused here, a duplicate request leaves no trace in the history.
        refusal = lifecycle.execution_refusal(self._opened())
        if refusal is not None:
            raise temporal.application_error(Refused(*refusal))

    async def update_step(self, update: StepUpdate) -> None:
        """An onboarding outcome (submitted, verified, rejected) for the current step."""
        await self._until_decided()
        async with self._lock:
            state = self._state
            if state is not None and self._one_path:
                if self._step_update(state, update):
                    if calls.orders_inline(state.provider) and lifecycle.should_auto_execute(state):
                        await self._order_inline(state)
                    await self._record(state)
                    self._publish(state)
                return
            if state is None or not lifecycle.apply_step_update(state, update, self._now()):
                workflow.logger.warning("step update ignored: %s", update)
                return
            if lifecycle.should_auto_execute(state):
                await self._create_transaction(state, raise_on_failure=False)
            await self._record(state)
            self._publish(state)

    async def submit_step(self, submission: StepSubmission) -> IntentState:
        """The customer submitted the current step through the hosted onboarding.

        Verification decides (VERIFIED, REJECTED, or SUBMITTED while a person reviews
        it); the state returned is what the projection now holds, so the API answers
        from it. Only the submission's id enters the history, never its content.
        """
        async with self._lock:
            state = self._opened()
            _refuse_submission(state, submission)
            try:
                verdict = await workflow.execute_local_activity(
                    verify_submission,
                    SubmissionCheck(
                        intent_id=state.id,
                        customer_id=state.customer_id,
                        submission_id=submission.submission_id,
                        step_code=submission.step_code,
                        provider_code=state.provider.provider_code,
                        amount=state.amount,
                        currency_code=state.currency_code,
                    ),
                    **_VERIFY,
                )
            except (ActivityError, ApplicationError) as error:
                raise _business_error(
                    error, "the submission could not be verified; try again"
                ) from None
            lifecycle.apply_submission(state, submission.step_code, verdict, self._now())
            if not self._one_path:
                if lifecycle.should_auto_execute(state):
                    await self._create_transaction(state, raise_on_failure=False)
            elif calls.orders_inline(state.provider) and lifecycle.should_auto_execute(state):
                await self._order_inline(state)
            await self._record(state)
            self._publish(state)
            return state

    def check_submit_step(self, submission: StepSubmission) -> None:
        # Refused here (not current, plan closed), a submission leaves no history.
        _refuse_submission(self._opened(), submission)

    async def report_provider_event(self, event: ProviderEvent) -> None:
        """Progress of the transaction as the provider reports it."""
        await self._until_decided()
        if self._state is not None and self._one_path:
            opened = self._state
            if _awaits_order(opened, event) and workflow.patched(EVENT_AWAITS_ORDER):
                # The provider reports on the transfer our order is placing: its answer
                # has not reached this run yet (the worker that saw it died before
                # completing its task, or the webhook simply won the race), and Temporal
                # delivers a signal before an activity's result in one activation.
                # Dropped, the event would wait for the next poll (minutes).
                await workflow.wait_condition(
                    lambda: opened.transaction is not None or lifecycle.is_terminal(opened)
                )
            await self._apply_event(opened, event)
            return
        async with self._lock:
            state = self._state
            if state is None or not lifecycle.apply_provider_event(state, event, self._now()):
                workflow.logger.warning("provider event ignored: %s", event)
                return
            await self._record(state)
            self._publish(state)

    async def cancel(self) -> IntentState:
        """The customer cancels before the deposit is received: the provider voids the
        order, the intent and its transaction end CANCELLED (ramp/intents/cancellation.py)."""
        if self._state is not None and self._one_path:
            return await self._cancel_at_provider(self._state)
        async with self._lock:
            state = self._opened()
            self._check_cancel()  # again: an expiry or a provider event may have run since
            return await self._cancel_sandbox(state)

    def _check_cancel(self) -> None:
        refused = cancellation.refusal(self._opened())
        if refused is not None:
            raise temporal.application_error(refused)


@workflow.defn
class IntentWorkflow:
    """One per payment intent: the handlers, each delegating to the intent's `IntentRun`."""

    @workflow.init
    def __init__(self, request: IntentRequest) -> None:
        self._intent = IntentRun(request)

    @workflow.run
    async def run(self, request: IntentRequest) -> IntentOutcome:
        return await self._intent.run(request)

    @workflow.update
    async def open(self, request_id: str | None = None) -> IntentState:
        """Selects the provider, builds the plan and, when it is complete, the transaction;
        returns the state as the projection now holds it (the API renders the 201)."""
        return await self._intent.open(request_id)

    @workflow.update
    async def execute(self) -> IntentState:
        """Creates the transaction of an intent whose compliance plan is complete."""
        return await self._intent.execute()

    @execute.validator
    def _check_execute(self) -> None:
        self._intent.check_execute()

    @workflow.signal
    async def update_step(self, update: StepUpdate) -> None:
        """An onboarding outcome (submitted, verified, rejected) for the current step."""
        await self._intent.update_step(update)

    @workflow.update
    async def submit_step(self, submission: StepSubmission) -> IntentState:
        """The customer submitted the current step through the hosted onboarding."""
        return await self._intent.submit_step(submission)

    @submit_step.validator
    def _check_submit_step(self, submission: StepSubmission) -> None:
        self._intent.check_submit_step(submission)

    @workflow.signal
    async def report_provider_event(self, event: ProviderEvent) -> None:
        """Progress of the transaction as the provider reports it."""
        await self._intent.report_provider_event(event)

    @workflow.update
    async def cancel(self) -> IntentState:
        """The customer cancels before the deposit is received."""
        return await self._intent.cancel()

    @cancel.validator
    def _check_cancel(self) -> None:
        self._intent._check_cancel()

    @workflow.update
    async def advance_clock(self, advance: ClockAdvance) -> ClockAdvanced:
        """Sandbox only: moves the intent's timers forward (ramp/intents/clock.py)."""
        return await self._intent.advance_clock(advance)


def _connector(state: IntentState) -> bool:
    """A network connector's intent opened before ONE_PROVIDER_PATH (Bridge's took the
    provider path already). No history recorded before connectors holds one, so old
    runs never ask the patch."""
    return state.provider.connector and workflow.patched(PROVIDER_CONNECTORS)


def _awaits_order(state: IntentState, event: ProviderEvent) -> bool:
    """Whether `event` is about the transaction this intent's order will create (its
    derived id) before the order's answer has attached it."""
    return (
        state.transaction is None
        and not lifecycle.is_terminal(state)
        and event.transaction_id == lifecycle.derived_id(state.id, "transaction")
    )


def _refuse_submission(state: IntentState, submission: StepSubmission) -> None:
    refusal = lifecycle.submission_refusal(state, submission.step_code)
    if refusal is not None:
        code, message = refusal
        raise temporal.application_error(
            Conflict(code, message, {"currentStepCode": state.plan.current_step_code})
        )


def _business_error(error: BaseException, retry_message: str) -> ApplicationError:
    """The activity's business error, so the update fails with its type and details; any
    other failure is TEMPORARILY_UNAVAILABLE with `retry_message`."""
    cause = cause_of(error)
    if isinstance(cause, ApplicationError) and cause.non_retryable:
        return ApplicationError(
            cause.message,
            *cause.details,
            type=cause.type,
            non_retryable=True,
            category=cause.category,
        )
    return temporal.application_error(
        Unavailable(IntentError.TEMPORARILY_UNAVAILABLE, retry_message)
    )
