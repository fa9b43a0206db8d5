"""Newest-first keyset pages over (created_at, id): what a list use case takes and gives.

The API turns its `limit` and opaque `cursor` into a `PageRequest` and the `after` of a
`Page` into the next page's link (api/pagination.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Generic, TypeVar

from sqlalchemy import and_, or_
from sqlmodel.sql.expression import SelectOfScalar

Row = TypeVar("Row")
Item = TypeVar("Item")


@dataclass(frozen=True)
class PageRequest:
    limit: int
    # The (created_at, id) of the last row of the previous page, if any.
    after: tuple[datetime, str] | None = None


@dataclass(frozen=True)
class Page(Generic[Item]):
    items: list[Item]
    # Where the next page starts; None on the last page.
    after: tuple[datetime, str] | None


def newest_first(
    query: SelectOfScalar[Row], created_at: Any, id_: Any, page: PageRequest
) -> SelectOfScalar[Row]:
    """`query` ordered newest first, after `page.after`, one row more than a page (that
    row tells whether a next page exists)."""
    if page.after is not None:
        moment, last_id = page.after
        query = query.where(or_(created_at < moment, and_(created_at == moment, id_ < last_id)))
    return query.order_by(created_at.desc(), id_.desc()).limit(page.limit + 1)
