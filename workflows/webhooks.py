"""WebhookDeliveryWorkflow: one event on its way to one endpoint, until it is acknowledged.

The intent workflow's `record_intent` activity stores each event with one delivery per
subscribed endpoint and starts this workflow for each delivery (id
`webhook-delivery-<deliveryId>`, never reused, so a retried start cannot deliver twice).
A delivery whose start was lost is started by the outbox sweeper (ramp/webhooks/sweeper.py).
Attempts are activities; the waits between them are durable timers, so neither a worker
nor a server restart loses a delivery or shortens its schedule.
"""

from __future__ import annotations

from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy

from ramp.webhooks import activities
from ramp.webhooks.dispatch import DELIVERY_WORKFLOW
from ramp.webhooks.models import AttemptOutcome, DeliveryAttempt, DeliveryOrder, DeliveryStatus

# An attempt's activity fails only when our side does (database, crash): the POST's
# own failures are outcomes. Retry those until they pass; a crashed worker's attempt
# is retried once its heartbeats stop (10 s).
_INFRASTRUCTURE_RETRIES = RetryPolicy(
    initial_interval=timedelta(seconds=1), maximum_interval=timedelta(minutes=1)
)

# The attempt heartbeats every 2 s while its POST is in flight.
_HEARTBEAT_TIMEOUT = timedelta(seconds=10)


@workflow.defn(name=DELIVERY_WORKFLOW)
class WebhookDeliveryWorkflow:
    @workflow.run
    async def run(self, order: DeliveryOrder) -> AttemptOutcome:
        delays = order.policy.retry_delays_seconds
        number = 1
        while True:
            retry_in = delays[number - 1] if number <= len(delays) else None
            outcome = await workflow.execute_activity(
                activities.attempt_delivery,
                DeliveryAttempt(
                    delivery_id=order.delivery_id,
                    number=number,
                    timeout_seconds=order.policy.timeout_seconds,
                    retry_in_seconds=retry_in,
                ),
                # The POST's timeout, plus ample room to read and record the attempt;
                # a crashed worker is noticed sooner, by the missing heartbeats.
                start_to_close_timeout=timedelta(seconds=order.policy.timeout_seconds + 60),
                heartbeat_timeout=_HEARTBEAT_TIMEOUT,
                retry_policy=_INFRASTRUCTURE_RETRIES,
            )
            if outcome.status is not DeliveryStatus.RETRYING or retry_in is None:
                return outcome
            await workflow.sleep(timedelta(seconds=retry_in))
            number += 1
