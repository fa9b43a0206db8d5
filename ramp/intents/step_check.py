"""The check shared by everything that reports a compliance step's outcome: is this step
of this intent able to take it now? Answered from the projection, so an impossible
transition is refused (Conflict) instead of ignored; the intent's workflow checks again."""

from __future__ import annotations

from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.db.tables import ComplianceStepRow, IntentRow
from ramp.errors import Conflict, NotFound
from ramp.intents.lifecycle import refuse_step_update
from ramp.intents.states import IntentStatus, PlanStatus, StepOutcome, StepStatus


async def check_step_outcome(
    session: AsyncSession, intent: IntentRow, step_code: str, outcome: StepOutcome
) -> None:
    """NotFound if the intent has no such step; Conflict if the step cannot take
    `outcome` now (details name the intent's current step)."""
    step = (
        await session.exec(
            select(ComplianceStepRow).where(
                ComplianceStepRow.intent_id == intent.id, ComplianceStepRow.code == step_code
            )
        )
    ).first()
    if step is None:
        raise NotFound("compliance step")
    refusal = refuse_step_update(
        IntentStatus(intent.status),
        PlanStatus(intent.plan_status),
        intent.current_step_code,
        step_code,
        StepStatus(step.status),
        outcome,
    )
    if refusal is not None:
        code, message = refusal
        raise Conflict(code, message, {"currentStepCode": intent.current_step_code})
