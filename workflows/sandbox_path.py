"""The path of sandbox intents opened before ONE_PROVIDER_PATH (workflows/intents.py):
their transaction created and voided by the `create_transaction` and
`cancel_transaction` local activities, their expiry and cancel under the lock.

Kept only so that workflows started before the change replay (tests/test_replay.py,
the `intent_*` histories recorded before it); removed with the patch
(docs/decisions.md, issue 25). New intents take workflows/provider_flow.py.
"""

from __future__ import annotations

from datetime import timedelta

from temporalio import workflow
from temporalio.exceptions import ActivityError, ApplicationError

from ramp import temporal
from ramp.errors import IntentError, ProviderFailed
from ramp.intents import activities, cancellation, lifecycle
from ramp.intents.activity_options import PROVIDER as _PROVIDER
from ramp.intents.activity_options import RECORD as _RECORD
from ramp.intents.models import IntentState, TransactionCancellation, TransactionRequest
from workflows.intent_base import IntentBase

# Patch id: the order cancellation at expiry.
CANCEL_ORDER_ON_EXPIRY = "cancel-order-on-expiry"
# Patch id: the customer's cancellation (POST /intent/{id}/cancel), the `cancel` update.
CUSTOMER_CANCEL = "customer-cancel"


class SandboxPath(IntentBase):
    async def _run_sandbox(self, state: IntentState) -> None:
        remaining = (state.expired_at - workflow.now()).total_seconds()
        try:
            await workflow.wait_condition(
                lambda: not lifecycle.deposit_pending(state),
                timeout=timedelta(seconds=max(remaining, 0.001)),
            )
        except TimeoutError:
            await self._expire(state)
        await workflow.wait_condition(lambda: lifecycle.is_terminal(state))

    async def _cancel_sandbox(self, state: IntentState) -> IntentState:
        """Under the lock (the caller's)."""
        if workflow.patched(CUSTOMER_CANCEL):
            order = cancellation.order_to_void(state)
            if order is not None:
                try:
                    await workflow.execute_local_activity(
                        activities.cancel_transaction, order, **_PROVIDER
                    )
                except (ActivityError, ApplicationError) as error:
                    cause = cause_of(error)
                    code = cause.type if isinstance(cause, ApplicationError) else None
                    refused = cancellation.provider_refusal(state, code)
                    raise temporal.application_error(refused) from None
            cancellation.cancel(state, self._now())
            await self._record(state)
            self._publish(state)
        return state

    async def _expire(self, state: IntentState) -> None:
        """The lifetime ran out before money moved: void the order, end the intent."""
        async with self._lock:
            if not lifecycle.deposit_pending(state):
                return
            transaction = state.transaction
            if transaction is not None and workflow.patched(CANCEL_ORDER_ON_EXPIRY):
                try:
                    await workflow.execute_local_activity(
                        activities.cancel_transaction,
                        TransactionCancellation(
                            transaction_id=transaction.id,
                            provider_code=state.provider.provider_code,
                            provider_reference=transaction.provider_reference,
                            reason="the intent expired before the deposit arrived",
                        ),
                        **_RECORD,
                    )
                except (ActivityError, ApplicationError) as error:
                    # The provider holds the deposit: its event will move the intent on.
                    workflow.logger.warning("order not cancelled at expiry: %s", cause_of(error))
                    return
            lifecycle.expire(state, self._now())
            await self._record(state)
            self._publish(state)

    async def _create_transaction(self, state: IntentState, *, raise_on_failure: bool) -> None:
        selection = state.provider
        try:
            created = await workflow.execute_local_activity(
                activities.create_transaction,
                TransactionRequest(
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
                ),
                **_PROVIDER,
            )
        except (ActivityError, ApplicationError) as error:
            workflow.logger.warning("provider did not create the transaction: %s", cause_of(error))
            if raise_on_failure:
                raise temporal.application_error(
                    ProviderFailed(
                        IntentError.PROVIDER_ERROR,
                        f"{selection.provider_name} could not create the transaction; try again",
                    )
                ) from None
            return
        lifecycle.attach_transaction(state, created, self._now())


def cause_of(error: BaseException) -> BaseException | None:
    # A failed local activity raises its own error; a regular one wraps it in ActivityError.
    return error.cause if isinstance(error, ActivityError) else error
