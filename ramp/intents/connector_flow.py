"""IntentWorkflow's path for real providers (a connector, production): a mixin.

Workflow code (deterministic: the workflow's clock, no I/O), kept in `ramp` because
the workflow modules import only what the sandbox passes through (worker.py).

Every provider call is a regular activity on the providers' task queue, made outside
the workflow's lock; only applying its result takes the lock. One driver coroutine per
intent walks the provider's flow after `open`:

1. compliance: the provider's customer (created once) and each requirement's hand-off
   (Bridge: KYC and terms-of-service links, shown from our onboarding page); verdicts
   come by provider webhook (`update_step` signals, as the sandbox's) or by the poll;
2. the transfer, once the plan is complete and the intent is executed (auto, or
   `POST /intent/{id}/transaction`), with our transaction id as idempotency key;
3. the status poll until the intent ends; provider webhooks (`report_provider_event`)
   usually get there first.

Polls back off from the intent's first delay to its maximum (settings RAMP_PROVIDER_POLL_FIRST
and _MAX, 3 minutes and 1 hour by default), so a lost webhook delays an intent but never
strands it. A retryable provider error is retried until the intent's expiry; a refusal
fails the intent with the provider's reason; expiry voids the order with a bounded
number of attempts and never holds the lock across the call.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, TypeVar

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError, ApplicationError

from ramp import temporal
from ramp.errors import ProviderRefusal
from ramp.intents import cancellation, handoffs, lifecycle, provider_activities
from ramp.intents.models import IntentState, ProviderEvent, StepUpdate, TransactionRequest
from ramp.intents.provider_calls import (
    PROVIDER_NOT_SUPPORTED,
    PROVIDER_REFUSED,
    ComplianceQuery,
    TransferOrder,
    TransferQuery,
    TransferVoid,
)
from ramp.intents.states import PlanStatus, ProviderEventType, TransactionStatus

# Patch id of this path (connector intents exist only after it).
PROVIDER_CONNECTORS = "provider-connectors"

# The poll's schedule is the intent's (`ProviderSelection.poll_first_seconds` and
# `poll_max_seconds`: the worker's RAMP_PROVIDER_POLL_FIRST / _MAX when it opened,
# 3 minutes and 1 hour by default and in every earlier history).
# How long `execute` waits for the order before answering without it.
EXECUTE_WAIT = timedelta(seconds=20)
# The void at expiry: bounded, so an outage cannot hold the intent open for ever.
VOID_BUDGET = timedelta(minutes=10)
# A customer's cancel waits this long for the provider's void (an HTTP call is waiting).
CANCEL_BUDGET = timedelta(seconds=20)
# One poll's budget: the next poll comes anyway.
POLL_BUDGET = timedelta(minutes=10)
# After expiry with an order the provider would not void: watch for a late deposit.
LATE_DEPOSIT_WATCH = timedelta(days=30)

T = TypeVar("T")


@dataclass(frozen=True)
class _Refused:
    reason: str


@dataclass(frozen=True)
class _GaveUp:
    reason: str


def _retry() -> RetryPolicy:
    return RetryPolicy(
        initial_interval=timedelta(seconds=1),
        backoff_coefficient=2.0,
        maximum_interval=timedelta(minutes=5),
        maximum_attempts=0,
        non_retryable_error_types=[PROVIDER_REFUSED, PROVIDER_NOT_SUPPORTED],
    )


class ConnectorSteps:
    """Mixed into IntentWorkflow, whose state, lock and projection writes it uses."""

    _state: IntentState | None
    _lock: asyncio.Lock
    _transfer_refusal: str | None
    _early_verdicts: dict[str, StepUpdate]

    _void_unconfirmed: bool

    # IntentWorkflow's own (it comes first in the method order).
    async def _record(self, state: IntentState) -> None:
        raise NotImplementedError

    def _publish(self, state: IntentState) -> None:
        raise NotImplementedError

    def _now(self) -> datetime:
        raise NotImplementedError

    # --- the driver -----------------------------------------------------------------

    async def _drive(self, state: IntentState) -> None:
        try:
            await self._walk(state)
        except asyncio.CancelledError:
            raise
        except Exception:
            workflow.logger.exception("intent %s: the provider driver failed", state.id)
            raise

    async def _walk(self, state: IntentState) -> None:
        await self._comply(state)
        await workflow.wait_condition(lambda: lifecycle.is_terminal(state) or _ready(state))
        if lifecycle.is_terminal(state):
            return
        await self._place_order(state)
        await self._follow_transfer(state)

    async def _comply(self, state: IntentState) -> None:
        delay = _poll_first(state)
        while not lifecycle.is_terminal(state) and state.plan.status is PlanStatus.PENDING:
            outcome = await self._call(
                provider_activities.provider_compliance,
                ComplianceQuery(
                    provider_account_id=state.provider.provider_account_id,
                    intent_id=state.id,
                    customer_id=state.customer_id,
                    requirements=[
                        step.code
                        for step in state.plan.steps
                        if step.status.value in ("PENDING", "SUBMITTED")
                    ],
                ),
                until=state.expired_at,
            )
            if isinstance(outcome, _GaveUp):
                return  # the intent expired meanwhile
            async with self._lock:
                if isinstance(outcome, _Refused):
                    changed = handoffs.fail(state, outcome.reason, self._now())
                else:
                    changed = handoffs.apply_standing(state, outcome, self._now())
                if changed:
                    await self._record(state)
                    self._publish(state)
            if lifecycle.is_terminal(state) or state.plan.status is not PlanStatus.PENDING:
                return
            try:
                await workflow.wait_condition(_moved(state), timeout=delay)
                delay = _poll_first(state)  # something moved: the next poll comes soon again
            except TimeoutError:
                delay = _poll_next(state, delay)

    async def _place_order(self, state: IntentState) -> None:
        outcome = await self._call(
            provider_activities.provider_create_transfer,
            TransferOrder(
                provider_account_id=state.provider.provider_account_id,
                request=_transaction_request(state),
            ),
            until=state.expired_at,
        )
        if isinstance(outcome, _GaveUp):
            self._transfer_refusal = outcome.reason
            return
        async with self._lock:
            if isinstance(outcome, _Refused):
                self._transfer_refusal = outcome.reason
                if handoffs.fail(state, outcome.reason, self._now()):
                    await self._record(state)
                    self._publish(state)
                return
            orphan = state.transaction is None and lifecycle.is_terminal(state)
            if not orphan:
                if state.transaction is not None:
                    return
                lifecycle.attach_transaction(state, outcome, self._now())
                await self._record(state)
                self._publish(state)
                return
        # The intent ended (cancelled, expired) while the order was being placed: nobody
        # will see its instructions, so void it (a deposit that lands anyway is unmatched).
        await self._call(
            provider_activities.provider_cancel_transfer,
            TransferVoid(
                provider_account_id=state.provider.provider_account_id,
                provider_reference=outcome.provider_reference,
            ),
            budget=VOID_BUDGET,
        )

    async def _follow_transfer(self, state: IntentState) -> None:
        delay = _poll_first(state)
        while not lifecycle.is_terminal(state) and state.transaction is not None:
            try:
                await workflow.wait_condition(_moved(state), timeout=delay)
                delay = _poll_first(state)
                continue
            except TimeoutError:
                delay = _poll_next(state, delay)
            await self._poll_transfer(state)

    async def _poll_transfer(self, state: IntentState) -> None:
        transaction = state.transaction
        assert transaction is not None
        outcome = await self._call(
            provider_activities.provider_get_transfer,
            TransferQuery(
                provider_account_id=state.provider.provider_account_id,
                provider_reference=transaction.provider_reference,
            ),
            budget=POLL_BUDGET,
        )
        if isinstance(outcome, (_Refused, _GaveUp)):
            workflow.logger.warning("transfer poll failed: %s", outcome.reason)
            return
        for event_type in outcome.events:
            await self._apply_event(
                state,
                ProviderEvent(
                    event_id=provider_event_id(transaction.provider_reference, event_type),
                    transaction_id=transaction.id,
                    type=event_type,
                    reason=outcome.reason,
                ),
            )

    async def _apply_event(self, state: IntentState, event: ProviderEvent) -> None:
        async with self._lock:
            now = self._now()
            changed = False
            if event.type is ProviderEventType.DEPOSIT_RECEIVED:
                reason = _unmatched(state, event)
                if reason is not None:
                    changed = handoffs.mark_unmatched(state, event.event_id, reason, now)
            changed = lifecycle.apply_provider_event(state, event, now) or changed
            if changed:
                await self._record(state)
                self._publish(state)

    # --- handlers' connector parts ------------------------------------------------------

    async def _connector_execute(self, state: IntentState) -> None:
        """`execute` of a connector intent: the driver places the order; this waits for
        it (bounded) without holding the lock."""
        if not state.execution_requested:
            state.execution_requested = True
        try:
            await workflow.wait_condition(
                lambda: (
                    state.transaction is not None
                    or lifecycle.is_terminal(state)
                    or self._transfer_refusal is not None
                ),
                timeout=EXECUTE_WAIT,
            )
        except TimeoutError:
            return

    def _connector_step_update(self, state: IntentState, update: StepUpdate) -> bool:
        """A provider verdict for a step: applied when current; a verdict for a later
        step (a webhook ahead of the plan) waits until that step is current."""
        now = self._now()
        applied = lifecycle.apply_step_update(state, update, now)
        if not applied:
            codes = [s.code for s in state.plan.steps]
            current = state.plan.current_step_code
            start = codes.index(current) + 1 if current in codes else len(codes)
            later = {s.code for s in state.plan.steps[start:] if s.status.value == "PENDING"}
            if update.step_code in later:
                self._early_verdicts[update.step_code] = update
            return False
        while (code := state.plan.current_step_code) in self._early_verdicts:
            if not lifecycle.apply_step_update(state, self._early_verdicts.pop(code), now):
                break
        return True

    async def _void_at_provider(
        self, state: IntentState, budget: timedelta = VOID_BUDGET
    ) -> bool | None:
        """Voids the order awaiting its deposit, with a bounded number of attempts and
        outside the lock (expiry; a cancellation would do the same). True: voided, or
        nothing to void; False: the provider holds the deposit (its events follow);
        None: not confirmed (a deposit that still lands is an unmatched deposit)."""
        transaction = state.transaction
        if transaction is None or transaction.status is not TransactionStatus.PENDING:
            return True
        outcome = await self._call(
            provider_activities.provider_cancel_transfer,
            TransferVoid(
                provider_account_id=state.provider.provider_account_id,
                provider_reference=transaction.provider_reference,
            ),
            budget=budget,
        )
        if isinstance(outcome, (_Refused, _GaveUp)):
            workflow.logger.warning("order not voided: %s", outcome.reason)
            self._void_unconfirmed = True
            return None
        if not outcome.voided:
            workflow.logger.info("order not voided: %s", outcome.reason)
        return bool(outcome.voided)

    async def _connector_cancel(self, state: IntentState) -> IntentState:
        """`cancel` of a connector intent: the void goes outside the lock, bounded by
        the HTTP caller's patience; the customer hears 409 when the provider holds the
        deposit, 502 (nothing changed, retry) when the void was not confirmed."""
        voided = await self._void_at_provider(state, budget=CANCEL_BUDGET)
        if voided is not True:
            code = ProviderRefusal.ORDER_NOT_CANCELLABLE if voided is False else None
            raise temporal.application_error(cancellation.provider_refusal(state, code))
        async with self._lock:
            refused = cancellation.refusal(state)  # an event may have run meanwhile
            if refused is not None:
                raise temporal.application_error(refused)
            cancellation.cancel(state, self._now())
            await self._record(state)
            self._publish(state)
        return state

    async def _connector_expire(self, state: IntentState) -> bool:
        """Voids the order and expires the intent; False when the provider holds the
        deposit (its events follow)."""
        if await self._void_at_provider(state) is False:
            return False
        async with self._lock:
            if lifecycle.expire(state, self._now()):
                await self._record(state)
                self._publish(state)
        return True

    async def _watch_late_deposit(self, state: IntentState) -> None:
        """An expired intent whose order the provider did not confirm void: poll for a
        deposit that still lands (reported as an unmatched deposit), for a while."""
        if not self._void_unconfirmed or state.transaction is None:
            return
        deadline = workflow.now() + LATE_DEPOSIT_WATCH
        delay = _poll_first(state)
        while workflow.now() < deadline and state.unmatched_deposit is None:
            try:
                await workflow.wait_condition(
                    lambda: state.unmatched_deposit is not None, timeout=delay
                )
            except TimeoutError:
                delay = _poll_next(state, delay)
                await self._poll_transfer(state)

    # --- calls --------------------------------------------------------------------------

    async def _call(
        self,
        activity: Callable[[Any], Any],
        argument: Any,
        *,
        until: datetime | None = None,
        budget: timedelta | None = None,
    ) -> Any:
        """One provider activity: its result, `_Refused` (never retried) or `_GaveUp`
        (still failing when the budget ran out: until `until`, or for `budget`)."""
        if until is not None:
            budget = max(until - workflow.now(), timedelta(seconds=1))
        assert budget is not None
        state = self._state
        assert state is not None
        try:
            return await workflow.execute_activity(
                activity,
                argument,
                task_queue=temporal.providers_queue(workflow.info().task_queue),
                start_to_close_timeout=timedelta(seconds=30),
                schedule_to_close_timeout=budget,
                retry_policy=_retry(),
            )
        except ActivityError as error:
            cause = error.cause
            while isinstance(cause, ActivityError):
                cause = cause.cause
            if isinstance(cause, ApplicationError) and cause.type in (
                PROVIDER_REFUSED,
                PROVIDER_NOT_SUPPORTED,
            ):
                return _Refused(_refusal(state.provider.provider_name, cause))
            message = str(cause) if cause is not None else str(error)
            return _GaveUp(f"{state.provider.provider_name} unavailable: {message}")


def _refusal(provider_name: str, error: ApplicationError) -> str:
    """The provider's reason in our words, with the fields it names as our pointers
    (into the account's metadata), so a client can say which field to fix."""
    details = error.details[0] if error.details and isinstance(error.details[0], dict) else {}
    fields = details.get("fields") or {}
    named = "; ".join(f"{pointer}: {reason}" for pointer, reason in sorted(fields.items()))
    return f"{provider_name}: {error.message}" + (f" ({named})" if named else "")


def provider_event_id(provider_reference: str, event_type: ProviderEventType) -> str:
    """One id per (transfer, event type): the poll and the webhook report the same step
    under the same id, so it applies once."""
    return f"{provider_reference}:{event_type.value}"


def _poll_first(state: IntentState) -> timedelta:
    return timedelta(seconds=state.provider.poll_first_seconds)


def _poll_next(state: IntentState, delay: timedelta) -> timedelta:
    """The delay after `delay` ran out with nothing moving: doubled, up to the maximum."""
    return min(delay * 2, timedelta(seconds=state.provider.poll_max_seconds))


def _moved(state: IntentState) -> Callable[[], bool]:
    """A condition: the state changed since now, or the intent ended."""
    revision = state.revision
    return lambda: state.revision != revision or lifecycle.is_terminal(state)


def _ready(state: IntentState) -> bool:
    """The plan is complete and the intent is to be executed now."""
    return lifecycle.execution_refusal(state) is None and (
        state.auto_execute or not state.onboarding or state.execution_requested
    )


def _unmatched(state: IntentState, event: ProviderEvent) -> str | None:
    if lifecycle.is_terminal(state):
        return f"a deposit arrived for a {state.status.value.lower()} intent: refund it"
    if event.received_amount is None:
        return None
    # Compared as money: an amount in another currency never matches the order.
    received = (event.received_amount, event.received_currency or state.currency_code)
    if received != (state.amount, state.currency_code):
        return (
            f"received {received[0]} {received[1]}, the order is for "
            f"{state.amount} {state.currency_code}: refund or settle it by hand"
        )
    return None


def _transaction_request(state: IntentState) -> TransactionRequest:
    selection = state.provider
    return TransactionRequest(
        transaction_id=lifecycle.derived_id(state.id, "transaction"),
        intent_id=state.id,
        customer_id=state.customer_id,
        provider_code=selection.provider_code,
        movement_type=selection.movement_type,
        src_account_id=state.src_account_id,
        dest_account_id=state.dest_account_id,
        amount=state.amount,
        source_currency=selection.source_currency,
        destination_currency=selection.destination_currency,
    )
