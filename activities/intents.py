"""Activities of the intent workflow: everything that reads or writes the outside world.

The workflow decides; these look things up (accounts, providers, verifications on
record), call the provider adapter, and write the projection the API reads.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from temporalio import activity

from ramp.adapters import AccountDetails, ProviderAdapters, TransactionOrder
from ramp.catalog import (
    AccountFacts,
    AccountType,
    Provider,
    compliance_edge_id,
    currency_by_code,
    eligible_providers,
    ineligibility_reasons,
    matching_corridor,
    provider_by_id,
)
from ramp.db.tables import (
    ComplianceStepRow,
    ExternalAccount,
    IntentRow,
    Project,
    ProviderAccount,
    SatisfiedRequirement,
    TransactionEventRow,
    TransactionRow,
)
from ramp.db.types import utcnow
from ramp.db.upsert import upsert
from ramp.intents.amounts import AmountProblem, check_amount
from ramp.intents.compliance import (
    CheckContext,
    VerificationRecord,
    evaluate,
    verification_expiry,
)
from ramp.intents.errors import IntentError, intent_error
from ramp.intents.models import (
    CheckResult,
    CheckResults,
    IntentRequest,
    IntentState,
    ProviderSelection,
    ProviderTransaction,
    RequirementChecks,
    RequirementSpec,
    TransactionRequest,
)
from ramp.intents.states import StepStatus
from ramp.projects import project_providers


class IntentActivities:
    def __init__(self, db: async_sessionmaker[AsyncSession], adapters: ProviderAdapters) -> None:
        self._db = db
        self._adapters = adapters

    @activity.defn
    async def select_provider(self, request: IntentRequest) -> ProviderSelection:
        """Eligibility, selection and amount validation (spec: processing order 1-2, 5)."""
        async with self._db() as session:
            source, destination = await _accounts(session, request)
            project = await session.get(Project, request.project_id)
            assert project is not None
            providers = await project_providers(session, project)
            src = _facts(source)
            dest = _facts(destination)
            eligible, rejected = eligible_providers(providers, src, dest)
            if not eligible:
                raise intent_error(
                    IntentError.NO_ELIGIBLE_PROVIDER,
                    "no provider can handle the requested external accounts",
                    {
                        "providers": [
                            {
                                "providerId": p.id,
                                "providerCode": p.code,
                                "reasons": rejected[p.code],
                            }
                            for p in providers
                        ],
                        "remedy": "enable more providers for the project",
                    },
                )
            chosen = _preferred(request.provider_id, eligible, src, dest) or eligible[0]
            corridor = matching_corridor(chosen, src, dest)
            assert corridor is not None  # eligible means a corridor matched
            currency = currency_by_code(source.currency_code)
            assert currency is not None
            try:
                check_amount(request.amount, currency, corridor.limits[currency.code], chosen.id)
            except AmountProblem as problem:
                raise intent_error(
                    IntentError.AMOUNT_VALIDATION_ERROR, problem.message, problem.details
                ) from None
            account_id = (
                await session.exec(
                    select(ProviderAccount.id).where(
                        ProviderAccount.project_id == project.id,
                        ProviderAccount.provider_code == chosen.code,
                    )
                )
            ).one()
        return ProviderSelection(
            provider_id=chosen.id,
            provider_code=chosen.code,
            provider_name=chosen.name,
            provider_account_id=account_id,
            movement_type=corridor.type,
            source_currency=source.currency_code,
            destination_currency=destination.currency_code,
            requirements=[
                RequirementSpec(
                    code=r.code,
                    description=r.description,
                    depends_on=list(r.depends_on),
                    edge_id=compliance_edge_id(chosen.code, r.code),
                )
                for r in chosen.requirements
            ],
        )

    @activity.defn
    async def check_requirements(self, request: RequirementChecks) -> CheckResults:
        """Runs each requirement's check against what the customer has on record."""
        async with self._db() as session:
            rows = (
                await session.exec(
                    select(SatisfiedRequirement).where(
                        SatisfiedRequirement.customer_id == request.customer_id,
                        SatisfiedRequirement.provider_code == request.provider_code,
                    )
                )
            ).all()
        records = {
            row.requirement_code: VerificationRecord(row.satisfied_at, row.expires_at)
            for row in rows
        }
        now = utcnow()
        results = []
        for code in request.codes:
            reason = evaluate(
                CheckContext(
                    customer_id=request.customer_id,
                    provider_code=request.provider_code,
                    requirement_code=code,
                    amount=Decimal(request.amount),
                    currency_code=request.currency_code,
                    records=records,
                    now=now,
                )
            )
            results.append(CheckResult(code=code, satisfied=reason is None, reason=reason))
        return CheckResults(results=results)

    @activity.defn
    async def create_transaction(self, request: TransactionRequest) -> ProviderTransaction:
        """Places the order with the provider; returns its reference and deposit instructions."""
        async with self._db() as session:
            source = await session.get(ExternalAccount, request.src_account_id)
            destination = await session.get(ExternalAccount, request.dest_account_id)
        # Intents keep their accounts: external accounts are never deleted.
        assert source is not None
        assert destination is not None
        order = TransactionOrder(
            transaction_id=request.transaction_id,
            movement_type=request.movement_type,
            amount=request.amount,
            source=_details(source),
            destination=_details(destination),
        )
        return await self._adapters.for_provider(request.provider_code).create_transaction(order)

    @activity.defn
    async def record_intent(self, state: IntentState) -> None:
        """Writes the workflow's state to the projection, in one database transaction.

        A write older than the stored revision is skipped, so a late retry can never
        overwrite newer state.
        """
        async with self._db() as session:
            stored = (
                await session.exec(
                    select(IntentRow.revision).where(IntentRow.id == state.id).with_for_update()
                )
            ).first()
            if stored is not None and stored >= state.revision:
                return
            await upsert(session, IntentRow, [_intent_row(state)], ["id"])
            await upsert(
                session,
                ComplianceStepRow,
                [
                    {
                        "id": step.id,
                        "intent_id": state.id,
                        "position": position,
                        "code": step.code,
                        "description": step.description,
                        "depends_on": step.depends_on,
                        "edge_id": step.edge_id,
                        "status": step.status.value,
                        "metadata": step.metadata,
                        "created_at": step.created_at,
                        "updated_at": step.updated_at,
                    }
                    for position, step in enumerate(state.plan.steps)
                ],
                ["id"],
            )
            await _record_verifications(session, state)
            if state.transaction is not None:
                await _record_transaction(session, state)
            await session.commit()


async def _accounts(
    session: AsyncSession, request: IntentRequest
) -> tuple[ExternalAccount, ExternalAccount]:
    found = {
        account.id: account
        for account in (
            await session.exec(
                select(ExternalAccount).where(
                    col(ExternalAccount.id).in_([request.src_account_id, request.dest_account_id]),
                    ExternalAccount.customer_id == request.customer_id,
                )
            )
        ).all()
    }
    missing = [
        {"pointer": pointer, "reason": "no external account of this customer has this id"}
        for pointer, account_id in (
            ("/srcExternalAccountId", request.src_account_id),
            ("/destExternalAccountId", request.dest_account_id),
        )
        if account_id not in found
    ]
    if missing:
        raise intent_error(
            IntentError.EXTERNAL_ACCOUNT_NOT_FOUND,
            "external account not found",
            {"fields": missing},
        )
    return found[request.src_account_id], found[request.dest_account_id]


def _facts(account: ExternalAccount) -> AccountFacts:
    return AccountFacts.from_metadata(
        account.currency_code, AccountType(account.type), account.account_metadata
    )


def _details(account: ExternalAccount) -> AccountDetails:
    facts = _facts(account)
    return AccountDetails(
        currency_code=account.currency_code,
        rail=facts.rail,
        country_code=facts.country_code,
        metadata=account.account_metadata,
    )


def _preferred(
    provider_id: str | None, eligible: Sequence[Provider], src: AccountFacts, dest: AccountFacts
) -> Provider | None:
    if provider_id is None:
        return None
    for provider in eligible:
        if provider.id == provider_id:
            return provider
    known = provider_by_id(provider_id)
    details: dict[str, Any] = {
        "providerId": provider_id,
        "eligibleProviderIds": [p.id for p in eligible],
    }
    if known is not None:
        details["reasons"] = ineligibility_reasons(known, src, dest) or [
            "provider is not enabled for this project"
        ]
    raise intent_error(
        IntentError.PROVIDER_NOT_ELIGIBLE,
        f"preferred provider '{provider_id}' is not a valid candidate for this payment path",
        details,
    )


def _intent_row(state: IntentState) -> dict[str, Any]:
    selection = state.provider
    return {
        "id": state.id,
        "project_id": state.project_id,
        "customer_id": state.customer_id,
        "src_account_id": state.src_account_id,
        "dest_account_id": state.dest_account_id,
        "amount": state.amount,
        "currency_code": state.currency_code,
        "status": state.status.value,
        "failure_reason": state.failure_reason,
        "auto_execute": state.auto_execute,
        "redirect_url": state.redirect_url,
        "onboarding": state.onboarding,
        "fingerprint": state.fingerprint,
        "mm_plan_id": state.mm_plan_id,
        "movement_type": selection.movement_type.value,
        "provider_id": selection.provider_id,
        "provider_code": selection.provider_code,
        "provider_name": selection.provider_name,
        "provider_account_id": selection.provider_account_id,
        "plan_id": state.plan.id,
        "plan_status": state.plan.status.value,
        "current_step_code": state.plan.current_step_code,
        "plan_created_at": state.plan.created_at,
        "plan_updated_at": state.plan.updated_at,
        "created_at": state.created_at,
        "updated_at": state.updated_at,
        "expired_at": state.expired_at,
        "revision": state.revision,
    }


async def _record_verifications(session: AsyncSession, state: IntentState) -> None:
    """Steps verified through onboarding become the customer's record for next time."""
    rows = [
        {
            "id": str(uuid.uuid5(uuid.NAMESPACE_URL, f"{state.customer_id}:{step.edge_id}")),
            "customer_id": state.customer_id,
            "provider_code": state.provider.provider_code,
            "requirement_code": step.code,
            "satisfied_at": step.updated_at,
            "expires_at": verification_expiry(step.code, step.updated_at),
            "intent_id": state.id,
        }
        for step in state.plan.steps
        if step.status is StepStatus.COMPLETED and step.metadata.get("completedBy") == "ONBOARDING"
    ]
    await upsert(
        session,
        SatisfiedRequirement,
        rows,
        ["customer_id", "provider_code", "requirement_code"],
    )


async def _record_transaction(session: AsyncSession, state: IntentState) -> None:
    transaction = state.transaction
    assert transaction is not None
    await upsert(
        session,
        TransactionRow,
        [
            {
                "id": transaction.id,
                "intent_id": state.id,
                "project_id": state.project_id,
                "status": transaction.status.value,
                "provider_code": state.provider.provider_code,
                "provider_reference": transaction.provider_reference,
                "context": transaction.context.model_dump(mode="json"),
                "failure_reason": transaction.failure_reason,
                "created_at": transaction.created_at,
                "updated_at": transaction.updated_at,
                "last_activity_at": transaction.last_activity_at,
            }
        ],
        ["id"],
    )
    await upsert(
        session,
        TransactionEventRow,
        [
            {
                "id": event.event_id,
                "transaction_id": transaction.id,
                "type": event.type.value,
                "status_after": event.status_after.value,
                "reason": event.reason,
                "received_at": event.received_at,
            }
            for event in transaction.events
        ],
        ["id"],
    )
