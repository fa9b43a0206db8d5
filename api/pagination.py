"""Newest-first keyset pagination: `limit`, an opaque `cursor`, the next page in `Link`."""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any, TypeVar
from urllib.parse import urlencode

from sqlalchemy import and_, or_
from sqlmodel.sql.expression import SelectOfScalar
from starlette.requests import Request

from api.errors import bad_request

DEFAULT_PAGE_SIZE = 20
MAX_PAGE_SIZE = 100

Row = TypeVar("Row")


def page_size(request: Request) -> int:
    raw = request.query_params.get("limit")
    if raw is None:
        return DEFAULT_PAGE_SIZE
    if not raw.isdigit() or not 1 <= int(raw) <= MAX_PAGE_SIZE:
        raise bad_request(
            "VALIDATION_ERROR",
            f"limit must be an integer from 1 to {MAX_PAGE_SIZE}",
            {"fields": [{"pointer": "/limit", "reason": f"must be 1 to {MAX_PAGE_SIZE}"}]},
        )
    return int(raw)


def newest_first(
    request: Request, query: SelectOfScalar[Row], created_at: Any, id_: Any
) -> SelectOfScalar[Row]:
    """`query` ordered newest first, from the request's cursor on, one row more than a
    page (that row tells whether a next page exists)."""
    cursor = _cursor(request)
    if cursor is not None:
        moment, last_id = cursor
        query = query.where(or_(created_at < moment, and_(created_at == moment, id_ < last_id)))
    return query.order_by(created_at.desc(), id_.desc()).limit(page_size(request) + 1)


def next_page_headers(
    request: Request,
    rows: Sequence[Row],
    key: Callable[[Row], tuple[datetime, str]],
    filters: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """The `Link` header to the next page, when `rows` (a page and one more row, as
    `newest_first` asks for) shows there is one; `filters` are carried over."""
    limit = page_size(request)
    if len(rows) <= limit:
        return {}
    created_at, last_id = key(rows[limit - 1])
    cursor = json.dumps([created_at.isoformat(), last_id]).encode()
    params = urlencode(
        {
            **(filters or {}),
            "limit": limit,
            "cursor": base64.urlsafe_b64encode(cursor).decode().rstrip("="),
        }
    )
    return {"Link": f'<{request.url.path}?{params}>; rel="next"'}


def _cursor(request: Request) -> tuple[datetime, str] | None:
    raw = request.query_params.get("cursor")
    if raw is None:
        return None
    try:
        created_at, last_id = json.loads(base64.urlsafe_b64decode(raw + "=" * (-len(raw) % 4)))
        moment = datetime.fromisoformat(created_at)
        if moment.tzinfo is None or not isinstance(last_id, str):
            raise ValueError("incomplete cursor")
    except (ValueError, TypeError, binascii.Error, UnicodeDecodeError):
        raise bad_request(
            "INVALID_CURSOR", "cursor is not one this API returned (use the Link header)"
        ) from None
    return moment, last_id
