"""An order that failed for a reason of ours, not the provider's.

`provider_create_transfer` may fail on our side: the database, a bug (the activity types
it INTERNAL_FAILURE; workflows/provider_calls.py reads it as `OurFailure`). Before the
patch such an order was handled like the provider failing: not counted against the
account, but the intent failed over to its next provider once the budget ran out, and
the client read "<provider> unavailable: <our exception>".

With the patch the intent keeps its provider: a network provider's order is placed again
by the driver (each time with its budget) until the intent expires, as when no other
provider can serve it; an in-process one leaves the intent valid without a transaction,
and the client's `POST /intent/{id}/transaction` asks again. That call answers `503
TEMPORARILY_UNAVAILABLE`, saying the service failed, not the provider. Histories
recorded before the patch replay the failover they took.
"""

from __future__ import annotations

from datetime import timedelta

from temporalio import workflow

from ramp.errors import DomainError, IntentError, ProviderFailed, Unavailable
from ramp.intents.models import IntentState
from workflows import provider_calls as calls

# Path to removal: docs/decisions.md ("Orders that fail on our side").
INTERNAL_ORDER_ERROR_KEPT = "internal-order-error-kept"


class OurFailureReason(str):
    """`_transfer_refusal` when the order failed on our side: `execute` answers it as our
    failure (503), not the provider's (502). Any other refusal set replaces it."""

    __slots__ = ()


class InternalOrderErrors:
    _transfer_refusal: str | None
    _order_again: bool  # the driver's (workflows/provider_flow.py `_walk`)
    _order_again_after: timedelta | None  # workflows/order_pauses.py

    def _kept_after_our_failure(self, state: IntentState, outcome: object) -> bool:
        """After an order: True when it failed on our side and the intent keeps its
        provider (the patch). `_order_again` has the driver place a network provider's
        order again while the intent lives; an in-process one (whose driver only waits)
        is placed again when the client asks."""
        if not isinstance(outcome, calls.OurFailure):
            return False
        if not workflow.patched(INTERNAL_ORDER_ERROR_KEPT):
            return False
        # Our words for the client; the exception's (in the activity's failure) are the
        # operators'.
        workflow.logger.warning("intent %s: order failed on our side: %s", state.id, outcome)
        name = state.provider.provider_name
        self._transfer_refusal = OurFailureReason(
            f"the transaction could not be created: an internal error of the service, not "
            f"of {name}; the intent stays with {name}: try again"
        )
        self._order_again = workflow.now() < state.expired_at
        self._order_again_after = outcome.retry_after
        return True

    def _no_order_error(self, state: IntentState) -> DomainError:
        """What `execute` answers when the order was not placed: our failure (503, retry)
        or the provider's (502, its reason)."""
        refusal = self._transfer_refusal
        if isinstance(refusal, OurFailureReason):
            return Unavailable(IntentError.TEMPORARILY_UNAVAILABLE, refusal)
        return ProviderFailed(
            IntentError.PROVIDER_ERROR,
            refusal
            or f"{state.provider.provider_name} could not create the transaction; try again",
        )
