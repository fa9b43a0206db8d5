"""The sandbox's stand-ins for the world outside the service, as use cases: a provider
reporting a transaction's progress, and the verification behind the hosted onboarding
deciding a compliance step.

Both signal the intent's workflow exactly as the real sources will. A signal cannot
answer, so the transition is checked here first, against the projection: an impossible
one is refused (Conflict) instead of being ignored in silence by the workflow.
"""

from __future__ import annotations

import uuid

from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.db.engine import read_snapshot
from ramp.db.tables import IntentRow, TransactionRow
from ramp.errors import Conflict, IntentError, NotFound, Refused, StepError
from ramp.intents.models import ProviderEvent, StepUpdate
from ramp.intents.states import (
    ProviderEventType,
    StepOutcome,
    TransactionStatus,
    next_transaction_status,
)
from ramp.intents.step_check import check_step_outcome
from ramp.intents.workflow_client import IntentWorkflowClient, WorkflowEnded


class SandboxService:
    def __init__(
        self, db: async_sessionmaker[AsyncSession], workflows: IntentWorkflowClient
    ) -> None:
        self._db = db
        self._workflows = workflows

    async def report_transaction_event(
        self,
        project_id: str,
        transaction_id: str,
        event_type: ProviderEventType,
        reason: str | None,
    ) -> ProviderEvent:
        """The provider's event, as signalled to the transaction's intent."""
        async with self._db() as session:
            transaction = await _transaction(session, project_id, transaction_id, event_type)
        event = ProviderEvent(
            event_id=str(uuid.uuid4()),
            transaction_id=transaction.id,
            type=event_type,
            reason=reason,
        )
        try:
            await self._workflows.report_provider_event(transaction.intent_id, event)
        except WorkflowEnded:
            # It ended since the check: the projection holds the final status now.
            async with self._db() as session:
                await read_snapshot(session)
                await _transaction(session, project_id, transaction_id, event_type)
            raise _closed() from None
        return event

    async def record_step_outcome(
        self,
        project_id: str,
        intent_id: str,
        step_code: str,
        outcome: StepOutcome,
        reason: str | None,
    ) -> StepUpdate:
        """The verification's decision on a step, as signalled to the intent."""
        async with self._db() as session:
            await _step_check(session, project_id, intent_id, step_code, outcome)
        update = StepUpdate(step_code=step_code, outcome=outcome, reason=reason)
        try:
            await self._workflows.update_step(intent_id, update)
        except WorkflowEnded:
            async with self._db() as session:
                await read_snapshot(session)
                await _step_check(session, project_id, intent_id, step_code, outcome)
            raise _closed() from None
        return update


async def _transaction(
    session: AsyncSession, project_id: str, transaction_id: str, event_type: ProviderEventType
) -> TransactionRow:
    """The project's transaction, if the event applies to its status."""
    transaction = await session.get(TransactionRow, transaction_id)
    if transaction is None or transaction.project_id != project_id:
        raise NotFound("transaction")
    status = TransactionStatus(transaction.status)
    if next_transaction_status(status, event_type) is None:
        raise Conflict(
            StepError.INVALID_TRANSITION,
            f"{event_type} does not apply to a {status} transaction",
            {"status": status, "event": event_type},
        )
    return transaction


async def _step_check(
    session: AsyncSession, project_id: str, intent_id: str, step_code: str, outcome: StepOutcome
) -> None:
    intent = await session.get(IntentRow, intent_id)
    if intent is None or intent.project_id != project_id:
        raise NotFound("intent")
    await check_step_outcome(session, intent, step_code, outcome)


def _closed() -> Refused:
    return Refused(IntentError.INTENT_CLOSED, "the intent is closed")
