"""Incompatible changes to the recorded workflows: each replay guard must notice its own.

Kept apart from the tests: the workflow sandbox re-imports a workflow's module for each
run, and this one imports only what the worker passes through (see worker.py).
"""

from __future__ import annotations

from datetime import datetime, timedelta

from temporalio import workflow

from ramp.intents import cancellation
from ramp.intents.clock import ClockAdvance, ClockAdvanced
from ramp.intents.models import IntentOutcome, IntentRequest, IntentState, ProviderEvent
from ramp.webhooks import activities
from ramp.webhooks.models import AttemptOutcome, DeliveryAttempt, DeliveryOrder, DeliveryStatus
from workflows.intent_base import LOOKUP_ONE_ACTIVITY
from workflows.intents import (
    CUSTOMER_CANCEL,
    OPEN_UPDATE_WAIT,
    OPEN_WITHOUT_UPDATE,
    IntentRun,
    IntentWorkflow,
)


@workflow.defn(name="IntentWorkflow")
class SwappedLookupsWorkflow:
    """IntentWorkflow with its two lookups in the other order: the commands change."""

    @workflow.init
    def __init__(self, request: IntentRequest) -> None:
        self._request = request
        self._opened = False

    @workflow.run
    async def run(self, request: IntentRequest) -> IntentOutcome:
        # As IntentWorkflow waits, so that the lookups are the first difference.
        if workflow.patched(OPEN_WITHOUT_UPDATE):
            try:
                await workflow.wait_condition(lambda: self._opened, timeout=OPEN_UPDATE_WAIT)
            except TimeoutError:
                workflow.upsert_memo({"openedWithoutUpdate": True})
                await self._lookups()
        else:
            await workflow.wait_condition(lambda: self._opened)
        return IntentOutcome(intent_id=request.intent_id, status=None)

    @workflow.update
    async def open(self, request_id: str | None = None) -> None:
        await self._lookups()

    async def _lookups(self) -> None:
        # Asked first, as IntentWorkflow does: the lookups' activities stay the first
        # difference in histories recorded with the patch too.
        workflow.patched(LOOKUP_ONE_ACTIVITY)
        for activity in ("check_requirements", "select_provider"):
            await workflow.execute_local_activity(
                activity, self._request, start_to_close_timeout=timedelta(seconds=10)
            )
        self._opened = True


class _SecondsClockIntent(IntentRun):
    def _now(self) -> datetime:
        return workflow.now().replace(microsecond=0)


@workflow.defn(name="IntentWorkflow")
class SecondsClockWorkflow(IntentWorkflow):
    """IntentWorkflow whose timestamps are cut to the second instead of the millisecond:
    the same commands, so a command-only replay passes, but other projection writes."""

    @workflow.init
    def __init__(self, request: IntentRequest) -> None:
        self._intent = _SecondsClockIntent(request)

    @workflow.run
    async def run(self, request: IntentRequest) -> IntentOutcome:
        return await super().run(request)


@workflow.defn(name="WebhookDeliveryWorkflow")
class TimerFirstDelivery:
    """A delivery that waits before its first attempt: the commands change."""

    @workflow.run
    async def run(self, order: DeliveryOrder) -> AttemptOutcome:
        await workflow.sleep(timedelta(seconds=1))
        return AttemptOutcome(delivery_id=order.delivery_id, status=DeliveryStatus.SUCCEEDED)


@workflow.defn(name="WebhookDeliveryWorkflow")
class AttemptsNumberedFromZero:
    """A delivery whose attempts count from 0: the same commands, other attempt inputs."""

    @workflow.run
    async def run(self, order: DeliveryOrder) -> AttemptOutcome:
        delays = order.policy.retry_delays_seconds
        number = 0
        while True:
            retry_in = delays[number] if number < len(delays) else None
            outcome = await workflow.execute_activity(
                activities.attempt_delivery,
                DeliveryAttempt(
                    delivery_id=order.delivery_id,
                    number=number,
                    timeout_seconds=order.policy.timeout_seconds,
                    retry_in_seconds=retry_in,
                ),
                start_to_close_timeout=timedelta(seconds=order.policy.timeout_seconds + 60),
            )
            if outcome.status is not DeliveryStatus.RETRYING or retry_in is None:
                return outcome
            await workflow.sleep(timedelta(seconds=retry_in))
            number += 1


@workflow.defn(name="IntentWorkflow")
class CancelWithoutVoidWorkflow(IntentWorkflow):
    """IntentWorkflow whose `cancel` forgets to void the provider's order: the recorded
    cancellation (tests/histories/intent_cancelled.json) must no longer replay."""

    @workflow.run
    async def run(self, request: IntentRequest) -> IntentOutcome:
        return await super().run(request)

    @workflow.update
    async def cancel(self) -> IntentState:  # type: ignore[override]
        intent = self._intent
        async with intent._lock:
            state = intent._opened()
            workflow.patched(CUSTOMER_CANCEL)
            cancellation.cancel(state, intent._now())
            await intent._record(state)
            return state


class _ClosingInTheAnswerIntent(IntentRun):
    async def _close(self) -> None:
        await workflow.wait_condition(workflow.all_handlers_finished)


@workflow.defn(name="IntentWorkflow")
class ClosingInTheAnswerWorkflow(IntentWorkflow):
    """IntentWorkflow as before CLOSE_APART: it ends in the workflow task that answered
    its last update. A history recorded since (intent_cancelled_deposit_late.json) must no
    longer replay."""

    @workflow.init
    def __init__(self, request: IntentRequest) -> None:
        self._intent = _ClosingInTheAnswerIntent(request)

    @workflow.run
    async def run(self, request: IntentRequest) -> IntentOutcome:
        return await super().run(request)


class _EarlyEventDroppedIntent(IntentRun):
    async def report_provider_event(self, event: ProviderEvent) -> None:
        # As before `event-awaits-order`: an event ahead of its transaction is dropped.
        await self._until_decided()
        if self._state is not None:
            await self._apply_event(self._state, event)


@workflow.defn(name="IntentWorkflow")
class EarlyEventDroppedWorkflow(IntentWorkflow):
    """IntentWorkflow that drops a provider event which outruns the order's answer:
    the recorded history where it waited (intent_bridge_event_outruns_order) must no
    longer replay."""

    @workflow.init
    def __init__(self, request: IntentRequest) -> None:
        self._intent = _EarlyEventDroppedIntent(request)

    @workflow.run
    async def run(self, request: IntentRequest) -> IntentOutcome:
        return await super().run(request)


class _StoppedClockIntent(IntentRun):
    async def advance_clock(self, advance: ClockAdvance) -> ClockAdvanced:
        self._clocked()
        return ClockAdvanced(offset_seconds=float(advance.seconds))


@workflow.defn(name="IntentWorkflow")
class StoppedClockWorkflow(IntentWorkflow):
    """IntentWorkflow whose `advance_clock` answers but moves no timer: the recorded
    advances (tests/histories/intent_clock_expired.json) must no longer replay."""

    @workflow.init
    def __init__(self, request: IntentRequest) -> None:
        self._intent = _StoppedClockIntent(request)

    @workflow.run
    async def run(self, request: IntentRequest) -> IntentOutcome:
        return await super().run(request)


class _PlacingOnceIntent(IntentRun):
    """The driver as before `monerium-declined-order-placed-again`: it places a network
    connector's order once; a declined order is never placed again."""

    async def _place_until_placed(self, state: IntentState) -> None:
        await self._place_order(state)

    def _asked_again(self) -> None:
        return None


@workflow.defn(name="IntentWorkflow")
class PlacingOnceWorkflow(IntentWorkflow):
    """A history recorded with the patch (intent_monerium_declined_onramp.json) must no
    longer replay on it."""

    @workflow.init
    def __init__(self, request: IntentRequest) -> None:
        self._intent = _PlacingOnceIntent(request)

    @workflow.run
    async def run(self, request: IntentRequest) -> IntentOutcome:
        return await super().run(request)
