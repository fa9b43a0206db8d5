"""Intents as the API shows them: the projection's rows of an intent (its steps, its
transaction) with its two external accounts. Read here, for one intent or a page.

One intent is read in one statement (its rows joined): `GET /v1/intent/{id}`, the
call clients make most, costs one round trip to the database and needs no snapshot
(a single SELECT reads one). A page is two: its intents joined to their accounts and
transactions, then their steps. Both read Core rows, not ORM entities (ramp/db/rows.py:
the ORM's loading was the largest share of the read's CPU).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from sqlalchemy import ColumnElement, Dialect, Row, bindparam, select
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.db import keyset
from ramp.db.keyset import Page, PageRequest
from ramp.db.rows import ModelColumns, slices
from ramp.db.tables import (
    ComplianceStepRow,
    Customer,
    ExternalAccount,
    IntentRow,
    TransactionRow,
)
from ramp.errors import NotFound
from ramp.external_accounts.lookup import accounts_by_id


@dataclass(frozen=True)
class IntentView:
    """An intent as its projection rows, with its two external accounts."""

    intent: IntentRow
    steps: Sequence[ComplianceStepRow]
    transaction: TransactionRow | None
    source: ExternalAccount
    destination: ExternalAccount


# Each table's columns, in the order of the statement below; built once, with the
# statement: making a statement and its cache key costs more than running it (about 1 ms
# of CPU per read when built per call).
_INTENT = ModelColumns(IntentRow)
_SOURCE = ModelColumns(ExternalAccount, "source")
_DESTINATION = ModelColumns(ExternalAccount, "destination")
_TRANSACTION = ModelColumns(TransactionRow)
_STEP = ModelColumns(ComplianceStepRow)
_AT_INTENT, _AT_SOURCE, _AT_DESTINATION, _AT_TRANSACTION, _AT_STEP = slices(
    _INTENT, _SOURCE, _DESTINATION, _TRANSACTION, _STEP
)
# How an intent's rows join: its two accounts (its customer's only), its transaction and
# its steps.
_ITS_SOURCE = (_SOURCE.table.c.id == _INTENT.table.c.src_account_id) & (
    _SOURCE.table.c.customer_id == _INTENT.table.c.customer_id
)
_ITS_DESTINATION = (_DESTINATION.table.c.id == _INTENT.table.c.dest_account_id) & (
    _DESTINATION.table.c.customer_id == _INTENT.table.c.customer_id
)
_ITS_TRANSACTION = _TRANSACTION.table.c.intent_id == _INTENT.table.c.id
_ITS_STEPS = _STEP.table.c.intent_id == _INTENT.table.c.id
# An intent with its accounts and its transaction, if any.
_HEADS = (
    _INTENT.table.join(_SOURCE.table, _ITS_SOURCE)
    .join(_DESTINATION.table, _ITS_DESTINATION)
    .outerjoin(_TRANSACTION.table, _ITS_TRANSACTION)
)
_HEAD_COLUMNS = (*_INTENT.columns, *_SOURCE.columns, *_DESTINATION.columns, *_TRANSACTION.columns)
_ONE_VIEW = (
    select(*_HEAD_COLUMNS, *_STEP.columns)
    .select_from(_HEADS.outerjoin(_STEP.table, _ITS_STEPS))
    .where(
        _INTENT.table.c.id == bindparam("intent_id"),
        _INTENT.table.c.customer_id == bindparam("customer_id"),
    )
)
# The same read with its caller's customer row, for `GET /v1/intent/{id}`: the customer
# token's check and the read in one round trip. The customer's row comes whether or not
# the intent is found (outer joins all the way), so that an unknown customer is told
# apart from an intent it does not have.
_CUSTOMER = ModelColumns(Customer)
*_, _AT_CUSTOMER = slices(_INTENT, _SOURCE, _DESTINATION, _TRANSACTION, _STEP, _CUSTOMER)
_WITH_CUSTOMER = (
    select(*_HEAD_COLUMNS, *_STEP.columns, *_CUSTOMER.columns)
    .select_from(
        _CUSTOMER.table.outerjoin(
            _INTENT.table,
            (_INTENT.table.c.customer_id == _CUSTOMER.table.c.id)
            & (_INTENT.table.c.id == bindparam("intent_id")),
        )
        .outerjoin(_SOURCE.table, _ITS_SOURCE)
        .outerjoin(_DESTINATION.table, _ITS_DESTINATION)
        .outerjoin(_TRANSACTION.table, _ITS_TRANSACTION)
        .outerjoin(_STEP.table, _ITS_STEPS)
    )
    .where(_CUSTOMER.table.c.id == bindparam("customer_id"))
)
_STEPS_OF = select(*_STEP.columns).where(
    _STEP.table.c.intent_id.in_(bindparam("intent_ids", expanding=True))
)
# The intent table's columns, for the conditions of a page (`page_of_views`).
INTENT = _INTENT.table.c


async def read_view(connection: AsyncConnection, customer_id: str, intent_id: str) -> IntentView:
    """One of the customer's intents (NotFound for another's: it does not exist, as far
    as this caller knows), in one statement: a row per compliance step (one without
    steps), each with the intent, its transaction (or none) and its accounts. Read as
    Core rows; the intent, its transaction and its accounts are built from the first
    row only (each account decrypted once)."""
    params = {"customer_id": customer_id, "intent_id": intent_id}
    rows = (await connection.execute(_ONE_VIEW, params)).all()
    if not rows:
        raise NotFound("intent")
    return _view(rows[0], _steps(rows, connection.dialect), connection.dialect)


async def read_view_with_customer(
    connection: AsyncConnection, customer_id: str, intent_id: str
) -> tuple[Customer | None, IntentView | None]:
    """The customer row of `customer_id` (None if there is none) and, if it has one, its
    intent `intent_id` (None if not), in one statement: as `read_view`, for a caller
    that has yet to check the customer (its token's claims, ramp/authentication.py)."""
    params = {"customer_id": customer_id, "intent_id": intent_id}
    rows = (await connection.execute(_WITH_CUSTOMER, params)).all()
    if not rows:
        return None, None
    dialect, first = connection.dialect, rows[0]
    customer = _CUSTOMER.load(first[_AT_CUSTOMER], dialect)
    heads = ((_INTENT, _AT_INTENT), (_SOURCE, _AT_SOURCE), (_DESTINATION, _AT_DESTINATION))
    if not all(part.found(first[at]) for part, at in heads):
        return customer, None  # as the inner joins of `read_view` would find nothing
    return customer, _view(first, _steps(rows, dialect), dialect)


async def page_of_views(
    connection: AsyncConnection, conditions: Sequence[ColumnElement[bool]], page: PageRequest
) -> Page[IntentView]:
    """A page of the intents that match `conditions` (over `INTENT`'s columns), newest
    first, in two statements whatever its size: the intents joined to their accounts
    and transactions (a row each), then all their steps. Call it in a read snapshot."""
    heads = select(*_HEAD_COLUMNS).select_from(_HEADS).where(*conditions)
    query = keyset.newest_first(heads, INTENT.created_at, INTENT.id, page)
    rows = (await connection.execute(query)).all()
    views = [_view(row, [], connection.dialect) for row in rows[: page.limit]]
    if views:
        ids = [view.intent.id for view in views]
        steps: dict[str, list[ComplianceStepRow]] = {}
        for row in await connection.execute(_STEPS_OF, {"intent_ids": ids}):
            step = _STEP.load(row, connection.dialect)
            steps.setdefault(step.intent_id, []).append(step)
        views = [replace(view, steps=steps.get(view.intent.id, [])) for view in views]
    last = views[-1].intent if len(rows) > page.limit else None
    return Page(views, (last.created_at, last.id) if last is not None else None)


def _steps(rows: Sequence[Row[Any]], dialect: Dialect) -> list[ComplianceStepRow]:
    """The compliance steps of an intent's rows (a row per step; none in its one row
    without steps)."""
    steps = (_STEP.load_found(row[_AT_STEP], dialect) for row in rows)
    return [step for step in steps if step is not None]


def _view(row: Row[Any], steps: Sequence[ComplianceStepRow], dialect: Dialect) -> IntentView:
    """The view of a row of `_HEAD_COLUMNS` (and more), with `steps`."""
    return IntentView(
        _INTENT.load(row[_AT_INTENT], dialect),
        steps,
        _TRANSACTION.load_found(row[_AT_TRANSACTION], dialect),
        _SOURCE.load(row[_AT_SOURCE], dialect),
        _DESTINATION.load(row[_AT_DESTINATION], dialect),
    )


def view_of(
    intent: IntentRow,
    steps: Sequence[ComplianceStepRow],
    transaction: TransactionRow | None,
    accounts: Mapping[str, ExternalAccount],
) -> IntentView:
    return IntentView(
        intent,
        steps,
        transaction,
        accounts[intent.src_account_id],
        accounts[intent.dest_account_id],
    )


async def owned_accounts(
    session: AsyncSession, customer_ids: str | Iterable[str], ids: Iterable[str]
) -> dict[str, ExternalAccount]:
    return await accounts_by_id(session, ids, owners=customer_ids)
