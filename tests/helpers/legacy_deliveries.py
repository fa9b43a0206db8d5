"""Starting delivery workflows as the design before the dispatcher did (one workflow
per delivery): the service no longer does, and tests do it to prove that runs begun by
the old code still end (their activity hands the delivery to the dispatchers)."""

from __future__ import annotations

from temporalio.client import Client
from temporalio.common import WorkflowIDReusePolicy
from temporalio.exceptions import WorkflowAlreadyStartedError

from ramp import temporal
from ramp.webhooks.dispatch import DELIVERY_WORKFLOW
from ramp.webhooks.models import AttemptOutcome, DeliveryOrder


def delivery_workflow_id(delivery_id: str) -> str:
    return f"webhook-delivery-{delivery_id}"


async def start_delivery(
    client: Client, order: DeliveryOrder, task_queue: str = temporal.TASK_QUEUE
) -> bool:
    """Starts the delivery unless it was started before (as the old outbox
    and its sweeper did); True if this call started it."""
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
