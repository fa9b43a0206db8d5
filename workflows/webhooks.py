"""WebhookDeliveryWorkflow: the previous design's delivery, one workflow per delivery.

Deliveries are now made by the dispatchers of the worker processes
(ramp/webhooks/dispatcher.py; docs/decisions.md, "Issue 16"), and nothing starts this
workflow any more. It stays registered, unchanged, for the runs the previous code
started (a delivery could wait up to about 26.6 hours): their next `attempt_delivery`
hands the delivery to the dispatchers and returns a status other than RETRYING, which
ends the run (activities/webhooks.py). Recorded histories still replay
(tests/test_webhook_replay.py).
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
