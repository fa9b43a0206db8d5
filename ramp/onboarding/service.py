"""The hosted onboarding as use cases: what a customer sees of an intent's compliance
plan, and the submission of its current step.

A submission is validated, stored encrypted (it is personal data) and handed to the
intent's workflow by id through the `submit_step` update; the workflow checks that the
step can take it, verifies it and decides what comes next. The view returned is
projected from the state it answers with.
"""

from __future__ import annotations

import functools
import json
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import timedelta
from typing import Any

from pydantic import BaseModel, ValidationError
from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel import col, delete, select
from sqlmodel.ext.asyncio.session import AsyncSession
from temporalio.client import WorkflowUpdateFailedError

from ramp.adapters.registry import Connectors
from ramp.db.engine import read_snapshot
from ramp.db.tables import (
    ComplianceStepRow,
    IntentRow,
    OnboardingSubmission,
    Project,
    TransactionRow,
)
from ramp.errors import (
    Conflict,
    DomainError,
    IntentError,
    InvalidInput,
    NotFound,
    Refused,
    RequestError,
    StepError,
)
from ramp.intents.lifecycle import refuse_step_update
from ramp.intents.models import StepSubmission
from ramp.intents.projection import project
from ramp.intents.states import IntentStatus, PlanStatus, StepOutcome, StepStatus
from ramp.intents.workflow_client import IntentWorkflowClient, WorkflowEnded
from ramp.onboarding import reuse
from ramp.onboarding.forms import SUBMISSION_MODELS, SubmissionProblem, check_for_intent
from ramp.security.encryption import SecretBox

# Verification in the sandbox is immediate; a vendor may take longer.
SUBMIT_TIMEOUT = timedelta(seconds=30)


@dataclass(frozen=True)
class OnboardingView:
    intent: IntentRow
    steps: Sequence[ComplianceStepRow]
    transaction: TransactionRow | None
    # The origins that may embed the hosted page (the project's setting).
    origins: Sequence[str]
    # What other providers hold for the open steps, and what the customer consented to.
    shared: reuse.Reuse = field(default_factory=reuse.Reuse)


def submission_model(step_code: str) -> type[BaseModel]:
    """The form of a step the hosted onboarding takes (Conflict for any other step)."""
    model = SUBMISSION_MODELS.get(step_code)
    if model is None:
        raise Conflict(
            StepError.STEP_NOT_SUPPORTED,
            f"{step_code} cannot be submitted through the hosted onboarding",
        )
    return model


class OnboardingService:
    def __init__(
        self,
        db: async_sessionmaker[AsyncSession],
        workflows: IntentWorkflowClient,
        encryption_keys: str,
        connectors: Connectors | None = None,
    ) -> None:
        self._db = db
        self._workflows = workflows
        self._box = _box(encryption_keys)
        self._connectors = connectors

    async def view(self, intent_id: str, customer_id: str) -> OnboardingView:
        async with self._db() as session:
            intent = await _intent_of(session, intent_id, customer_id)
            steps = await _steps_of(session, intent)
            if reuse.open_forms(intent, steps):
                # Once per customer and provider: what a provider's own KYC gives back.
                await reuse.collect_provider_details(session, intent, self._box, self._connectors)
        async with self._db() as session:
            await read_snapshot(session)
            intent = await _intent_of(session, intent_id, customer_id)
            steps = await _steps_of(session, intent)
            transaction = (
                await session.exec(
                    select(TransactionRow).where(TransactionRow.intent_id == intent.id)
                )
            ).first()
            origins = await _origins(session, intent)
            shared = await reuse.reuse_for(session, intent, reuse.open_forms(intent, steps))
        return OnboardingView(intent, steps, transaction, origins, shared)

    async def with_consented(
        self, intent: IntentRow, step_code: str, typed: dict[str, Any]
    ) -> dict[str, Any]:
        """A submission's body: what the customer consented to share for this step, with
        what they typed on top (the typed value wins)."""
        async with self._db() as session:
            steps = (
                await session.exec(
                    select(ComplianceStepRow).where(
                        ComplianceStepRow.intent_id == intent.id,
                        ComplianceStepRow.code == step_code,
                    )
                )
            ).all()
            forms = reuse.open_forms(intent, steps)
            shared = await reuse.reuse_for(session, intent, forms)
        held = shared.held.get(step_code)
        return reuse.overlay(held, typed) if held else typed

    async def consent(
        self, intent_id: str, customer_id: str, source_account_id: str, granted: bool
    ) -> OnboardingView:
        """Records the customer's answer to sharing what `source_account_id` holds with
        the intent's provider; once granted, the current step is submitted on the
        customer's behalf when consented data fills its whole form."""
        async with self._db() as session:
            intent = await _intent_of(session, intent_id, customer_id)
            steps = await _steps_of(session, intent)
            forms = reuse.open_forms(intent, steps)
            offers = (await reuse.reuse_for(session, intent, forms)).offers
            offer = next((o for o in offers if o.provider_account_id == source_account_id), None)
            if offer is None:
                raise NotFound("shareable data from that provider account")
            await reuse.decide(session, intent, source_account_id, granted, offer.fields)
            await session.commit()
        if granted:
            await self._submit_on_behalf(intent)
        return await self.view(intent_id, customer_id)

    async def _submit_on_behalf(self, intent: IntentRow) -> OnboardingView | None:
        """`_submit_consented`, whose failure (an outage, the step moved on meanwhile)
        leaves the step to the customer: the answer or submission that led here stands,
        and the page shows the form with what is filled already."""
        try:
            return await self._submit_consented(intent)
        except (DomainError, WorkflowUpdateFailedError, WorkflowEnded):
            return None

    async def _submit_consented(self, intent: IntentRow) -> OnboardingView | None:
        """Submits the intent's current step on the customer's behalf when what they
        consented to share fills its whole form (the provider decides as for a typed
        one); None when it does not (the customer completes the form)."""
        code = intent.current_step_code
        if code is None or code not in SUBMISSION_MODELS:
            return None
        body = await self.with_consented(intent, code, {})
        if not body:
            return None
        try:
            submission = submission_model(code).model_validate(body)
            check_for_intent(code, submission, intent.transfer_amount, intent.provider_code)
        except (ValidationError, SubmissionProblem):
            return None
        return await self._submit_one(intent, code, submission)

    async def submittable(self, intent_id: str, customer_id: str, step_code: str) -> IntentRow:
        """The customer's intent, if its plan has this step (NotFound otherwise): asked
        before the submission's body is read. Whether the step can take a submission now
        is the workflow's to say."""
        async with self._db() as session:
            intent = await _intent_of(session, intent_id, customer_id)
            step = (
                await session.exec(
                    select(ComplianceStepRow.id).where(
                        ComplianceStepRow.intent_id == intent.id,
                        ComplianceStepRow.code == step_code,
                    )
                )
            ).first()
        if step is None:
            raise NotFound("compliance step")
        return intent

    async def submit(
        self, intent: IntentRow, step_code: str, submission: BaseModel
    ) -> OnboardingView:
        view = await self._submit_one(intent, step_code, submission)
        # The next step may be one the customer consented to fill from another provider.
        for _ in range(len(view.steps)):
            following = view.intent.current_step_code
            if following is None or following == step_code:
                break
            step_code = following
            filled = await self._submit_on_behalf(view.intent)
            if filled is None:
                break
            view = filled
        async with self._db() as session:
            forms = reuse.open_forms(view.intent, view.steps)
            shared = await reuse.reuse_for(session, view.intent, forms)
        return replace(view, shared=shared)

    async def _submit_one(
        self, intent: IntentRow, step_code: str, submission: BaseModel
    ) -> OnboardingView:
        try:
            check_for_intent(step_code, submission, intent.transfer_amount, intent.provider_code)
        except SubmissionProblem as problem:
            raise InvalidInput(
                RequestError.VALIDATION_ERROR,
                "request body is invalid",
                {"fields": [{"pointer": problem.pointer, "reason": problem.reason}]},
            ) from None
        payload = submission.model_dump(mode="json", by_alias=True, exclude_none=True)
        async with self._db() as session:
            stored = OnboardingSubmission(
                id=str(uuid.uuid4()),
                intent_id=intent.id,
                step_code=step_code,
                payload_encrypted=self._box.encrypt(json.dumps(payload)),
            )
            session.add(stored)
            await session.commit()
            origins = await _origins(session, intent)
        try:
            state = await self._workflows.submit_step(
                intent.id,
                StepSubmission(step_code=step_code, submission_id=stored.id),
                SUBMIT_TIMEOUT,
            )
        except (DomainError, WorkflowUpdateFailedError, WorkflowEnded) as error:
            # The workflow answered (or has ended): the submission was refused or failed
            # and changed nothing, so no personal data is kept. An update that was not
            # answered in time (or whose caller went away) may still run and verify this
            # submission: it stays, and the housekeeping's retention purges it with the
            # intent's other submissions.
            await self._forget(stored.id)
            if isinstance(error, WorkflowEnded):
                raise await self._closed(intent, step_code) from None
            if isinstance(error, Refused) and error.code == IntentError.INTENT_CLOSED:
                # The onboarding answers a closed intent with 409, like a closed plan.
                raise Conflict(error.code, error.message, error.details) from None
            raise
        rows = project(state)
        if any(s.code == step_code and s.status != "REJECTED" for s in rows.steps):
            # Kept to fill another provider's form, with the customer's consent.
            async with self._db() as session:
                await reuse.record(
                    session,
                    customer_id=intent.customer_id,
                    provider_account_id=intent.provider_account_id,
                    provider_code=intent.provider_code,
                    requirement_code=step_code,
                    fields=payload,
                    origin=reuse.ONBOARDING,
                )
                await session.commit()
        return OnboardingView(rows.intent, rows.steps, rows.transaction, origins)

    async def _forget(self, submission_id: str) -> None:
        async with self._db() as session:
            await session.exec(
                delete(OnboardingSubmission).where(col(OnboardingSubmission.id) == submission_id)
            )
            await session.commit()

    async def _closed(self, intent: IntentRow, step_code: str) -> DomainError:
        """Why a step of an intent whose workflow has ended cannot be submitted: the
        projection holds the intent's final state."""
        async with self._db() as session:
            await read_snapshot(session)
            final = await session.get(IntentRow, intent.id)
            step = (
                await session.exec(
                    select(ComplianceStepRow.status).where(
                        ComplianceStepRow.intent_id == intent.id,
                        ComplianceStepRow.code == step_code,
                    )
                )
            ).first()
        assert final is not None  # intents are never deleted
        refusal = refuse_step_update(
            IntentStatus(final.status),
            PlanStatus(final.plan_status),
            final.current_step_code,
            step_code,
            StepStatus(step) if step is not None else None,
            StepOutcome.SUBMITTED,
        )
        if refusal is None:
            return Refused(IntentError.INTENT_CLOSED, "the intent is closed")
        code, message = refusal
        return Conflict(code, message, {"currentStepCode": final.current_step_code})


async def _intent_of(session: AsyncSession, intent_id: str, customer_id: str) -> IntentRow:
    intent = await session.get(IntentRow, intent_id)
    if intent is None or intent.customer_id != customer_id or not intent.onboarding:
        raise NotFound("intent")
    return intent


async def _steps_of(session: AsyncSession, intent: IntentRow) -> Sequence[ComplianceStepRow]:
    return (
        await session.exec(
            select(ComplianceStepRow).where(ComplianceStepRow.intent_id == intent.id)
        )
    ).all()


async def _origins(session: AsyncSession, intent: IntentRow) -> list[str]:
    owner = await session.get(Project, intent.project_id)
    assert owner is not None
    return list(owner.onboarding_origins)


@functools.lru_cache(maxsize=4)
def _box(keys: str) -> SecretBox:
    return SecretBox(keys)
