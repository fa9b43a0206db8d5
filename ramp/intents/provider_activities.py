"""The provider activities, as the intent workflow sees them: names and types.

Regular activities on the providers' task queue (`<task queue>-providers` unless
configured), implemented in activities/providers.py. Names are part of every
recorded history: renaming one breaks the replay of running workflows.
"""

from __future__ import annotations

from temporalio import activity

from ramp.intents.models import ProviderTransaction
from ramp.intents.provider_calls import (
    ComplianceQuery,
    ComplianceStanding,
    TransferOrder,
    TransferProgress,
    TransferQuery,
    TransferVoid,
    VoidResult,
)

_IN_WORKER = "runs in the providers' worker: ProviderActivities.{}"


@activity.defn(name="provider_compliance")
async def provider_compliance(query: ComplianceQuery) -> ComplianceStanding:
    """The customer at the provider (created once) and each requirement's hand-off."""
    raise NotImplementedError(_IN_WORKER.format("provider_compliance"))


@activity.defn(name="provider_create_transfer")
async def provider_create_transfer(order: TransferOrder) -> ProviderTransaction:
    """Places the order (our transaction id is the idempotency key)."""
    raise NotImplementedError(_IN_WORKER.format("provider_create_transfer"))


@activity.defn(name="provider_get_transfer")
async def provider_get_transfer(query: TransferQuery) -> TransferProgress:
    """The status poll."""
    raise NotImplementedError(_IN_WORKER.format("provider_get_transfer"))


@activity.defn(name="provider_cancel_transfer")
async def provider_cancel_transfer(void: TransferVoid) -> VoidResult:
    """Voids an order still awaiting its deposit."""
    raise NotImplementedError(_IN_WORKER.format("provider_cancel_transfer"))
