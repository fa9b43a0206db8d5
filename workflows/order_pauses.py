"""A network provider's order placed again only after the wait its last attempt asked for.

The driver places an order again when its budget ran out with nobody else to serve the
intent (a failover's ORDER_BUDGET, workflows/failover.py) or after a failure of ours
(workflows/internal_errors.py). Each placement is a new activity whose retries stop
when the next one would fall past its budget. Before the patch the driver placed the
next order at once: when the provider's Retry-After (or the backoff) was longer than
what was left of the budget, the activity gave up after its first attempt, and the
driver asked again and again, tens of times a second, until the intent expired. A
provider answering 429 with `Retry-After: 300` was called without pause for hours, and
in the last Retry-After of any outage too, each call adding to the workflow's history.

With the patch the driver first waits what the last attempt asked for (its
`next_retry_delay`; ORDER_AGAIN_PAUSE when it named none), or until the intent ends,
moves to another provider or the client asks for the transaction again (that ask is
answered by a placement of its own); a wait that would reach the expiry is not followed
by an order unless asked (the expiry ends the intent). Runs recorded before the patch
replay the placement at once.
"""

from __future__ import annotations

import contextlib
from datetime import timedelta

from temporalio import workflow

from ramp.intents import lifecycle
from ramp.intents.models import IntentState
from workflows.intent_base import IntentBase

# Path to removal: docs/decisions.md ("An order placed again after a pause").
ORDER_AGAIN_AFTER_PAUSE = "order-again-after-pause"
# When the last attempt named no wait (no answer in time, a failure of ours): the
# remote retry policy's waits are longer than this only after its sixth attempt.
ORDER_AGAIN_PAUSE = timedelta(seconds=30)


class OrderPauses(IntentBase):
    _order_again_after: timedelta | None = None  # the last attempt's wait, set with
    # the driver's `_order_again` (workflows/provider_flow.py `_walk`)
    # `execute`'s asks, and how many the last placement answered
    # (workflows/declined_orders.py).
    _execution_asks: int
    _asks_answered: int

    async def _pause_before_ordering_again(self, state: IntentState, moves: int) -> None:
        """Before the driver places its order again: the last attempt's wait, cut short
        by the intent's end, its move to another provider, a client's ask or its
        expiry (which no order follows)."""
        if not workflow.patched(ORDER_AGAIN_AFTER_PAUSE):
            return
        pause = self._order_again_after or ORDER_AGAIN_PAUSE

        def moved_on() -> bool:
            # A client's `POST /intent/{id}/transaction` meanwhile is answered by a
            # placement of its own, as before: one call to the provider per ask.
            return (
                lifecycle.is_terminal(state)
                or len(state.provider_moves) != moves
                or self._execution_asks != self._asks_answered
            )

        if self._clock() + pause >= state.expired_at:
            # No order again in this intent's life: its expiry ends it.
            await workflow.wait_condition(moved_on)
            return
        with contextlib.suppress(TimeoutError):
            await self._wait_until(moved_on, self._clock() + pause)
