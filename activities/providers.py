"""Activities that call providers through their connectors, under the same names for
every connector: regular activities on the providers' task queue for a network
provider (`REMOTE`: they talk to the outside world; a deployment can rate-limit them and
run them where egress to providers is allowed), local activities in the intent worker
for an in-process one (`LOCAL`: the sandbox's mocks). The workflow picks which from the
connector's declaration (workflows/provider_calls.py).

Each call opens the provider account into a `ProviderContext` here, so decrypted
credentials exist only in this process, never in a workflow's history. The connector
raises provider-neutral errors; activities/provider_errors.py turns them into Temporal's.
`CredentialsRejected` marks the account UNHEALTHY (out of routing, the owner sees why)
before activities/provider_errors.py maps it like every other provider error. Every
attempt also counts towards the account's health (ramp/routing/health.py): a failure of
the provider's own (unavailable, out of service, past the activity's timeout) or an
answer (a result, a refusal). A failure of ours inside a call (the database, a bug) is
neither: not counted, and typed INTERNAL_FAILURE for the workflow (`internal_failures`).
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel import col, select, update
from sqlmodel.ext.asyncio.session import AsyncSession
from temporalio import activity
from temporalio.exceptions import ApplicationError

from activities.provider_errors import internal_failures, temporal_error
from ramp.adapters.capabilities import SigningConnector
from ramp.adapters.contract import (
    CallMode,
    Connector,
    CredentialsRejected,
    CustomerProfile,
    ProviderAccountRef,
    ProviderContext,
    ProviderCustomerRef,
    ProviderError,
    ProviderRefused,
    ProviderUnavailable,
    TransactionOrder,
)
from ramp.adapters.registry import Connectors
from ramp.adapters.sandbox.behaviour import Behaviour
from ramp.catalog import MovementType
from ramp.db.tables import Customer, ProviderCustomer
from ramp.db.upsert import insert_missing, json_with_key
from ramp.errors import ProviderCallError
from ramp.external_accounts.lookup import account_details
from ramp.intents.models import ProviderTransaction
from ramp.intents.provider_calls import (
    ComplianceQuery,
    ComplianceStanding,
    Handoff,
    TransferOrder,
    TransferProgress,
    TransferQuery,
    TransferVoid,
    VoidResult,
)
from ramp.observability import metrics
from ramp.provider_accounts.service import mark_unhealthy, provider_context
from ramp.provider_signing.service import stored_authorization
from ramp.quotes.accounts import ConnectorQuoter
from ramp.quotes.receipt import order_receipt
from ramp.routing import behaviour
from ramp.routing.health import record_call
from ramp.routing.order_reads import order_reads
from ramp.security.encryption import SecretBox

log = logging.getLogger(__name__)


class ProviderCall:
    """One call's series (ramp/observability/metrics.py): its outcome and latency, by
    provider and operation (the activity's name without its `provider_` prefix)."""

    def __init__(self, provider: str, activity_type: str) -> None:
        self.provider = provider
        self.operation = activity_type.removeprefix("provider_")
        self.started = time.perf_counter()

    def ended(self, outcome: str) -> None:
        took = time.perf_counter() - self.started
        metrics.PROVIDER_CALLS.labels(self.provider, self.operation, outcome).inc()
        metrics.PROVIDER_CALL_DURATION.labels(self.provider, self.operation).observe(took)
        # With the request id and intent of the work (ramp/observability/logs.py).
        log.debug(
            "provider %s %s: %s in %.0f ms", self.provider, self.operation, outcome, took * 1000
        )


# A payout account registered at the provider, remembered in the customer's handles.
_ACCOUNT_HANDLE = "externalAccount:{}"


class ProviderActivities:
    def __init__(
        self,
        db: async_sessionmaker[AsyncSession],
        secret_box: SecretBox,
        connectors: Connectors | None = None,
    ) -> None:
        self._db = db
        self._secret_box = secret_box
        self._connectors = connectors or Connectors()

    @activity.defn(name="provider_compliance")
    async def provider_compliance(self, query: ComplianceQuery) -> ComplianceStanding:
        with internal_failures():
            async with self._calling(query.provider_account_id, query.provider_code) as (
                connector,
                ctx,
            ):
                customer = await self._customer(connector, ctx, query.customer_id)
                handoffs = []
                for requirement in query.requirements:
                    handoff = await connector.compliance(ctx, customer, requirement)
                    handoffs.append(
                        Handoff(
                            requirement=handoff.requirement,
                            mode=handoff.mode.value,
                            url=handoff.url,
                            embeddable=handoff.embeddable,
                            outcome=handoff.outcome,
                            reason=handoff.reason,
                        )
                    )
            return ComplianceStanding(
                provider_customer_id=customer.provider_customer_id, handoffs=handoffs
            )

    @activity.defn(name="provider_create_transfer")
    async def provider_create_transfer(self, order: TransferOrder) -> ProviderTransaction:
        with internal_failures():
            request = order.request
            # One statement: the accounts, the partner fee (for the receipt) and, for a
            # sandbox mock, how its project set it to behave (ramp/routing/order_reads.py).
            local = self._local(request.provider_code)
            async with self._db() as session:
                reads = await order_reads(
                    session,
                    [request.src_account_id, request.dest_account_id],
                    order.provider_account_id if local is not None else None,
                )
            source = account_details(reads.accounts[request.src_account_id])
            destination = account_details(reads.accounts[request.dest_account_id])
            partner_bps = reads.partner_fee_bps
            placed = TransactionOrder(
                transaction_id=request.transaction_id,
                movement_type=request.movement_type,
                amount=request.amount,
                source=source,
                destination=destination,
            )
            async with self._calling(
                order.provider_account_id, request.provider_code, reads.behaviour
            ) as (connector, ctx):
                customer = await self._customer(connector, ctx, request.customer_id)
                if isinstance(connector, SigningConnector):
                    # The customer's signature of the order, where the provider asks for one.
                    async with self._db() as session:
                        signed = await stored_authorization(
                            session, request.intent_id, self._secret_box
                        )
                    if signed is not None:
                        placed = placed.model_copy(update={"authorization": signed})
                payout: ProviderAccountRef | None = None
                if request.movement_type is MovementType.OFFRAMP:
                    payout = await self._payout_account(
                        connector, ctx, customer, request.customer_id, request.dest_account_id,
                        destination,
                    )  # fmt: skip
                transfer = await connector.create_transfer(ctx, customer, placed, payout)
            # The price as the provider quotes it now, recorded on the transaction
            # (ramp/quotes/receipt.py; None where the provider has no quote).
            receipt = await order_receipt(ConnectorQuoter(connector, ctx), placed, partner_bps)
            return ProviderTransaction(
                provider_reference=transfer.provider_reference,
                context=transfer.context,
                receipt=receipt,
            )

    @activity.defn(name="provider_get_transfer")
    async def provider_get_transfer(self, query: TransferQuery) -> TransferProgress:
        with internal_failures():
            async with self._calling(query.provider_account_id, query.provider_code) as (
                connector,
                ctx,
            ):
                status = await connector.get_transfer(ctx, query.provider_reference)
            return TransferProgress(
                provider_state=status.provider_state,
                events=list(status.events),
                reason=status.reason,
            )

    @activity.defn(name="provider_cancel_transfer")
    async def provider_cancel_transfer(self, void: TransferVoid) -> VoidResult:
        with internal_failures():
            try:
                async with self._calling(void.provider_account_id, void.provider_code) as (
                    connector,
                    ctx,
                ):
                    await connector.cancel_transfer(ctx, void.provider_reference)
            except ApplicationError as error:
                if error.type == ProviderCallError.PROVIDER_NOT_SUPPORTED:
                    return VoidResult(voided=False, reason=error.message)
                raise
            return VoidResult(voided=True)

    # --- helpers ------------------------------------------------------------------------

    def _local(self, provider_code: str | None) -> Connector | None:
        """The in-process connector (`LOCAL`) of `provider_code`, if it has one."""
        local = self._connectors.get(provider_code) if provider_code else None
        return local if local is not None and local.call_mode is CallMode.LOCAL else None

    @asynccontextmanager
    async def _calling(
        self,
        provider_account_id: str,
        provider_code: str | None = None,
        mode: Behaviour | None = None,
    ) -> AsyncIterator[tuple[Connector, ProviderContext]]:
        """The account's connector and context for one call, and the one translation of
        provider-neutral errors into Temporal's. An in-process connector (`LOCAL`) has no
        credentials to open: its context is made without reading the account; `mode` is
        its sandbox behaviour when the caller read it already."""
        local = self._local(provider_code)
        if local is not None:
            # The sandbox's mocks behave as the project set them (UP, DOWN, ...).
            connector: Connector = (
                await behaviour.as_set(self._db, local, provider_account_id)
                if mode is None
                else behaviour.behaving(local, mode)
            )
            ctx = ProviderContext.without_credentials(provider_account_id)
            sealed = None
        else:
            async with self._db() as session:
                account, connector, ctx = await provider_context(
                    session,
                    provider_account_id=provider_account_id,
                    secret_box=self._secret_box,
                    connectors=self._connectors,
                )
            sealed = account.credentials_encrypted
        call = ProviderCall(provider_code or connector.code, activity.info().activity_type)
        try:
            yield connector, ctx
        except CredentialsRejected as error:
            call.ended("credentials_rejected")
            log.warning("provider account %s: credentials rejected", provider_account_id)
            async with self._db() as session:
                await mark_unhealthy(
                    session,
                    provider_account_id=provider_account_id,
                    reason=str(error),
                    rejected_credentials=sealed,
                )
            raise temporal_error(error, activity.info().attempt) from None
        except ProviderUnavailable as error:
            call.ended("failed")
            await self._count(provider_account_id, str(error) or type(error).__name__)
            raise temporal_error(error, activity.info().attempt) from None
        except ProviderRefused as error:
            call.ended("refused")
            await self._count(provider_account_id, None)  # an answer: the provider is up
            raise temporal_error(error, activity.info().attempt) from None
        except ProviderError as error:
            call.ended("failed")
            await self._count(provider_account_id, None)  # an answer: the provider is up
            raise temporal_error(error, activity.info().attempt) from None
        except asyncio.CancelledError:
            call.ended("failed")
            # Past the activity's timeout (or the intent moved on): counted as a timeout.
            await asyncio.shield(self._count(provider_account_id, "no answer in time"))
            raise
        except Exception:
            # Ours (the database, a bug): not the provider's, so not counted against the
            # account; `internal_failures` types it for the workflow.
            call.ended("internal")
            raise
        except BaseException:
            call.ended("failed")
            raise
        call.ended("ok")
        await self._count(provider_account_id, None)

    async def _count(self, provider_account_id: str, failure: str | None) -> None:
        """One call towards the account's health; never fails the call it counts."""
        try:
            await record_call(self._db, provider_account_id, failure)
        except Exception:
            log.exception("provider account %s: health not recorded", provider_account_id)

    async def _customer(
        self, connector: Connector, ctx: ProviderContext, customer_id: str
    ) -> ProviderCustomerRef:
        """The provider's customer for ours: remembered per provider account, created
        (idempotently, by the connector) the first time. An in-process provider knows
        our customers by our ids (docs/providers.md): nothing to remember."""
        if connector.call_mode is CallMode.LOCAL:
            return ProviderCustomerRef(provider_customer_id=customer_id)
        async with self._db() as session:
            known = await _known_customer(session, ctx.provider_account_id, customer_id)
            customer = await session.get(Customer, customer_id)
        if known is not None:
            return ProviderCustomerRef(
                provider_customer_id=known.provider_customer_id, handles=known.handles
            )
        if customer is None:
            raise ProviderRefused("the customer no longer exists")
        ref = await connector.ensure_customer(ctx, customer_profile(customer))
        async with self._db() as session:
            await insert_missing(
                session,
                [
                    ProviderCustomer(
                        id=str(uuid.uuid4()),
                        provider_account_id=ctx.provider_account_id,
                        customer_id=customer_id,
                        provider_customer_id=ref.provider_customer_id,
                        handles=dict(ref.handles),
                    )
                ],
                ["provider_account_id", "customer_id"],
            )
            await session.commit()
            stored = await _known_customer(session, ctx.provider_account_id, customer_id)
        assert stored is not None
        return ProviderCustomerRef(
            provider_customer_id=stored.provider_customer_id, handles=stored.handles
        )

    async def _payout_account(
        self,
        connector: Connector,
        ctx: ProviderContext,
        customer: ProviderCustomerRef,
        customer_id: str,
        account_id: str,
        details: Any,
    ) -> ProviderAccountRef:
        handle = _ACCOUNT_HANDLE.format(account_id)
        known = customer.handles.get(handle)
        if known:
            return ProviderAccountRef(provider_account_ref=known)
        registered = await connector.register_account(ctx, customer, details)
        async with self._db() as session:
            # One statement: payouts of one customer to two new accounts at once keep both.
            dialect = (await session.connection()).dialect.name
            await session.exec(
                update(ProviderCustomer)
                .where(
                    col(ProviderCustomer.provider_account_id) == ctx.provider_account_id,
                    col(ProviderCustomer.customer_id) == customer_id,
                )
                .values(
                    handles=json_with_key(
                        col(ProviderCustomer.handles),
                        dialect,
                        handle,
                        registered.provider_account_ref,
                    )
                )
            )
            await session.commit()
        return registered


async def _known_customer(
    session: AsyncSession, provider_account_id: str, customer_id: str
) -> ProviderCustomer | None:
    return (
        await session.exec(
            select(ProviderCustomer).where(
                ProviderCustomer.provider_account_id == provider_account_id,
                ProviderCustomer.customer_id == customer_id,
            )
        )
    ).first()


def customer_profile(customer: Customer) -> CustomerProfile:
    """What a provider needs to open the customer, from the metadata the project gave
    (`email`, and `name` or `fullName` or `firstName` + `lastName`)."""
    metadata = customer.customer_metadata or {}
    email = metadata.get("email")
    if not isinstance(email, str) or "@" not in email:
        raise ProviderRefused(
            "the provider needs the customer's e-mail: create the customer with "
            "metadata.email (and metadata.name)"
        )
    name = metadata.get("name") or metadata.get("fullName")
    if not isinstance(name, str) or not name.strip():
        parts = [metadata.get("firstName"), metadata.get("lastName")]
        name = " ".join(p for p in parts if isinstance(p, str) and p.strip()) or email
    kind = "business" if metadata.get("type") == "business" else "individual"
    return CustomerProfile(customer_id=customer.id, email=email, full_name=name, type=kind)
