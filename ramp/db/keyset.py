"""Newest-first keyset pages over (created_at, id): what a list use case takes and gives.

The API turns its `limit` and opaque `cursor` into a `PageRequest` and the `after` of a
`Page` into the next page's link (api/pagination.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Generic, TypeVar

from sqlalchemy import Select, and_, or_

# A select of models (SQLModel's) or of columns (Core's).
Query = TypeVar("Query", bound=Select[*tuple[Any, ...]])
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


def newest_first(query: Query, created_at: Any, id_: Any, page: PageRequest) -> Query:
    """`query` ordered newest first, after `page.after`, one row more than a page (that
    row tells whether a next page exists)."""
    if page.after is not None:
        moment, last_id = page.after
        query = query.where(or_(created_at < moment, and_(created_at == moment, id_ < last_id)))
    return query.order_by(created_at.desc(), id_.desc()).limit(page.limit + 1)
