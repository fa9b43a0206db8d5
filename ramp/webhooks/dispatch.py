"""The name of the delivery workflow of the design before the dispatcher (one workflow
per delivery). Nothing in the service starts it any more; it stays registered so runs
begun by the old code end (their activity hands the delivery to the dispatchers).
tests/helpers/legacy_deliveries.py starts such runs to prove it.

The name lives here so the workflow module (workflows/webhooks.py) and whoever starts
it by name agree without importing each other.
"""

from __future__ import annotations

DELIVERY_WORKFLOW = "WebhookDeliveryWorkflow"
