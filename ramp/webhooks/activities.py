"""The delivery workflow's activity, as the workflow sees it: its name and types.

The implementation (activities/webhooks.py) registers under the same name; the workflow
imports this module, never the implementation with its database and HTTP client.
"""

from __future__ import annotations

from temporalio import activity

from ramp.webhooks.models import AttemptOutcome, DeliveryAttempt


@activity.defn(name="attempt_delivery")
async def attempt_delivery(attempt: DeliveryAttempt) -> AttemptOutcome:
    """One signed POST; records the attempt and the delivery's new status."""
    raise NotImplementedError("runs in the worker: WebhookActivities.attempt_delivery")
