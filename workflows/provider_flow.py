"""What a provider does for an intent, the same code for every connector: compliance
hand-offs, the order, provider events, the poll, cancel and expiry, unmatched money.

Provider calls go through workflows/provider_calls.py, which reads the connector's
declaration: an in-process connector (the sandbox's mocks) is called with local
activities and its order is placed inline by the handler that makes the intent ready
(`_order_inline`); a network connector (Bridge) with regular activities on the
providers' queue, outside the lock, its order placed by the driver. One driver
coroutine per intent walks the provider's flow after `open`:

1. compliance: the provider's customer (created once) and each requirement's hand-off
   (Bridge: KYC and terms-of-service links; the sandbox: FORMs our hosted onboarding
   collects); verdicts the provider decides come by provider webhook (`update_step`
   signals) or by the poll, which stops once every open step is a FORM of ours;
2. the order, once the plan is complete and the intent is executed (auto, or
   `POST /intent/{id}/transaction`), with our transaction id as idempotency key;
3. the status poll until the intent ends; provider events (`report_provider_event`:
   webhooks, the sandbox's endpoints) usually get there first.

Polls back off from the intent's first delay to its maximum (worker settings
RAMP_PROVIDER_POLL_FIRST and _MAX, carried in the selection), so a lost webhook delays
an intent but never strands it. A refusal fails the intent with the provider's reason;
a declined attempt leaves it for the client to ask again, as does an order that failed
on our side (workflows/internal_errors.py); expiry voids the order with
a bounded number of attempts and never holds the lock across the call.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import timedelta

from temporalio import workflow

from ramp import temporal
from ramp.adapters.contract import CallMode
from ramp.errors import ProviderRefusal
from ramp.intents import cancellation, handoffs, lifecycle, provider_activities
from ramp.intents.models import IntentState, ProviderEvent, StepUpdate, TransactionRequest
from ramp.intents.provider_calls import (
    ComplianceQuery,
    TransferOrder,
    TransferQuery,
    TransferVoid,
    provider_event_id,
)
from ramp.intents.states import PlanStatus, ProviderEventType, TransactionStatus
from ramp.intents.waits import CANCEL_BUDGET, EXECUTE_WAIT
from workflows import provider_calls as calls
from workflows.declined_orders import DeclinedOrders
from workflows.failover import ORDER_BUDGET, Failover, moved_reason
from workflows.internal_errors import InternalOrderErrors
from workflows.order_pauses import OrderPauses

# The void at expiry: bounded, so an outage cannot hold the intent open for ever.
VOID_BUDGET = timedelta(minutes=10)
# One poll's budget: the next poll comes anyway.
POLL_BUDGET = timedelta(minutes=10)
# After expiry with an order the provider would not void: watch for a late deposit.
LATE_DEPOSIT_WATCH = timedelta(days=30)


class ProviderFlow(Failover, OrderPauses, DeclinedOrders, InternalOrderErrors):
    # --- the driver -----------------------------------------------------------------

    async def _run_provider(self, state: IntentState) -> None:
        """The driver walks the provider's flow while this waits for the expiry, which
        voids the order outside the lock."""
        driver = asyncio.create_task(self._drive(state))
        while not lifecycle.is_terminal(state):
            try:
                await self._wait_until(
                    lambda: not lifecycle.deposit_pending(state), state.expired_at
                )
            except TimeoutError:
                if not await self._expire_at_provider(state):
                    # The provider holds the deposit: no expiry any more.
                    await workflow.wait_condition(lambda: not lifecycle.deposit_pending(state))
                continue
            await workflow.wait_condition(lambda: lifecycle.is_terminal(state))
        # Not cancelled: it may be writing the projection. Every wait of the driver
        # ends with the intent, and every call within the expiry or a bounded budget.
        await driver
        await self._watch_late_deposit(state)

    async def _drive(self, state: IntentState) -> None:
        try:
            await self._walk(state)
        except asyncio.CancelledError:
            raise
        except Exception:
            workflow.logger.exception("intent %s: the provider driver failed", state.id)
            raise

    async def _walk(self, state: IntentState) -> None:
        while True:
            # A failover (workflows/failover.py) walks the new provider's flow again;
            # runs without it pass here once, as before.
            moves = len(state.provider_moves)
            await self._comply(state)
            inline = calls.orders_inline(state.provider)
            await workflow.wait_condition(_order_due(state, moves, inline))
            if lifecycle.is_terminal(state):
                return
            if state.transaction is None and len(state.provider_moves) == moves:
                self._order_again = False
                await self._place_until_placed(state)  # workflows/declined_orders.py
            if (
                state.transaction is None
                and not lifecycle.is_terminal(state)
                and (len(state.provider_moves) != moves or self._order_again)
            ):
                if len(state.provider_moves) == moves:
                    await self._pause_before_ordering_again(state, moves)
                continue
            break
        await self._follow_transfer(state)

    async def _comply(self, state: IntentState) -> None:
        delay = _poll_first(state)
        while not lifecycle.is_terminal(state) and state.plan.status is PlanStatus.PENDING:
            outcome = await calls.call(
                state.provider,
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
                    provider_code=_local_code(state),
                ),
                until=state.expired_at,
            )
            if isinstance(outcome, calls.GaveUp):
                return  # the intent expired meanwhile
            async with self._lock:
                if isinstance(outcome, (calls.Refused, calls.Declined)):
                    changed = handoffs.fail(state, outcome.reason, self._now())
                else:
                    changed = handoffs.apply_standing(state, outcome, self._now())
                if changed:
                    await self._record(state)
                    self._publish(state)
            if lifecycle.is_terminal(state) or state.plan.status is not PlanStatus.PENDING:
                return
            if not isinstance(outcome, calls.Refused | calls.Declined) and all(
                handoff.mode == "FORM" for handoff in outcome.handoffs
            ):
                # Our hosted onboarding decides every open step: nothing to poll for.
                await workflow.wait_condition(
                    lambda: (
                        lifecycle.is_terminal(state) or state.plan.status is not PlanStatus.PENDING
                    )
                )
                return
            try:
                await self._wait(_moved(state), delay)
                delay = _poll_first(state)  # something moved: the next poll comes soon again
            except TimeoutError:
                delay = _poll_next(state, delay)

    async def _place_order(self, state: IntentState) -> None:
        """The driver's order (a network connector's): the call outside the lock. With
        failover, each provider gets ORDER_BUDGET, then the intent moves on (or tries
        the same provider again when no other can serve it)."""
        failover_on = self._failover_on()
        until = state.expired_at
        if failover_on:
            until = min(until, workflow.now() + ORDER_BUDGET)
        outcome = await calls.call(
            state.provider,
            provider_activities.provider_create_transfer,
            TransferOrder(
                provider_account_id=state.provider.provider_account_id,
                request=_transaction_request(state),
            ),
            until=until,
        )
        if self._kept_after_our_failure(state, outcome):
            return  # the driver places it again (workflows/internal_errors.py)
        if isinstance(outcome, calls.GaveUp) and failover_on:
            async with self._lock:
                if state.transaction is None and await self._fail_over(state, outcome.reason):
                    self._transfer_refusal = moved_reason(state, outcome.reason)
                    if calls.orders_inline(state.provider) and _ready(state):
                        # No handler will place an in-process provider's order: here.
                        await self._order_inline(state)
                    await self._record(state)
                    self._publish(state)
                    return
            self._transfer_refusal = outcome.reason
            self._order_again = workflow.now() < state.expired_at
            self._order_again_after = outcome.retry_after
            return
        if isinstance(outcome, (calls.GaveUp, calls.Declined)):
            self._transfer_refusal = outcome.reason
            return
        async with self._lock:
            if isinstance(outcome, calls.Refused):
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
        await calls.call(
            state.provider,
            provider_activities.provider_cancel_transfer,
            TransferVoid(
                provider_account_id=state.provider.provider_account_id,
                provider_reference=outcome.provider_reference,
                provider_code=_local_code(state),
            ),
            budget=VOID_BUDGET,
        )

    async def _order_inline(self, state: IntentState) -> None:
        """An in-process connector's order, placed by the handler that holds the lock
        (the caller records): `POST /intent` answers with the transaction."""
        if state.transaction is not None or lifecycle.is_terminal(state):
            return
        self._transfer_refusal = None
        outcome = await calls.call(
            state.provider,
            provider_activities.provider_create_transfer,
            TransferOrder(
                provider_account_id=state.provider.provider_account_id,
                request=_transaction_request(state),
            ),
        )
        if isinstance(outcome, calls.Refused):
            self._transfer_refusal = outcome.reason
            handoffs.fail(state, outcome.reason, self._now())
        elif self._kept_after_our_failure(state, outcome):
            pass  # the intent keeps its provider: the client asks again
        elif isinstance(outcome, calls.GaveUp) and await self._fail_over(state, outcome.reason):
            # Moved to the next eligible provider: its order at once when its plan is
            # complete (in process, here; across the network, by the driver).
            self._transfer_refusal = moved_reason(state, outcome.reason)
            if lifecycle.execution_refusal(state) is None:
                if calls.orders_inline(state.provider):
                    await self._order_inline(state)
                else:
                    state.execution_requested = True
        elif isinstance(outcome, (calls.Declined, calls.GaveUp)):
            # A valid intent without a transaction: POST /intent/{id}/transaction again.
            workflow.logger.warning("provider did not create the transaction: %s", outcome)
            self._transfer_refusal = outcome.reason
        else:
            lifecycle.attach_transaction(state, outcome, self._now())

    async def _follow_transfer(self, state: IntentState) -> None:
        delay = _poll_first(state)
        while not lifecycle.is_terminal(state) and state.transaction is not None:
            try:
                await self._wait(_moved(state), delay)
                delay = _poll_first(state)
                continue
            except TimeoutError:
                delay = _poll_next(state, delay)
            await self._poll_transfer(state)

    async def _poll_transfer(self, state: IntentState) -> None:
        transaction = state.transaction
        assert transaction is not None
        outcome = await calls.call(
            state.provider,
            provider_activities.provider_get_transfer,
            TransferQuery(
                provider_account_id=state.provider.provider_account_id,
                provider_reference=transaction.provider_reference,
                provider_code=_local_code(state),
            ),
            budget=POLL_BUDGET,
        )
        if isinstance(outcome, (calls.Refused, calls.Declined, calls.GaveUp)):
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

    # --- handlers' provider parts ---------------------------------------------------

    async def _execute_by_driver(self, state: IntentState) -> None:
        """`execute` of a network connector's intent: the driver places the order; this
        waits for it (bounded) without holding the lock."""
        if not state.execution_requested:
            state.execution_requested = True
        self._asked_again()  # workflows/declined_orders.py
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

    def _step_update(self, state: IntentState, update: StepUpdate) -> bool:
        """A verdict for a step: applied when current; a verdict for a later step (a
        provider webhook ahead of the plan) waits until that step is current."""
        now = self._now()
        applied = lifecycle.apply_step_update(state, update, now)
        if not applied:
            codes = [s.code for s in state.plan.steps]
            current = state.plan.current_step_code
            start = codes.index(current) + 1 if current in codes else len(codes)
            later = {s.code for s in state.plan.steps[start:] if s.status.value == "PENDING"}
            if update.step_code in later:
                self._early_verdicts[update.step_code] = update
            else:
                workflow.logger.warning("step update ignored: %s", update)
            return False
        while (code := state.plan.current_step_code) in self._early_verdicts:
            if not lifecycle.apply_step_update(state, self._early_verdicts.pop(code), now):
                break
        return True

    async def _void_at_provider(
        self, state: IntentState, budget: timedelta = VOID_BUDGET
    ) -> bool | None:
        """Voids the order awaiting its deposit, with a bounded number of attempts and
        outside the lock. True: voided, or nothing to void; False: the provider holds the
        deposit (its events follow); None: not confirmed (a deposit that still lands is
        an unmatched deposit)."""
        transaction = state.transaction
        if transaction is None or transaction.status is not TransactionStatus.PENDING:
            return True
        outcome = await calls.call(
            state.provider,
            provider_activities.provider_cancel_transfer,
            TransferVoid(
                provider_account_id=state.provider.provider_account_id,
                provider_reference=transaction.provider_reference,
                provider_code=_local_code(state),
            ),
            budget=budget,
        )
        if isinstance(outcome, (calls.Refused, calls.Declined, calls.GaveUp)):
            workflow.logger.warning("order not voided: %s", outcome.reason)
            self._void_unconfirmed = True
            return None
        if not outcome.voided:
            workflow.logger.info("order not voided: %s", outcome.reason)
        return bool(outcome.voided)

    async def _cancel_at_provider(self, state: IntentState) -> IntentState:
        """`cancel`: the void goes outside the lock, bounded by the HTTP caller's
        patience; the customer hears 409 when the provider holds the deposit, 502
        (nothing changed, retry) when the void was not confirmed."""
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

    async def _expire_at_provider(self, state: IntentState) -> bool:
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
        deadline = self._clock() + LATE_DEPOSIT_WATCH
        delay = _poll_first(state)
        while self._clock() < deadline and state.unmatched_deposit is None:
            try:
                await self._wait(lambda: state.unmatched_deposit is not None, delay)
            except TimeoutError:
                delay = _poll_next(state, delay)
                await self._poll_transfer(state)


def _local_code(state: IntentState) -> str | None:
    """The provider code the activity needs to call an in-process connector without
    opening its account; None for a network connector (the account says which)."""
    if calls.call_mode(state.provider) is CallMode.REMOTE:
        return None
    return state.provider.provider_code


def _poll_first(state: IntentState) -> timedelta:
    return timedelta(seconds=state.provider.poll_first_seconds)


def _poll_next(state: IntentState, delay: timedelta) -> timedelta:
    """The delay after `delay` ran out with nothing moving: doubled, up to the maximum."""
    return min(delay * 2, timedelta(seconds=state.provider.poll_max_seconds))


def _moved(state: IntentState) -> Callable[[], bool]:
    """A condition: the state changed since now, or the intent ended."""
    revision = state.revision
    return lambda: state.revision != revision or lifecycle.is_terminal(state)


def _order_due(state: IntentState, moves: int, inline: bool) -> Callable[[], bool]:
    """A condition: the driver has an order to place or follow (or the intent ended, or
    moved to another provider since `moves`)."""
    return lambda: (
        lifecycle.is_terminal(state)
        or state.transaction is not None
        or (not inline and _ready(state))
        or len(state.provider_moves) != moves
    )


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
