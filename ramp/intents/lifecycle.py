"""How an intent's state changes: pure functions the workflow applies.

No clocks, randomness or I/O: callers pass `now`, and ids derive from the intent id,
so a replayed workflow computes exactly the same state. Each change bumps `revision`.
"""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta

from ramp.errors import IntentError
from ramp.intents.models import (
    AppliedEvent,
    CheckResult,
    CompliancePlan,
    ComplianceStep,
    IntentRequest,
    IntentState,
    ProviderEvent,
    ProviderSelection,
    ProviderTransaction,
    StepUpdate,
    Transaction,
    Verdict,
)
from ramp.intents.states import (
    EXPIRABLE_TRANSACTION_STATUSES,
    INTENT_STATUS_BY_TRANSACTION,
    TERMINAL_INTENT_STATUSES,
    IntentStatus,
    PlanStatus,
    StepOutcome,
    StepStatus,
    TransactionStatus,
    next_step_status,
    next_transaction_status,
)

_IDS = uuid.UUID("7d1c1b7e-3f53-4b52-9d1e-0c6a4f1f2b90")


def derived_id(intent_id: str, part: str) -> str:
    """A stable id for a part of an intent (plan, step, transaction)."""
    return str(uuid.uuid5(_IDS, f"{intent_id}:{part}"))


def workflow_id(intent_id: str) -> str:
    return f"intent-{intent_id}"


def open_intent(
    request: IntentRequest,
    selection: ProviderSelection,
    checks: list[CheckResult],
    now: datetime,
) -> IntentState:
    """The new intent: its plan has a step per requirement, in dependency order."""
    passed = {check.code for check in checks if check.satisfied}
    done_codes: set[str] = set()
    steps = []
    for requirement in selection.requirements:
        # The graph is enforced: a record counts only once what it depends on is done.
        done = requirement.code in passed and done_codes.issuperset(requirement.depends_on)
        if done:
            done_codes.add(requirement.code)
        steps.append(
            ComplianceStep(
                id=derived_id(request.intent_id, f"step:{requirement.code}"),
                code=requirement.code,
                description=requirement.description,
                depends_on=list(requirement.depends_on),
                edge_id=requirement.edge_id,
                status=StepStatus.COMPLETED if done else StepStatus.PENDING,
                metadata={"completedBy": "RECORD"} if done else {},
                created_at=now,
                updated_at=now,
            )
        )
    plan = CompliancePlan(
        id=derived_id(request.intent_id, "plan"),
        status=PlanStatus.PENDING,
        current_step_code=None,
        steps=steps,
        created_at=now,
        updated_at=now,
    )
    _advance_plan(plan, now)
    return IntentState(
        id=request.intent_id,
        project_id=request.project_id,
        customer_id=request.customer_id,
        src_account_id=request.src_account_id,
        dest_account_id=request.dest_account_id,
        amount=request.amount,
        currency_code=selection.source_currency,
        auto_execute=request.auto_execute,
        redirect_url=request.redirect_url,
        label=request.label,
        onboarding_redirect_url=request.onboarding_redirect_url,
        checkout_redirect_url=request.checkout_redirect_url,
        fingerprint=request.fingerprint,
        provider=selection,
        mm_plan_id=derived_id(request.intent_id, "mm-plan"),
        status=IntentStatus.PENDING,
        onboarding=plan.status is not PlanStatus.COMPLETED,
        plan=plan,
        created_at=now,
        updated_at=now,
        expired_at=now + timedelta(seconds=request.lifetime_seconds),
    )


def _advance_plan(plan: CompliancePlan, now: datetime) -> None:
    """Points the plan at its first open step, or completes it."""
    # Steps are in dependency order, so the first open step has all its dependencies met.
    current = next((s for s in plan.steps if s.status is not StepStatus.COMPLETED), None)
    plan.current_step_code = current.code if current else None
    if current is None:
        plan.status = PlanStatus.COMPLETED
    plan.updated_at = now


def _touch(state: IntentState, now: datetime) -> None:
    state.updated_at = now
    state.revision += 1


def is_terminal(state: IntentState) -> bool:
    return state.status in TERMINAL_INTENT_STATUSES


def current_step(state: IntentState) -> ComplianceStep | None:
    code = state.plan.current_step_code
    return next((s for s in state.plan.steps if s.code == code), None)


def step_update_refusal(state: IntentState, update: StepUpdate) -> tuple[str, str] | None:
    """Why `update` cannot apply now, as (code, message), or None when it can."""
    step = next((s for s in state.plan.steps if s.code == update.step_code), None)
    return refuse_step_update(
        state.status,
        state.plan.status,
        state.plan.current_step_code,
        update.step_code,
        step.status if step else None,
        update.outcome,
    )


def refuse_step_update(
    status: IntentStatus,
    plan_status: PlanStatus,
    current_step: str | None,
    step_code: str,
    step_status: StepStatus | None,
    outcome: StepOutcome,
) -> tuple[str, str] | None:
    """`step_update_refusal` from the projected values (the sandbox endpoint's pre-check)."""
    if status in TERMINAL_INTENT_STATUSES or plan_status is not PlanStatus.PENDING:
        return "COMPLIANCE_CLOSED", f"the compliance plan is {plan_status} and the intent {status}"
    if step_code != current_step or step_status is None:
        return "STEP_NOT_CURRENT", f"{step_code} is not the current step ({current_step})"
    if next_step_status(step_status, outcome) is None:
        return (
            "INVALID_TRANSITION",
            f"{step_code} is {step_status}: outcome {outcome} does not apply",
        )
    return None


def apply_step_update(state: IntentState, update: StepUpdate, now: datetime) -> bool:
    """Applies an onboarding outcome to the current step; False when it does not apply."""
    if step_update_refusal(state, update) is not None:
        return False
    step = current_step(state)
    assert step is not None
    target = next_step_status(step.status, update.outcome)
    assert target is not None
    step.status = target
    step.updated_at = now
    if update.outcome is StepOutcome.VERIFIED:
        step.metadata = {**step.metadata, "completedBy": "ONBOARDING", "verifiedAt": _iso(now)}
        _advance_plan(state.plan, now)
    elif update.outcome is StepOutcome.REJECTED:
        reason = update.reason or "verification refused"
        step.metadata = {**step.metadata, "reason": reason, "rejectedAt": _iso(now)}
        state.plan.status = PlanStatus.FAILED
        state.plan.updated_at = now
        state.status = IntentStatus.FAILED
        state.failure_reason = f"{step.code} rejected: {reason}"
    else:
        step.metadata = {**step.metadata, "submittedAt": _iso(now)}
        state.plan.updated_at = now
    _touch(state, now)
    return True


def submission_refusal(state: IntentState, step_code: str) -> tuple[str, str] | None:
    """Why the customer cannot submit `step_code` now (hosted onboarding), or None."""
    return step_update_refusal(
        state, StepUpdate(step_code=step_code, outcome=StepOutcome.SUBMITTED)
    )


def apply_submission(state: IntentState, step_code: str, verdict: Verdict, now: datetime) -> None:
    """The customer's submission of the current step, and what verification decided:
    the step is SUBMITTED, then COMPLETED or REJECTED unless a person must review it."""
    submitted = apply_step_update(
        state, StepUpdate(step_code=step_code, outcome=StepOutcome.SUBMITTED), now
    )
    assert submitted, "checked by submission_refusal"
    if verdict.outcome is not StepOutcome.SUBMITTED:
        decided = StepUpdate(step_code=step_code, outcome=verdict.outcome, reason=verdict.reason)
        applied = apply_step_update(state, decided, now)
        assert applied, "a SUBMITTED step accepts VERIFIED and REJECTED"


def execution_refusal(state: IntentState) -> tuple[IntentError, str] | None:
    """Why a transaction cannot be created now, or None when it can."""
    return refuse_execution(
        state.status, state.plan.status, state.plan.current_step_code, state.transaction is not None
    )


def refuse_execution(
    status: IntentStatus, plan_status: PlanStatus, current_step: str | None, has_transaction: bool
) -> tuple[IntentError, str] | None:
    """`execution_refusal` from the projected values (the API's pre-check)."""
    if has_transaction:
        return IntentError.TRANSACTION_EXISTS, "transaction already exists for this intent"
    if status in TERMINAL_INTENT_STATUSES:
        return IntentError.INTENT_CLOSED, f"the intent is {status}"
    if plan_status is not PlanStatus.COMPLETED:
        return (
            IntentError.COMPLIANCE_NOT_COMPLETE,
            f"the compliance plan is not complete (current step: {current_step})",
        )
    return None


def should_auto_execute(state: IntentState) -> bool:
    """True when the workflow itself must create the transaction now."""
    return execution_refusal(state) is None and (state.auto_execute or not state.onboarding)


def attach_transaction(state: IntentState, created: ProviderTransaction, now: datetime) -> None:
    state.transaction = Transaction(
        id=derived_id(state.id, "transaction"),
        status=TransactionStatus.PENDING,
        provider_reference=created.provider_reference,
        context=created.context,
        receipt=created.receipt,
        created_at=now,
        updated_at=now,
        last_activity_at=now,
    )
    state.status = INTENT_STATUS_BY_TRANSACTION[TransactionStatus.PENDING]
    _touch(state, now)


def provider_event_refusal(state: IntentState, event: ProviderEvent) -> str | None:
    transaction = state.transaction
    if transaction is None or transaction.id != event.transaction_id:
        return "no such transaction on this intent"
    if any(applied.event_id == event.event_id for applied in transaction.events):
        return "event already applied"
    if next_transaction_status(transaction.status, event.type) is None:
        return f"{event.type} does not apply to a {transaction.status} transaction"
    return None


def apply_provider_event(state: IntentState, event: ProviderEvent, now: datetime) -> bool:
    """Moves the transaction (and so the intent) on; False when the event does not apply."""
    if provider_event_refusal(state, event) is not None:
        return False
    transaction = state.transaction
    assert transaction is not None
    target = next_transaction_status(transaction.status, event.type)
    assert target is not None
    transaction.status = target
    transaction.updated_at = now
    transaction.last_activity_at = now
    transaction.events.append(
        AppliedEvent(
            event_id=event.event_id,
            type=event.type,
            status_after=target,
            reason=event.reason,
            received_at=now,
        )
    )
    state.status = INTENT_STATUS_BY_TRANSACTION[target]
    if target is TransactionStatus.FAILED:
        transaction.failure_reason = event.reason or f"provider reported {event.type}"
        state.failure_reason = f"transaction failed: {transaction.failure_reason}"
    _touch(state, now)
    return True


def deposit_pending(state: IntentState) -> bool:
    """True while expiry still applies: no money has moved yet."""
    if is_terminal(state):
        return False
    return state.transaction is None or state.transaction.status in EXPIRABLE_TRANSACTION_STATUSES


def expire(state: IntentState, now: datetime) -> bool:
    """Ends an intent whose lifetime ran out before money moved; False if it had."""
    if not deposit_pending(state):
        return False
    if state.transaction is not None:
        state.transaction.status = TransactionStatus.CANCELLED
        state.transaction.failure_reason = "the intent expired before the deposit arrived"
        state.transaction.updated_at = now
        state.transaction.last_activity_at = now
    state.status = IntentStatus.EXPIRED
    state.failure_reason = "the intent expired"
    _touch(state, now)
    return True


def _iso(moment: datetime) -> str:
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")
