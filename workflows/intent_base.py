"""What every part of IntentWorkflow shares: the intent's state, the lock that
serialises handlers, and how a change is written (the projection, webhook events,
search attributes). workflows/intents.py holds the handlers; workflows/provider_flow.py
what a provider does; workflows/sandbox_path.py the path of sandbox intents opened
before ONE_PROVIDER_PATH.
"""

from __future__ import annotations

import asyncio
from datetime import datetime

from temporalio import workflow
from temporalio.common import SearchAttributeUpdate
from temporalio.exceptions import ApplicationError

from ramp import temporal
from ramp.errors import IntentError, Refused
from ramp.intents import activities
from ramp.intents.activity_options import RECORD as _RECORD
from ramp.intents.changes import IntentChange
from ramp.intents.events import transition_events
from ramp.intents.models import IntentRequest, IntentState, StepUpdate


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

    def _opened(self) -> IntentState:
        if self._state is None:
            raise temporal.application_error(
                Refused(IntentError.INTENT_CLOSED, "the intent was not created")
            )
        return self._state

    def _now(self) -> datetime:
        now = workflow.now()
        return now.replace(microsecond=now.microsecond // 1000 * 1000)

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
