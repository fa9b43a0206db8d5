"""Newest-first keyset pagination: `limit`, an opaque `cursor`, the next page in `Link`."""

from __future__ import annotations

import base64
import binascii
import json
import uuid
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, TypeVar
from urllib.parse import urlencode

from sqlmodel.sql.expression import SelectOfScalar
from starlette.requests import Request

from api.body import parse_json
from api.errors import ApiError, bad_request
from ramp.db import keyset
from ramp.db.keyset import PageRequest

DEFAULT_PAGE_SIZE = 20
MAX_PAGE_SIZE = 100
# A cursor we hand out is about 100 characters.
_MAX_CURSOR_CHARS = 300

Row = TypeVar("Row")


def page_size(request: Request) -> int:
    raw = request.query_params.get("limit")
    if raw is None:
        return DEFAULT_PAGE_SIZE
    # ASCII digits only (str.isdigit and int() also take "\uff11", fullwidth one), and
    # few of them: int() refuses over 4300 digits with a ValueError.
    digits = raw.isascii() and raw.isdigit() and len(raw) <= 3
    if not digits or not 1 <= int(raw) <= MAX_PAGE_SIZE:
        raise bad_request(
            "VALIDATION_ERROR",
            f"limit must be an integer from 1 to {MAX_PAGE_SIZE}",
            {"fields": [{"pointer": "/limit", "reason": f"must be 1 to {MAX_PAGE_SIZE}"}]},
        )
    return int(raw)


def page_request(request: Request) -> PageRequest:
    """The page the request's `limit` and `cursor` ask for (400 if either is invalid)."""
    after = _cursor(request)  # checked first, as it always was
    return PageRequest(limit=page_size(request), after=after)


def newest_first(
    request: Request, query: SelectOfScalar[Row], created_at: Any, id_: Any
) -> SelectOfScalar[Row]:
    """`query` ordered newest first, from the request's cursor on, one row more than a
    page (that row tells whether a next page exists)."""
    return keyset.newest_first(query, created_at, id_, page_request(request))


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
    return next_page_link(request, key(rows[limit - 1]), filters)


def next_page_link(
    request: Request, after: tuple[datetime, str] | None, filters: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The `Link` header to the page that starts after `after` (none if None)."""
    if after is None:
        return {}
    limit = page_size(request)
    created_at, last_id = after
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
        return _decoded_cursor(raw)
    except (ApiError, ValueError, TypeError, OverflowError, binascii.Error):
        raise bad_request(
            "INVALID_CURSOR", "cursor is not one this API returned (use the Link header)"
        ) from None


def _decoded_cursor(raw: str) -> tuple[datetime, str]:
    """The position a cursor of `next_page_headers` names; anything else raises. Only
    what a row can hold gets to the query (a crafted one used to be a 500)."""
    if not raw.isascii() or len(raw) > _MAX_CURSOR_CHARS:
        raise ValueError("not a cursor")
    decoded = parse_json(base64.urlsafe_b64decode(raw + "=" * (-len(raw) % 4)))
    if not (isinstance(decoded, list) and len(decoded) == 2):
        raise ValueError("not a cursor")
    created_at, last_id = decoded
    if not (isinstance(created_at, str) and isinstance(last_id, str)):
        raise ValueError("not a cursor")
    moment = datetime.fromisoformat(created_at)
    if moment.tzinfo is None:
        raise ValueError("naive timestamp")
    # The id is a UUID: nothing else (NUL, control characters) reaches the database.
    return moment.astimezone(UTC), str(uuid.UUID(last_id))
