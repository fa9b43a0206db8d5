"""What the dashboard shows of a project's intents: a filtered list (the intent search
of ramp/intents/search.py), and one intent with its plan steps, transaction, provider
events and webhook deliveries. Read only: the intents' workflows own the state.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import Any

from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.catalog import providers_for
from ramp.db.keyset import PageRequest
from ramp.db.tables import (
    ComplianceStepRow,
    Customer,
    IntentRow,
    TransactionEventRow,
    TransactionRow,
    WebhookDelivery,
    WebhookEventRow,
)
from ramp.errors import InvalidInput, NotFound
from ramp.intents.events import WebhookEventType
from ramp.intents.search import IntentFilters, search_intents
from ramp.intents.states import IntentStatus
from ramp.organizations.access import Principal, organization_project

MAX_LISTED = 100


@dataclass(frozen=True)
class DashboardFilters:
    """The list's filters as the page and the admin API take them: a provider by code."""

    statuses: tuple[IntentStatus, ...] = ()
    customer_id: str | None = None
    provider_code: str | None = None
    created_from: datetime | None = None
    created_to: datetime | None = None


def filters_from(params: Mapping[str, str]) -> DashboardFilters:
    """The filters of a query string: status, customerId, provider, from and to (dates,
    YYYY-MM-DD, UTC; `to` included)."""

    def day(name: str) -> date | None:
        value = (params.get(name) or "").strip()
        if not value:
            return None
        try:
            return date.fromisoformat(value)
        except ValueError:
            raise InvalidInput(
                "VALIDATION_ERROR",
                f"{name} must be a date (YYYY-MM-DD)",
                {"fields": [{"pointer": f"/{name}", "reason": "is not a date"}]},
            ) from None

    start, end = day("from"), day("to")
    status = (params.get("status") or "").strip()
    try:
        statuses = (IntentStatus(status),) if status else ()
    except ValueError:
        raise InvalidInput(
            "VALIDATION_ERROR",
            f"status must be one of {', '.join(s.value for s in IntentStatus)}",
            {"fields": [{"pointer": "/status", "reason": "is not an intent status"}]},
        ) from None
    return DashboardFilters(
        statuses=statuses,
        customer_id=(params.get("customerId") or "").strip() or None,
        provider_code=(params.get("provider") or "").strip() or None,
        created_from=datetime.combine(start, datetime.min.time(), UTC) if start else None,
        created_to=datetime.combine(end, datetime.min.time(), UTC) + timedelta(days=1)
        if end
        else None,
    )


@dataclass(frozen=True)
class IntentDetail:
    intent: IntentRow
    steps: list[ComplianceStepRow]
    transaction: TransactionRow | None
    events: list[TransactionEventRow] = field(default_factory=list)
    deliveries: list[WebhookDelivery] = field(default_factory=list)
    # The id the project gave the customer (what its owner knows them by).
    customer_external_id: str | None = None


async def list_intents(
    db: async_sessionmaker[AsyncSession],
    principal: Principal,
    project_id: str,
    filters: DashboardFilters,
) -> list[IntentRow]:
    """The project's latest intents (newest first, at most 100) matching every filter,
    through the intent search the public API's list uses (ramp/intents/search.py)."""
    customer_id = filters.customer_id
    async with db() as session:
        project = await organization_project(session, principal, project_id)
        if customer_id is not None:
            # The owner knows a customer by the id the project gave it; the service's
            # own id is accepted too.
            known = await customer_by_external_id(session, project.id, customer_id)
            customer_id = known or customer_id
    provider_id = None
    if filters.provider_code:
        found = [
            p.id for p in providers_for(project.environment) if p.code == filters.provider_code
        ]
        if not found:
            return []
        provider_id = found[0]
    page = await search_intents(
        db,
        project.id,
        IntentFilters(
            statuses=filters.statuses,
            customer_id=customer_id,
            provider_id=provider_id,
            created_from=filters.created_from,
            created_to=filters.created_to,
        ),
        PageRequest(limit=MAX_LISTED, after=None),
    )
    return [view.intent for view in page.items]


async def intent_detail(
    session: AsyncSession, principal: Principal, project_id: str, intent_id: str
) -> IntentDetail:
    project = await organization_project(session, principal, project_id)
    intent = await session.get(IntentRow, intent_id)
    if intent is None or intent.project_id != project.id:
        raise NotFound("intent")
    steps = (
        await session.exec(
            select(ComplianceStepRow)
            .where(ComplianceStepRow.intent_id == intent.id)
            .order_by(col(ComplianceStepRow.position))
        )
    ).all()
    transaction = (
        await session.exec(select(TransactionRow).where(TransactionRow.intent_id == intent.id))
    ).first()
    events: list[TransactionEventRow] = []
    if transaction is not None:
        events = list(
            (
                await session.exec(
                    select(TransactionEventRow)
                    .where(TransactionEventRow.transaction_id == transaction.id)
                    .order_by(col(TransactionEventRow.received_at))
                )
            ).all()
        )
    deliveries = (
        await session.exec(
            select(WebhookDelivery)
            .where(WebhookDelivery.project_id == project.id, WebhookDelivery.intent_id == intent.id)
            .order_by(col(WebhookDelivery.created_at).desc())
            .limit(MAX_LISTED)
        )
    ).all()
    # Its id only: the customer's metadata (encrypted, maybe personal) stays unread.
    customers = await customer_external_ids(session, project.id, [intent.customer_id])
    return IntentDetail(
        intent,
        list(steps),
        transaction,
        events,
        list(deliveries),
        customers.get(intent.customer_id),
    )


async def customer_external_ids(
    session: AsyncSession, project_id: str, customer_ids: Iterable[str]
) -> dict[str, str]:
    """The id the project gave each of these customers, by the service's id."""
    wanted = set(customer_ids)
    if not wanted:
        return {}
    rows = (
        await session.exec(
            select(Customer.id, Customer.external_id).where(
                Customer.project_id == project_id, col(Customer.id).in_(wanted)
            )
        )
    ).all()
    return dict(rows)


async def customer_by_external_id(
    session: AsyncSession, project_id: str, external_id: str
) -> str | None:
    """The service's id of the project's customer `external_id`, if there is one."""
    return (
        await session.exec(
            select(Customer.id).where(
                Customer.project_id == project_id, Customer.external_id == external_id
            )
        )
    ).first()


@dataclass(frozen=True)
class UnmatchedMoney:
    """A DEPOSIT_UNMATCHED event as an operator reads it: on an intent, or on none."""

    event_id: str
    occurred_at: datetime
    # The event's `data`, as its webhook carries it (camelCase keys).
    data: dict[str, Any]
    # The whole event, exactly as stored and signed.
    body: str


async def unmatched_money(
    session: AsyncSession, principal: Principal, project_id: str
) -> list[UnmatchedMoney]:
    """The project's latest money it could not give to an intent (newest first, at most
    100), from the events store: what an operator refunds or settles by hand."""
    project = await organization_project(session, principal, project_id)
    rows = (
        await session.exec(
            select(WebhookEventRow)
            .where(
                WebhookEventRow.project_id == project.id,
                WebhookEventRow.event_type == WebhookEventType.DEPOSIT_UNMATCHED.value,
            )
            .order_by(col(WebhookEventRow.occurred_at).desc(), col(WebhookEventRow.id).desc())
            .limit(MAX_LISTED)
        )
    ).all()
    return [
        UnmatchedMoney(row.id, row.occurred_at, json.loads(row.body)["data"], row.body)
        for row in rows
    ]
