"""Failover (issue 26): an intent whose provider failed to create its transaction for
reasons of its own moves to the next eligible provider (the rules and the move itself:
ramp/intents/failover.py). Behind the patch ROUTE_FAILOVER: runs started before it
never ask, and keep failing as they did.

The next provider is chosen by `select_provider` itself (the same eligibility, health
and strategy as at opening, the provider accounts already tried excluded: another
account of the same provider may serve), its requirements
checked by `check_requirements`; the order is then placed there at once when its plan
is complete (the handler's inline call, or the driver's), else the customer continues
on the same hosted page.
"""

from __future__ import annotations

from datetime import timedelta

from temporalio import workflow
from temporalio.exceptions import ActivityError, ApplicationError

from ramp.intents import failover, lifecycle
from ramp.intents.models import IntentState
from workflows.intent_base import IntentBase, select_and_check

# Added with issue 26: orders that fail for the provider's own reasons move the intent
# to its next eligible provider; a network provider's order is given ORDER_BUDGET per
# provider (it had the intent's whole lifetime). Path to removal: docs/decisions.md.
ROUTE_FAILOVER = "route-failover"
# Added with several accounts per provider (issue 26): a failover excludes the accounts
# the intent was with, not their providers, so two accounts of one provider fail over to
# each other. Path to removal: docs/decisions.md.
FAILOVER_BY_ACCOUNT = "accounts-failover-by-account"
# With failover: how long a network provider's order is retried before the intent
# moves to its next eligible provider (or tries the same one again, none other left).
ORDER_BUDGET = timedelta(minutes=2)


class Failover(IntentBase):
    def _failover_on(self) -> bool:
        """Whether this run fails over (asked once, where it first matters)."""
        if self._failover is None:
            self._failover = workflow.patched(ROUTE_FAILOVER)
        return self._failover

    async def _fail_over(self, state: IntentState, reason: str) -> bool:
        """Under the lock: moves the intent to its next eligible provider; True when it
        moved (the caller records). False when it may not, or nobody else can serve."""
        if not failover.can_move(state) or not self._failover_on():
            return False
        # By account: another account of the same provider stays a candidate. Runs from
        # before exclude the providers tried (select_provider's recorded input).
        excluded = (
            {"excluded_accounts": failover.tried_accounts(state)}
            if workflow.patched(FAILOVER_BY_ACCOUNT)
            else {"excluded_providers": failover.tried_providers(state)}
        )
        request = self._request.model_copy(
            update={"provider_id": None, "quote_id": None, **excluded}
        )
        try:
            selection, checks = await select_and_check(request)
        except (ActivityError, ApplicationError) as error:
            workflow.logger.info("intent %s: no provider to fail over to: %s", state.id, error)
            return False
        if not failover.can_move(state):  # the intent moved on while we asked
            return False
        failover.move_provider(state, selection, checks.results, reason, self._now())
        workflow.logger.info(
            "intent %s failed over to %s: %s", state.id, selection.provider_code, reason
        )
        return True


def moved_reason(state: IntentState, reason: str) -> str:
    """What `POST /intent/{id}/transaction` answers after a failover without an order."""
    move = state.provider_moves[-1]
    then = (
        "its order is being placed"
        if lifecycle.execution_refusal(state) is None
        else "complete its compliance steps on the same page, then ask again"
    )
    return f"{reason}; the intent moved to {move.to_provider_code}: {then}"
