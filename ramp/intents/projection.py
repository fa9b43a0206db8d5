"""The SQL projection of an intent: the rows that mirror a workflow's `IntentState`.

One mapping, used twice: the `record_intent` activity writes these rows, and the API
renders the response of a write (`POST /intent`, `POST /intent/{id}/transaction`) from
the same rows built in memory, so a response never differs from a later read.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from ramp.db.tables import (
    ComplianceStepRow,
    IntentRow,
    SatisfiedRequirement,
    TransactionEventRow,
    TransactionRow,
)
from ramp.intents.compliance import verification_expiry
from ramp.intents.models import IntentState
from ramp.intents.states import StepStatus


@dataclass(frozen=True)
class IntentProjection:
    intent: IntentRow
    steps: list[ComplianceStepRow]
    transaction: TransactionRow | None
    events: list[TransactionEventRow]
    # Steps verified through onboarding: the customer's record for the next intents.
    verifications: list[SatisfiedRequirement]


def project(state: IntentState) -> IntentProjection:
    selection = state.provider
    plan = state.plan
    intent = IntentRow(
        id=state.id,
        project_id=state.project_id,
        customer_id=state.customer_id,
        src_account_id=state.src_account_id,
        dest_account_id=state.dest_account_id,
        amount=state.amount,
        currency_code=state.currency_code,
        status=state.status.value,
        failure_reason=state.failure_reason,
        auto_execute=state.auto_execute,
        redirect_url=state.redirect_url,
        label=state.label,
        onboarding_redirect_url=state.onboarding_redirect_url,
        checkout_redirect_url=state.checkout_redirect_url,
        onboarding=state.onboarding,
        fingerprint=state.fingerprint,
        mm_plan_id=state.mm_plan_id,
        movement_type=selection.movement_type.value,
        provider_id=selection.provider_id,
        provider_code=selection.provider_code,
        provider_name=selection.provider_name,
        provider_account_id=selection.provider_account_id,
        provider_moves=[move.model_dump(mode="json") for move in state.provider_moves] or None,
        plan_id=plan.id,
        plan_status=plan.status.value,
        current_step_code=plan.current_step_code,
        plan_created_at=plan.created_at,
        plan_updated_at=plan.updated_at,
        created_at=state.created_at,
        updated_at=state.updated_at,
        expired_at=state.expired_at,
        revision=state.revision,
    )
    steps = [
        ComplianceStepRow(
            id=step.id,
            intent_id=state.id,
            position=position,
            code=step.code,
            description=step.description,
            depends_on=list(step.depends_on),
            edge_id=step.edge_id,
            status=step.status.value,
            step_metadata=dict(step.metadata),
            created_at=step.created_at,
            updated_at=step.updated_at,
        )
        for position, step in enumerate(plan.steps)
    ]
    verifications = [
        SatisfiedRequirement(
            id=str(uuid.uuid5(uuid.NAMESPACE_URL, f"{state.customer_id}:{step.edge_id}")),
            customer_id=state.customer_id,
            provider_code=selection.provider_code,
            requirement_code=step.code,
            satisfied_at=step.updated_at,
            expires_at=verification_expiry(step.code, step.updated_at),
            intent_id=state.id,
        )
        for step in plan.steps
        if step.status is StepStatus.COMPLETED and step.metadata.get("completedBy") == "ONBOARDING"
    ]
    transaction = state.transaction
    if transaction is None:
        return IntentProjection(intent, steps, None, [], verifications)
    return IntentProjection(
        intent,
        steps,
        TransactionRow(
            id=transaction.id,
            intent_id=state.id,
            project_id=state.project_id,
            status=transaction.status.value,
            provider_code=selection.provider_code,
            provider_reference=transaction.provider_reference,
            context=transaction.context.model_dump(mode="json"),
            receipt=None
            if transaction.receipt is None
            else transaction.receipt.model_dump(mode="json"),
            failure_reason=transaction.failure_reason,
            created_at=transaction.created_at,
            updated_at=transaction.updated_at,
            last_activity_at=transaction.last_activity_at,
        ),
        [
            TransactionEventRow(
                id=event.event_id,
                transaction_id=transaction.id,
                type=event.type.value,
                status_after=event.status_after.value,
                reason=event.reason,
                received_at=event.received_at,
            )
            for event in transaction.events
        ],
        verifications,
    )
