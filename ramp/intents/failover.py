"""Failover (issue 26), the pure part: when an intent may move to another provider, and
the move itself. The workflow (workflows/failover.py) asks for the next eligible
provider and its checks, then applies `move_provider`.

The next provider is the next candidate account: another account of the same provider
(a project may hold several) is one, so two Bridge accounts fail over to each other.

An intent moves when its provider fails to create the transaction for reasons of its
own (unavailable after its retries, out of service), never:
- once a transaction exists (money may have reached the provider: a failure then is
  handled as before, never with a second transaction);
- for a refusal of the customer or the transfer (KYC rejected, limits: `Refused`);
- more than MAX_MOVES times.

The intent keeps its id, its hosted page (`frontendUrl`) and its transaction id; its
compliance plan is rebuilt for the new provider (steps the customer satisfied for it
complete by themselves), its money movement plan names the new account, and the move is
recorded with its reason (`IntentState.provider_moves`, an INTENT_STATUS_CHANGED event
that says it: ramp/intents/events.py).
"""

from __future__ import annotations

from datetime import datetime

from ramp.intents.lifecycle import _advance_plan, _touch, derived_id, is_terminal
from ramp.intents.models import (
    CheckResult,
    ComplianceStep,
    IntentState,
    ProviderMove,
    ProviderSelection,
)
from ramp.intents.states import PlanStatus, StepStatus

# Moves per intent: a payment tries at most three providers.
MAX_MOVES = 2


def can_move(state: IntentState) -> bool:
    return (
        state.transaction is None
        and not is_terminal(state)
        and len(state.provider_moves) < MAX_MOVES
    )


def tried_providers(state: IntentState) -> list[str]:
    """Every provider this intent was with, the current one included (what runs from
    before several accounts per provider exclude: patch accounts-failover-by-account)."""
    return [m.from_provider_code for m in state.provider_moves] + [state.provider.provider_code]


def tried_accounts(state: IntentState) -> list[str]:
    """Every provider account this intent was with, the current one included: the
    candidates a failover skips (another account of the same provider stays one)."""
    return [m.from_provider_account_id for m in state.provider_moves] + [
        state.provider.provider_account_id
    ]


def move_provider(
    state: IntentState,
    selection: ProviderSelection,
    checks: list[CheckResult],
    reason: str,
    now: datetime,
) -> None:
    """Moves the intent to `selection`: the plan rebuilt for its requirements (those
    `checks` found satisfied complete by themselves), the move recorded."""
    previous = state.provider
    passed = {check.code for check in checks if check.satisfied}
    before = {step.code: step for step in state.plan.steps}
    done: set[str] = set()
    steps = []
    for requirement in selection.requirements:
        complete = requirement.code in passed and done.issuperset(requirement.depends_on)
        if complete:
            done.add(requirement.code)
        kept = before.get(requirement.code)
        steps.append(
            ComplianceStep(
                id=derived_id(state.id, f"step:{requirement.code}"),
                code=requirement.code,
                description=requirement.description,
                depends_on=list(requirement.depends_on),
                edge_id=requirement.edge_id,
                status=StepStatus.COMPLETED if complete else StepStatus.PENDING,
                metadata={"completedBy": "RECORD"} if complete else {},
                created_at=kept.created_at if kept else now,
                updated_at=now,
            )
        )
    plan = state.plan
    plan.steps = steps
    plan.status = PlanStatus.PENDING
    plan.current_step_code = None
    _advance_plan(plan, now)
    state.onboarding = state.onboarding or plan.status is not PlanStatus.COMPLETED
    state.provider = selection
    state.provider_moves.append(
        ProviderMove(
            from_provider_code=previous.provider_code,
            from_provider_account_id=previous.provider_account_id,
            to_provider_code=selection.provider_code,
            to_provider_account_id=selection.provider_account_id,
            reason=reason,
            at=now,
        )
    )
    _touch(state, now)
