"""Starting delivery workflows: client-side code, used by the outbox (`record_intent`),
the outbox sweeper and the redelivery endpoint.

The workflow is started by name, so this module (and the activities that use it) never
imports the workflow module (workflows/webhooks.py), which declares the same name.
"""

from __future__ import annotations

from temporalio.client import Client
from temporalio.common import WorkflowIDReusePolicy
from temporalio.exceptions import WorkflowAlreadyStartedError

from ramp import temporal
from ramp.webhooks.models import AttemptOutcome, DeliveryOrder

DELIVERY_WORKFLOW = "WebhookDeliveryWorkflow"


def delivery_workflow_id(delivery_id: str) -> str:
    return f"webhook-delivery-{delivery_id}"


async def start_delivery(
    client: Client, order: DeliveryOrder, task_queue: str = temporal.TASK_QUEUE
) -> bool:
    """Starts the delivery unless it was started before (a retried write, or the outbox
    sweeper, starts again); True if this call started it."""
    try:
        await client.start_workflow(
            DELIVERY_WORKFLOW,
            order,
            id=delivery_workflow_id(order.delivery_id),
            task_queue=task_queue,
            id_reuse_policy=WorkflowIDReusePolicy.REJECT_DUPLICATE,
            result_type=AttemptOutcome,
        )
    except WorkflowAlreadyStartedError:
        return False
    return True
