"""A network provider's order declined for this attempt, placed again when asked again.

A provider may decline an order for now rather than refuse it (`ProviderRefused` with
`final=False`, the `Declined` outcome): Monerium declines an on-ramp while the
customer's wallet is not linked, and a redeem until the customer has signed it. The
intent then stays without a transaction, and the client asks again with
`POST /intent/{id}/transaction` once the customer has done their part. For an
in-process connector the handler places the order again itself; for a network
connector the driver placed it once and ended, so asking again answered 502 for ever.

With the patch the driver waits instead: after a declined placement it waits for the
next `execute` (or the intent's end) and places the order again, as many times as it
is asked. `execute` counts the asks and forgets the last refusal, so it waits for this
attempt's outcome, not the last one's. Histories recorded before the patch replay the
old path (the driver ends; `execute` answers the recorded refusal).
"""

from __future__ import annotations

from temporalio import workflow

from ramp.intents import lifecycle
from ramp.intents.models import IntentState

# The helper's name first, so that no two helpers' patches collide.
DECLINED_ORDER_PLACED_AGAIN = "monerium-declined-order-placed-again"


class DeclinedOrders:
    # How many times `execute` asked for the order (with the patch), and how many asks
    # the last placement answered (a placement started after an ask answers it).
    _execution_asks: int = 0
    _asks_answered: int = 0
    _transfer_refusal: str | None
    _order_again: bool  # set by the failover's driver (workflows/failover.py)

    async def _place_order(self, state: IntentState) -> None:  # the driver's, in ProviderFlow
        raise NotImplementedError

    def _asked_again(self) -> None:
        """`execute` of a network connector's intent: one more ask for the order."""
        if workflow.patched(DECLINED_ORDER_PLACED_AGAIN):
            self._execution_asks += 1
            self._transfer_refusal = None

    async def _place_until_placed(self, state: IntentState) -> None:
        """The driver's placement: once (before the patch), or again at each new ask
        after a declined attempt, until one is placed or the intent ends. A placement
        that moved the intent to another provider, or that the driver is to repeat at
        once (workflows/failover.py), returns to the driver's walk instead of waiting."""
        if not workflow.patched(DECLINED_ORDER_PLACED_AGAIN):
            await self._place_order(state)
            return
        moves = len(state.provider_moves)
        while state.transaction is None and not lifecycle.is_terminal(state):
            self._asks_answered = self._execution_asks
            await self._place_order(state)
            if (
                state.transaction is not None
                or lifecycle.is_terminal(state)
                or len(state.provider_moves) != moves
                or self._order_again
            ):
                return
            await workflow.wait_condition(lambda: self._moved_on(state, moves))

    def _moved_on(self, state: IntentState, moves: int) -> bool:
        """The intent ended, has its order or another provider, or the client asked
        again since."""
        return (
            lifecycle.is_terminal(state)
            or state.transaction is not None
            or len(state.provider_moves) != moves
            or self._execution_asks != self._asks_answered
        )
