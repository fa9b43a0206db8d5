"""The check shared by everything that reports a compliance step's outcome: is this step
of this intent able to take it now? Answered from the projection, so an impossible
transition gets a 409 instead of silence; the intent's workflow checks again."""

from __future__ import annotations

from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession

from api.errors import ApiError, not_found
from ramp.db.tables import ComplianceStepRow, IntentRow
from ramp.intents.lifecycle import refuse_step_update
from ramp.intents.states import IntentStatus, PlanStatus, StepOutcome, StepStatus


async def check_step_outcome(
    session: AsyncSession, intent: IntentRow, step_code: str, outcome: StepOutcome
) -> None:
    step = (
        await session.exec(
            select(ComplianceStepRow).where(
                ComplianceStepRow.intent_id == intent.id, ComplianceStepRow.code == step_code
            )
        )
    ).first()
    if step is None:
        raise not_found("compliance step")
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
        raise ApiError(409, code, message, {"currentStepCode": intent.current_step_code})
