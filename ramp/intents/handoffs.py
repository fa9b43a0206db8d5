"""Pure state changes of intents routed through a real provider's connector.

A provider may decide compliance (Bridge: its KYC and terms-of-service links), so what
the workflow learns from a poll (a `ComplianceStanding`) is applied here: the hand-off
shown on each open step (`metadata.handoff`: mode, url, embeddable), then the verdicts,
current step first, as the sandbox's outcomes would be. Deterministic: the workflow
calls these with its own clock.
"""

from __future__ import annotations

from datetime import datetime

from ramp.intents.lifecycle import apply_step_update, current_step, is_terminal
from ramp.intents.models import IntentState, StepUpdate, UnmatchedDeposit
from ramp.intents.provider_calls import ComplianceStanding
from ramp.intents.states import IntentStatus, StepOutcome, StepStatus, TransactionStatus

_CLOSED_STEPS = frozenset({StepStatus.COMPLETED, StepStatus.REJECTED})


def _touch(state: IntentState, now: datetime) -> None:
    state.updated_at = now
    state.revision += 1


def apply_standing(state: IntentState, standing: ComplianceStanding, now: datetime) -> bool:
    """Applies what the provider says of the customer's requirements; True if changed."""
    if is_terminal(state):
        return False
    changed = False
    by_code = {handoff.requirement: handoff for handoff in standing.handoffs}
    for step in state.plan.steps:
        handoff = by_code.get(step.code)
        if handoff is None or step.status in _CLOSED_STEPS:
            continue
        if handoff.mode == "FORM":
            continue  # our hosted onboarding shows a FORM step itself
        shown = {"mode": handoff.mode, "embeddable": handoff.embeddable}
        if handoff.url:
            shown["url"] = handoff.url
        if step.metadata.get("handoff") != shown:
            step.metadata = {**step.metadata, "handoff": shown}
            step.updated_at = now
            changed = True
    if changed:
        _touch(state, now)
    while (current := current_step(state)) is not None:
        handoff = by_code.get(current.code)
        if handoff is None or handoff.outcome is None:
            break
        if current.status is StepStatus.SUBMITTED and handoff.outcome is StepOutcome.SUBMITTED:
            break
        update = StepUpdate(step_code=current.code, outcome=handoff.outcome, reason=handoff.reason)
        if not apply_step_update(state, update, now):
            break
        changed = True
        if handoff.outcome is not StepOutcome.VERIFIED:
            break
    return changed


def fail(state: IntentState, reason: str, now: datetime) -> bool:
    """The provider refused what the intent needs (its reason, in our words)."""
    if is_terminal(state):
        return False
    state.status = IntentStatus.FAILED
    state.failure_reason = reason
    transaction = state.transaction
    if transaction is not None:
        transaction.status = TransactionStatus.FAILED
        transaction.failure_reason = reason
        transaction.updated_at = now
        transaction.last_activity_at = now
    _touch(state, now)
    return True


def mark_unmatched(state: IntentState, event_id: str, reason: str, now: datetime) -> bool:
    """Money arrived that this intent cannot take: kept as an explicit state for an
    operator (refund required), reported once."""
    if state.unmatched_deposit is not None:
        return False
    state.unmatched_deposit = UnmatchedDeposit(event_id=event_id, reason=reason, received_at=now)
    _touch(state, now)
    return True
