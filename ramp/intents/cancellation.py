"""A customer's cancellation of an intent (`POST /intent/{id}/cancel`), as pure rules
for the `cancel` update of IntentWorkflow.

Allowed until the deposit is received: an intent without a transaction, or whose
transaction still waits for the deposit (PENDING). The workflow asks the provider to
void the order first (its deposit instructions stop working), then applies `cancel`.
"""

from __future__ import annotations

from datetime import datetime

from ramp.errors import (
    CancelRefusal,
    Conflict,
    DomainError,
    IntentError,
    ProviderFailed,
    ProviderRefusal,
)
from ramp.intents.lifecycle import deposit_pending, is_terminal
from ramp.intents.models import IntentState, TransactionCancellation
from ramp.intents.states import IntentStatus, TransactionStatus

CANCELLED_BY_CUSTOMER = "cancelled by the customer"


def refusal(state: IntentState) -> Conflict | None:
    """Why the intent cannot be cancelled now (409 INTENT_NOT_CANCELLABLE, the reason in
    `details.reason`); None if it can."""
    if is_terminal(state):
        reason = CancelRefusal.INTENT_CLOSED
        message = f"the intent is {state.status.value}: it can no longer be cancelled"
    elif not deposit_pending(state):
        reason = CancelRefusal.DEPOSIT_RECEIVED
        message = "the deposit was received: the intent can no longer be cancelled"
    else:
        return None
    return _not_cancellable(reason, message, state.status)


def order_to_void(state: IntentState) -> TransactionCancellation | None:
    """The provider's order to void first, if the intent has a transaction."""
    transaction = state.transaction
    if transaction is None:
        return None
    return TransactionCancellation(
        transaction_id=transaction.id,
        provider_code=state.provider.provider_code,
        provider_reference=transaction.provider_reference,
        reason=CANCELLED_BY_CUSTOMER,
    )


def provider_refusal(state: IntentState, code: str | None) -> DomainError:
    """What the customer is told when the provider did not void the order: it holds
    the deposit already (409, its event will move the intent on), or it failed (502,
    nothing changed, retrying is safe)."""
    if code == ProviderRefusal.ORDER_NOT_CANCELLABLE:
        return _not_cancellable(
            CancelRefusal.DEPOSIT_RECEIVED,
            "the provider already received the deposit: the intent can no longer be cancelled",
            state.status,
        )
    return ProviderFailed(
        IntentError.PROVIDER_ERROR,
        f"{state.provider.provider_name} could not cancel the order; try again",
    )


def cancel(state: IntentState, now: datetime) -> None:
    """Ends the intent CANCELLED, and its transaction (still waiting for the deposit)."""
    transaction = state.transaction
    if transaction is not None:
        transaction.status = TransactionStatus.CANCELLED
        transaction.failure_reason = CANCELLED_BY_CUSTOMER
        transaction.updated_at = now
        transaction.last_activity_at = now
    state.status = IntentStatus.CANCELLED
    state.failure_reason = CANCELLED_BY_CUSTOMER
    state.updated_at = now
    state.revision += 1


def _not_cancellable(reason: CancelRefusal, message: str, status: IntentStatus) -> Conflict:
    return Conflict(
        IntentError.INTENT_NOT_CANCELLABLE,
        message,
        {"reason": reason.value, "status": status.value},
    )
