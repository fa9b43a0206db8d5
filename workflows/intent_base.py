"""What every part of IntentWorkflow shares: the intent's state, the lock that
serialises handlers, and how a change is written (the projection, webhook events,
search attributes). workflows/intents.py holds the handlers; workflows/provider_flow.py
what a provider does; workflows/sandbox_path.py the path of sandbox intents opened
before ONE_PROVIDER_PATH. The intent's clock, which a sandbox project moves forward
(`advance_clock`, ramp/intents/clock.py), is here: every timer of the provider path
waits through `_wait` / `_wait_until`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import datetime, timedelta

from temporalio import workflow
from temporalio.common import SearchAttributeUpdate
from temporalio.exceptions import ApplicationError

from ramp import temporal
from ramp.errors import Conflict, IntentError, Refused
from ramp.intents import activities
from ramp.intents.activity_options import LOOKUP as _LOOKUP
from ramp.intents.activity_options import RECORD as _RECORD
from ramp.intents.changes import IntentChange
from ramp.intents.clock import SANDBOX_CLOCK_PATCH, ClockAdvance, ClockAdvanced
from ramp.intents.events import transition_events
from ramp.intents.models import (
    CheckResults,
    IntentRequest,
    IntentState,
    ProviderSelection,
    RequirementChecks,
    StepUpdate,
)


class IntentBase:
    def __init__(self, request: IntentRequest) -> None:
        self._request = request
        self._state: IntentState | None = None
        # What the projection holds: webhook events describe the change from it.
        self._recorded: IntentState | None = None
        self._refusal: ApplicationError | None = None
        self._lock = asyncio.Lock()
        # Whether this intent takes the one provider path (set when it opens).
        self._one_path = False
        # The provider path's (workflows/provider_flow.py).
        self._transfer_refusal: str | None = None
        self._early_verdicts: dict[str, StepUpdate] = {}
        self._void_unconfirmed = False
        # Failover (workflows/failover.py): whether this run takes ROUTE_FAILOVER,
        # once asked; and whether the driver should place its order again.
        self._failover: bool | None = None
        self._order_again = False
        # The intent's clock: how far ahead of workflow.now() its timers measure, and
        # how often it moved (each move wakes the waits). None: not asked yet whether
        # this run has the clock (SANDBOX_CLOCK_PATCH).
        self._clock_offset = timedelta(0)
        self._clock_moves = 0
        self._has_clock: bool | None = None

    def _opened(self) -> IntentState:
        if self._state is None:
            raise temporal.application_error(
                Refused(IntentError.INTENT_CLOSED, "the intent was not created")
            )
        return self._state

    def _now(self) -> datetime:
        now = workflow.now()
        return now.replace(microsecond=now.microsecond // 1000 * 1000)

    # --- the intent's clock -------------------------------------------------------

    def _clocked(self) -> bool:
        """Whether this run measures its timers on the movable clock; asked once, at the
        first wait (or advance), so a run recorded before the patch replays without."""
        if self._has_clock is None:
            self._has_clock = workflow.patched(SANDBOX_CLOCK_PATCH)
        return self._has_clock

    def _clock(self) -> datetime:
        """The intent's time: the workflow's, plus what a sandbox project advanced."""
        return workflow.now() + self._clock_offset

    async def advance_clock(self, advance: ClockAdvance) -> ClockAdvanced:
        """Moves the intent's clock forward: every wait measures again, and those whose
        deadline has passed end at once (the expiry fires, a poll is made)."""
        if not self._clocked():
            raise temporal.application_error(
                Conflict(
                    IntentError.CLOCK_NOT_MOVABLE,
                    "this intent was created before sandbox clocks: its timers cannot move",
                )
            )
        self._clock_offset += timedelta(seconds=advance.seconds)
        self._clock_moves += 1
        return ClockAdvanced(offset_seconds=self._clock_offset.total_seconds())

    async def _wait(self, condition: Callable[[], bool], delay: timedelta) -> None:
        """`workflow.wait_condition(condition, timeout=delay)`, the delay measured on the
        intent's clock; TimeoutError when it runs out."""
        await self._wait_until(condition, self._clock() + delay, minimum=None)

    async def _wait_until(
        self,
        condition: Callable[[], bool],
        deadline: datetime,
        minimum: timedelta | None = timedelta(milliseconds=1),
    ) -> None:
        """Waits for `condition` until `deadline` on the intent's clock (TimeoutError
        then). The first timer is what the code before the clock started (a deadline
        already past waits `minimum`), so runs without the clock keep their histories."""
        remaining = deadline - self._clock()
        timeout = remaining if minimum is None else max(remaining, minimum)
        if not self._clocked():
            await workflow.wait_condition(condition, timeout=timeout)
            return
        while True:
            await workflow.wait_condition(self._or_clock_moved(condition), timeout=timeout)
            if condition():
                return
            # The clock moved: measure again.
            timeout = deadline - self._clock()
            if timeout <= timedelta(0):
                raise TimeoutError

    def _or_clock_moved(self, condition: Callable[[], bool]) -> Callable[[], bool]:
        """`condition`, or the clock moved since now."""
        moves = self._clock_moves
        return lambda: condition() or self._clock_moves != moves

    async def _record(self, state: IntentState) -> None:
        """Writes the projection, with the webhook events of what changed since the last
        write: one per transition, with ids derived from it."""
        events = transition_events(self._recorded, state, state.updated_at)
        await workflow.execute_local_activity(
            activities.record_intent, IntentChange(state=state, events=events), **_RECORD
        )
        self._recorded = state.model_copy(deep=True)

    def _publish(self, state: IntentState) -> None:
        """Search attributes, so operators can filter intents in the Temporal UI."""
        step = state.plan.current_step_code
        updates: list[SearchAttributeUpdate[str]] = [
            temporal.INTENT_STATUS.value_set(state.status.value),
            temporal.PROJECT_ID.value_set(state.project_id),
            temporal.CUSTOMER_ID.value_set(state.customer_id),
            temporal.PROVIDER_CODE.value_set(state.provider.provider_code),
            temporal.CURRENT_STEP.value_set(step) if step else temporal.CURRENT_STEP.value_unset(),
        ]
        if state.unmatched_deposit is not None:
            updates.append(temporal.MONEY_ISSUE.value_set("UNMATCHED_DEPOSIT"))
        workflow.upsert_search_attributes(updates)


# The two lookups as one local activity (issue 30: each costs the worker about 3 ms of
# CPU in Temporal's machinery). Asked once per run, at its first lookup; runs recorded
# before keep the two. Path to removal: docs/decisions.md.
LOOKUP_ONE_ACTIVITY = "lookup-one-activity"


async def select_and_check(request: IntentRequest) -> tuple[ProviderSelection, CheckResults]:
    """The provider `request` goes to (`select_provider`) and its requirements checked
    against what the customer has on record (`check_requirements`): the lookups of an
    intent's opening, asked again by a failover (workflows/failover.py)."""
    if workflow.patched(LOOKUP_ONE_ACTIVITY):
        checked = await workflow.execute_local_activity(
            activities.select_and_check_requirements, request, **_LOOKUP
        )
        return checked.selection, checked.checks
    selection = await workflow.execute_local_activity(
        activities.select_provider, request, **_LOOKUP
    )
    checks = await workflow.execute_local_activity(
        activities.check_requirements,
        RequirementChecks.of(request, selection),
        **_LOOKUP,
    )
    return selection, checks
