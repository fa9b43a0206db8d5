"""Activities of the intent workflow: everything that reads or writes the outside world.

The workflow decides; these look things up (accounts, providers, verifications on
record), call the provider adapter, and write the projection the API reads.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel import col, delete, select
from sqlmodel.ext.asyncio.session import AsyncSession
from temporalio import activity

from activities.provider_errors import temporal_error
from activities.routing import rank_by_price, route_payment
from ramp.adapters.contract import (
    NotSupported,
    ProviderContext,
    ProviderCustomerRef,
    ProviderError,
    TransactionOrder,
)
from ramp.adapters.registry import Connectors
from ramp.catalog import (
    AccountFacts,
    Provider,
    compliance_edge_id,
    currency_by_code,
    eligible_providers,
    ineligibility_reasons,
    matching_corridor,
    provider_by_id,
)
from ramp.db.engine import begin_write
from ramp.db.tables import (
    ComplianceStepRow,
    ExternalAccount,
    IntentRow,
    SatisfiedRequirement,
)
from ramp.db.types import utcnow
from ramp.db.upsert import upsert
from ramp.errors import IntentError, InvalidInput, ProviderFailed, ProviderRefusal
from ramp.external_accounts.lookup import account_details, account_facts, accounts_by_id
from ramp.intents.amounts import AmountProblem, check_amount
from ramp.intents.changes import IntentChange
from ramp.intents.compliance import (
    CheckContext,
    VerificationRecord,
    evaluate,
)
from ramp.intents.models import (
    CheckedSelection,
    CheckResult,
    CheckResults,
    IntentRequest,
    PollSchedule,
    ProviderSelection,
    ProviderTransaction,
    RequirementChecks,
    RequirementSpec,
    TransactionCancellation,
    TransactionRequest,
)
from ramp.intents.projection import project
from ramp.intents.states import TERMINAL_INTENT_STATUSES, IntentStatus
from ramp.observability import metrics
from ramp.quotes.accounts import ConnectorQuoter
from ramp.quotes.receipt import order_receipt
from ramp.routing.candidates import project_route
from ramp.routing.order_reads import order_reads
from ramp.security.encryption import SecretBox
from ramp.temporal import application_error
from ramp.webhooks.outbox import WebhookOutbox


class IntentActivities:
    def __init__(
        self,
        db: async_sessionmaker[AsyncSession],
        connectors: Connectors,
        outbox: WebhookOutbox,
        writer: AbstractAsyncContextManager[Any] | None = None,
        poll: PollSchedule | None = None,
        secret_box: SecretBox | None = None,
    ) -> None:
        self._db = db
        # For BEST_PRICE routing of production projects: their accounts' quotes.
        self._secret_box = secret_box
        self._poll = poll or PollSchedule()
        self._connectors = connectors
        self._outbox = outbox
        # SQLite has one writer at a time: queueing projection writes here (with the
        # webhook dispatcher's, when `writer` is shared) is cheaper than letting the
        # pool's connections wait in SQLite's busy handler.
        self._writer: AbstractAsyncContextManager[Any] = writer or (
            asyncio.Lock() if db.kw["bind"].dialect.name == "sqlite" else contextlib.nullcontext()
        )

    @activity.defn
    async def select_provider(self, request: IntentRequest) -> ProviderSelection:
        """Eligibility, selection and amount validation (spec: processing order 1-2, 5)."""
        selection, _ = await self._select(request, with_records=False)
        return selection

    @activity.defn
    async def select_and_check_requirements(self, request: IntentRequest) -> CheckedSelection:
        """`select_provider`, then `check_requirements` for the provider chosen, as one
        activity (patch `lookup-one-activity`): the customer's verifications are read in
        the selection's session, before the provider is known (all of them: a few rows)."""
        selection, records = await self._select(request, with_records=True)
        checks = RequirementChecks.of(request, selection)
        return CheckedSelection(
            selection=selection,
            checks=_checked(checks, records.get(selection.provider_code, {})),
        )

    async def _select(
        self, request: IntentRequest, *, with_records: bool
    ) -> tuple[ProviderSelection, dict[str, dict[str, VerificationRecord]]]:
        """The provider selected and, `with_records`, the customer's verifications by
        provider code and requirement code (else none)."""
        records: dict[str, dict[str, VerificationRecord]] = {}
        # One session, two statements: the accounts, and the project's routing read
        # whole (its accounts with their health, its strategy: ramp/routing/candidates.py).
        async with self._db() as session:
            source, destination = await _accounts(session, request)
            route = await project_route(session, request.project_id)
            providers = list({a.provider.code: a.provider for a in route.accounts}.values())
            src = account_facts(source)
            dest = account_facts(destination)
            eligible, rejected = eligible_providers(providers, src, dest)
            # DOWN accounts out, the rest in selection order (activities/routing.py).
            routed = await route_payment(session, request, route, eligible, rejected, (src, dest))
            if with_records:
                for code, requirement, at, expires in await _verifications(
                    session, request.customer_id
                ):
                    records.setdefault(code, {})[requirement] = VerificationRecord(at, expires)
        # BEST_PRICE asks the providers' quotes: outside the session.
        routed = await rank_by_price(
            self._db,
            request,
            route,
            routed,
            (src, dest),
            connectors=self._connectors,
            secret_box=self._secret_box,
        )
        down = routed.any_down
        # The providers of the ranked accounts, in their order (one entry each).
        eligible = list({a.provider.code: a.provider for a in routed.ranked}.values())
        if not eligible:
            raise application_error(
                InvalidInput(
                    IntentError.NO_ELIGIBLE_PROVIDER,
                    "no provider can handle the requested external accounts"
                    + (" now: every eligible provider is DOWN" if down else ""),
                    {
                        "providers": [
                            {
                                "providerId": p.id,
                                "providerCode": p.code,
                                "reasons": rejected[p.code],
                            }
                            for p in providers
                        ],
                        "remedy": "try again later, or enable more providers for the project"
                        if down
                        else "enable more providers for the project",
                    },
                )
            )
        chosen = _preferred(routed.preferred_id, eligible, src, dest, rejected) or eligible[0]
        # Its first account as ranked: with `providerId`, the provider's accounts by priority.
        account = next(a for a in routed.ranked if a.provider.code == chosen.code)
        corridor = matching_corridor(chosen, src, dest)
        assert corridor is not None  # eligible means a corridor matched
        currency = currency_by_code(source.currency_code)
        assert currency is not None
        try:
            check_amount(request.amount, currency, corridor.limits[currency.code], chosen.id)
        except AmountProblem as problem:
            raise application_error(
                InvalidInput(IntentError.AMOUNT_VALIDATION_ERROR, problem.message, problem.details)
            ) from None
        selection = ProviderSelection(
            provider_id=chosen.id,
            provider_code=chosen.code,
            provider_name=chosen.name,
            provider_account_id=account.account_id,
            movement_type=corridor.type,
            source_currency=source.currency_code,
            destination_currency=destination.currency_code,
            # Production providers are real: their calls go through a connector.
            connector=chosen.environment == "production",
            call_mode=self._connectors.for_provider(chosen.code).call_mode.value,
            poll_first_seconds=self._poll.first,
            poll_max_seconds=self._poll.maximum,
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
        return selection, records

    @activity.defn
    async def check_requirements(self, request: RequirementChecks) -> CheckResults:
        """Runs each requirement's check against what the customer has on record."""
        # The three columns the checks read, not ORM objects: this runs in every intent.
        async with self._db() as session:
            rows = (
                await session.exec(
                    select(
                        SatisfiedRequirement.requirement_code,
                        SatisfiedRequirement.satisfied_at,
                        SatisfiedRequirement.expires_at,
                    ).where(
                        SatisfiedRequirement.customer_id == request.customer_id,
                        SatisfiedRequirement.provider_code == request.provider_code,
                    )
                )
            ).all()
        return _checked(
            request, {code: VerificationRecord(at, expires) for code, at, expires in rows}
        )

    @activity.defn
    async def create_transaction(self, request: TransactionRequest) -> ProviderTransaction:
        """Places the order with an in-process provider (the sandbox's mocks, `LOCAL`
        connectors); returns its reference, deposit instructions and receipt."""
        # The accounts with the partner fee (for the receipt): one statement.
        async with self._db() as session:
            reads = await order_reads(session, [request.src_account_id, request.dest_account_id])
        # Intents keep their accounts: external accounts are never deleted.
        source = reads.accounts[request.src_account_id]
        destination = reads.accounts[request.dest_account_id]
        partner_bps = reads.partner_fee_bps
        order = TransactionOrder(
            transaction_id=request.transaction_id,
            movement_type=request.movement_type,
            amount=request.amount,
            source=account_details(source),
            destination=account_details(destination),
        )
        connector = self._connectors.for_provider(request.provider_code)
        ctx = ProviderContext.without_credentials(request.provider_code)
        # An in-process provider knows our customers by our ids (docs/providers.md).
        customer = ProviderCustomerRef(provider_customer_id=request.customer_id)
        try:
            created = await connector.create_transfer(ctx, customer, order)
        except ProviderError as error:
            raise temporal_error(error, activity.info().attempt) from None
        # The price as quoted now, recorded on the transaction (ramp/quotes/receipt.py).
        receipt = await order_receipt(ConnectorQuoter(connector, ctx), order, partner_bps)
        return ProviderTransaction(
            provider_reference=created.provider_reference,
            context=created.context,
            receipt=receipt,
        )

    @activity.defn
    async def cancel_transaction(self, cancellation: TransactionCancellation) -> None:
        """Voids the order of an intent whose deposit never came (expiry, the customer's
        cancel); `ORDER_NOT_CANCELLABLE` when the provider holds the deposit."""
        connector = self._connectors.for_provider(cancellation.provider_code)
        ctx = ProviderContext.without_credentials(cancellation.provider_code)
        try:
            await connector.cancel_transfer(ctx, cancellation.provider_reference)
        except NotSupported as error:
            raise application_error(
                ProviderFailed(ProviderRefusal.ORDER_NOT_CANCELLABLE, str(error))
            ) from None
        except ProviderError as error:
            raise temporal_error(error, activity.info().attempt) from None

    @activity.defn
    async def record_intent(self, change: IntentChange) -> None:
        """Writes the workflow's state to the projection and its webhook events to the
        outbox, in one database transaction, then starts their deliveries.

        A write older than the stored revision is skipped, so a late retry can never
        overwrite newer state; its events are found stored and are started again, which
        starts nothing twice. A write of the stored revision is applied: it is the same
        state, except when an `open` update was lost after writing (a server restart)
        and the workflow opened the intent again; the workflow's state must win.
        """
        state = change.state
        rows = project(state)
        async with self._writer, self._db() as session:
            await begin_write(session)
            row = (
                await session.exec(
                    select(IntentRow.revision, IntentRow.status)
                    .where(IntentRow.id == state.id)
                    .with_for_update()
                )
            ).first()
            stored = None if row is None else row[0]
            ended = state.status in TERMINAL_INTENT_STATUSES and (
                row is None or IntentStatus(row[1]) not in TERMINAL_INTENT_STATUSES
            )
            if stored is None or stored <= state.revision:
                await upsert(session, [rows.intent], ["id"])
                await upsert(session, rows.steps, ["id"])
                if state.provider_moves:
                    # A failover rebuilt the plan: the old provider's other steps go.
                    await session.exec(
                        delete(ComplianceStepRow).where(
                            col(ComplianceStepRow.intent_id) == state.id,
                            col(ComplianceStepRow.id).not_in([s.id for s in rows.steps]),
                        )
                    )
                # Another intent may have re-verified since: the latest verification wins.
                await upsert(
                    session,
                    rows.verifications,
                    ["customer_id", "provider_code", "requirement_code"],
                    newer="satisfied_at",
                )
                if rows.transaction is not None:
                    await upsert(session, [rows.transaction], ["id"])
                    await upsert(session, rows.events, ["id"])
            deliveries = await self._outbox.enqueue(session, change.events)
            await session.commit()
        if ended:
            metrics.INTENTS_ENDED.labels(state.status.value, state.provider.provider_code).inc()
        await self._outbox.dispatch(deliveries)


async def _accounts(
    session: AsyncSession, request: IntentRequest
) -> tuple[ExternalAccount, ExternalAccount]:
    found = await accounts_by_id(
        session, [request.src_account_id, request.dest_account_id], owners=request.customer_id
    )
    missing = [
        {"pointer": pointer, "reason": "no external account of this customer has this id"}
        for pointer, account_id in (
            ("/srcExternalAccountId", request.src_account_id),
            ("/destExternalAccountId", request.dest_account_id),
        )
        if account_id not in found
    ]
    if missing:
        raise application_error(
            InvalidInput(
                IntentError.EXTERNAL_ACCOUNT_NOT_FOUND,
                "external account not found",
                {"fields": missing},
            )
        )
    return found[request.src_account_id], found[request.dest_account_id]


async def _verifications(
    session: AsyncSession, customer_id: str
) -> Sequence[tuple[str, str, datetime, datetime | None]]:
    """The customer's verifications with every provider: the columns the checks read."""
    return (
        await session.exec(
            select(
                SatisfiedRequirement.provider_code,
                SatisfiedRequirement.requirement_code,
                SatisfiedRequirement.satisfied_at,
                SatisfiedRequirement.expires_at,
            ).where(SatisfiedRequirement.customer_id == customer_id)
        )
    ).all()


def _checked(request: RequirementChecks, records: dict[str, VerificationRecord]) -> CheckResults:
    """Each requirement of `request` checked against the customer's `records` with its
    provider (by requirement code)."""
    now = utcnow()
    results = []
    for code in request.codes:
        reason = evaluate(
            CheckContext(
                customer_id=request.customer_id,
                provider_code=request.provider_code,
                requirement_code=code,
                amount=request.amount,
                currency_code=request.currency_code,
                records=records,
                now=now,
            )
        )
        results.append(CheckResult(code=code, satisfied=reason is None, reason=reason))
    return CheckResults(results=results)


def _preferred(
    provider_id: str | None,
    eligible: Sequence[Provider],
    src: AccountFacts,
    dest: AccountFacts,
    rejected: dict[str, list[str]],
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
        details["reasons"] = (
            rejected.get(known.code)
            or ineligibility_reasons(known, src, dest)
            or ["provider is not enabled for this project"]
        )
    raise application_error(
        InvalidInput(
            IntentError.PROVIDER_NOT_ELIGIBLE,
            f"preferred provider '{provider_id}' is not a valid candidate for this payment path",
            details,
        )
    )
