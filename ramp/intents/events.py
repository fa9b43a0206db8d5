"""Webhook events: what a project is told, computed from an intent's transitions.

Beside the intent models they are computed from; the outbox (ramp/webhooks) stores and
delivers them.

The intent workflow compares the state it last recorded with the state it records now
and emits one event per transition: the intent's status, each compliance step's status,
the transaction's status. Pure and deterministic, so a replay emits the same events,
and each event id is derived from the intent, the revision and the transition: a
retried write can never produce a second event for the same transition.
"""

from __future__ import annotations

import json
import uuid
from datetime import datetime
from enum import StrEnum

from ramp.intents.models import IntentState, WireModel
from ramp.intents.states import IntentStatus, StepStatus, TransactionStatus
from ramp.money import Amount
from ramp.timestamps import Timestamp

_EVENT_NAMESPACE = uuid.UUID("6f1d5e0c-4a8b-5c1e-9a53-2b7c1e0f9d41")


class WebhookEventType(StrEnum):
    INTENT_STATUS_CHANGED = "INTENT_STATUS_CHANGED"
    COMPLIANCE_UPDATED = "COMPLIANCE_UPDATED"
    MONEY_MOVEMENT_UPDATED = "MONEY_MOVEMENT_UPDATED"
    # Money arrived that the intent cannot take (it had ended, or another amount).
    DEPOSIT_UNMATCHED = "DEPOSIT_UNMATCHED"


class IntentStatusChanged(WireModel):
    intent_id: str
    customer_id: str
    status: IntentStatus
    # None when the event announces a new intent.
    previous_status: IntentStatus | None
    failure_reason: str | None


class IntentProviderMoved(WireModel):
    """INTENT_STATUS_CHANGED of a failover (issue 26): the intent moved to another
    provider, and why; its status is unchanged (the move happens before any transaction)."""

    intent_id: str
    customer_id: str
    status: IntentStatus
    previous_status: IntentStatus | None
    failure_reason: str | None
    moved_from_provider_code: str
    moved_to_provider_code: str
    move_reason: str


class ComplianceUpdated(WireModel):
    intent_id: str
    customer_id: str
    requirement_code: str
    status: StepStatus
    # None for a step that was already satisfied when the intent was created.
    previous_status: StepStatus | None


class MoneyMovementUpdated(WireModel):
    intent_id: str
    customer_id: str
    transaction_id: str
    status: TransactionStatus
    # None when the event announces a new transaction.
    previous_status: TransactionStatus | None
    provider_reference: str


class DepositUnmatched(WireModel):
    """Money the service cannot give to an intent: on an intent (it had ended, another
    amount), or on none (`intent_id` None: no intent matches the payment at all,
    ramp/provider_webhooks/unmatched.py)."""

    intent_id: str | None
    # None when no intent matches and the provider's customer is not one of ours.
    customer_id: str | None
    transaction_id: str | None
    provider_reference: str | None
    # What happened and what to do (refund it): an operator acts on it.
    unmatched_reason: str
    # What arrived, where the provider says (money without an intent); null otherwise.
    amount: Amount | None = None
    currency: str | None = None
    # The provider account the money reached (money without an intent).
    provider_account_id: str | None = None


# Told apart by their fields (extra fields are forbidden, and each has its own).
EventData = (
    IntentStatusChanged
    | IntentProviderMoved
    | ComplianceUpdated
    | MoneyMovementUpdated
    | DepositUnmatched
)


class WebhookEvent(WireModel):
    """The envelope every webhook carries."""

    event_id: str
    event_type: WebhookEventType
    timestamp: Timestamp
    project_id: str
    data: EventData

    def body(self) -> bytes:
        """The exact bytes that are sent and signed."""
        return json.dumps(
            self.model_dump(mode="json"), separators=(",", ":"), ensure_ascii=False
        ).encode()


def event_id(intent_id: str, revision: int, subject: str) -> str:
    """One id per (intent, revision, what changed): the status is left out, so a write
    retried with a different outcome cannot add a second event for the same change."""
    return str(uuid.uuid5(_EVENT_NAMESPACE, f"{intent_id}/{revision}/{subject}"))


def transition_events(
    before: IntentState | None, after: IntentState, at: datetime
) -> list[WebhookEvent]:
    """The events of going from `before` (None: nothing recorded yet) to `after`."""
    events: list[WebhookEvent] = []

    def emit(event_type: WebhookEventType, subject: str, data: EventData) -> None:
        events.append(
            WebhookEvent(
                event_id=event_id(after.id, after.revision, f"{event_type}/{subject}"),
                event_type=event_type,
                timestamp=at,
                project_id=after.project_id,
                data=data,
            )
        )

    # Steps first, then the transaction, then the intent: the order in which they
    # happen when one change completes the plan, creates the transaction and so moves
    # the intent on.
    previous_steps = {step.code: step.status for step in before.plan.steps} if before else {}
    for step in after.plan.steps:
        was = previous_steps.get(step.code)
        # A new intent's steps start PENDING: only those already satisfied are news.
        if was == step.status or (was is None and step.status is StepStatus.PENDING):
            continue
        emit(
            WebhookEventType.COMPLIANCE_UPDATED,
            step.code,
            ComplianceUpdated(
                intent_id=after.id,
                customer_id=after.customer_id,
                requirement_code=step.code,
                status=step.status,
                previous_status=was,
            ),
        )

    transaction = after.transaction
    previous = before.transaction if before else None
    if transaction is not None and (previous is None or previous.status != transaction.status):
        emit(
            WebhookEventType.MONEY_MOVEMENT_UPDATED,
            transaction.id,
            MoneyMovementUpdated(
                intent_id=after.id,
                customer_id=after.customer_id,
                transaction_id=transaction.id,
                status=transaction.status,
                previous_status=previous.status if previous else None,
                provider_reference=transaction.provider_reference,
            ),
        )

    unmatched = after.unmatched_deposit
    if unmatched is not None and (before is None or before.unmatched_deposit is None):
        emit(
            WebhookEventType.DEPOSIT_UNMATCHED,
            unmatched.event_id,
            DepositUnmatched(
                intent_id=after.id,
                customer_id=after.customer_id,
                transaction_id=transaction.id if transaction else None,
                provider_reference=transaction.provider_reference if transaction else None,
                unmatched_reason=unmatched.reason,
            ),
        )

    for number, move in enumerate(after.provider_moves):
        if before is not None and number < len(before.provider_moves):
            continue
        emit(
            WebhookEventType.INTENT_STATUS_CHANGED,
            f"move/{number}",
            IntentProviderMoved(
                intent_id=after.id,
                customer_id=after.customer_id,
                status=after.status,
                previous_status=before.status if before else None,
                failure_reason=None,
                moved_from_provider_code=move.from_provider_code,
                moved_to_provider_code=move.to_provider_code,
                move_reason=move.reason,
            ),
        )

    if before is None or before.status != after.status:
        emit(
            WebhookEventType.INTENT_STATUS_CHANGED,
            "intent",
            IntentStatusChanged(
                intent_id=after.id,
                customer_id=after.customer_id,
                status=after.status,
                previous_status=before.status if before else None,
                failure_reason=after.failure_reason,
            ),
        )
    return events
