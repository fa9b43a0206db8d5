"""The intent workflow's activities, as the workflow sees them: names and types.

The implementations (activities/intents.py) register under the same names and read the
database and call providers; the workflow imports these definitions only, so nothing
of that code enters what the workflow sandbox loads. Names are part of every recorded
history: renaming one breaks the replay of running workflows.
"""

from __future__ import annotations

from temporalio import activity

from ramp.intents.changes import IntentChange
from ramp.intents.models import (
    CheckedSelection,
    CheckResults,
    IntentRequest,
    ProviderSelection,
    ProviderTransaction,
    RequirementChecks,
    TransactionCancellation,
    TransactionRequest,
)

_IN_WORKER = "runs in the worker: IntentActivities.{}"


@activity.defn(name="select_provider")
async def select_provider(request: IntentRequest) -> ProviderSelection:
    """Eligibility, selection and amount validation."""
    raise NotImplementedError(_IN_WORKER.format("select_provider"))


@activity.defn(name="check_requirements")
async def check_requirements(request: RequirementChecks) -> CheckResults:
    """Each requirement's check against what the customer has on record."""
    raise NotImplementedError(_IN_WORKER.format("check_requirements"))


@activity.defn(name="select_and_check_requirements")
async def select_and_check_requirements(request: IntentRequest) -> CheckedSelection:
    """`select_provider`, then `check_requirements` for the provider chosen: one activity
    (patch `lookup-one-activity`); the two stay for the runs that recorded them."""
    raise NotImplementedError(_IN_WORKER.format("select_and_check_requirements"))


@activity.defn(name="create_transaction")
async def create_transaction(request: TransactionRequest) -> ProviderTransaction:
    """Places the order with the provider."""
    raise NotImplementedError(_IN_WORKER.format("create_transaction"))


@activity.defn(name="cancel_transaction")
async def cancel_transaction(cancellation: TransactionCancellation) -> None:
    """Voids the provider's order of an expired intent."""
    raise NotImplementedError(_IN_WORKER.format("cancel_transaction"))


@activity.defn(name="record_intent")
async def record_intent(change: IntentChange) -> None:
    """Writes the state to the projection and its webhook events to the outbox."""
    raise NotImplementedError(_IN_WORKER.format("record_intent"))
