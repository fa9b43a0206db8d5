"""Newest-first keyset pagination: `limit`, an opaque `cursor`, the next page in `Link`.

A cursor is signed (HMAC-SHA256 under a key derived from the encryption keys,
ramp/security/encryption.py) and bound to the list it came from: its path and its
owner (the project, the customer or the organization whose list it is). A crafted
cursor, one of another list or of another owner's list is `400 INVALID_CURSOR`.
"""

from __future__ import annotations

import base64
import binascii
import json
import uuid
from collections.abc import Mapping
from datetime import UTC, datetime
from urllib.parse import urlencode

from starlette.requests import Request

from api.body import parse_json
from api.errors import ApiError, bad_request
from api.services import services
from ramp.db.keyset import PageRequest
from ramp.security.encryption import SecretBox, cached_secret_box

DEFAULT_PAGE_SIZE = 20
MAX_PAGE_SIZE = 100
# A cursor we hand out is about 160 characters (position and signature).
_MAX_CURSOR_CHARS = 300


def page_size(request: Request, default: int = DEFAULT_PAGE_SIZE) -> int:
    raw = request.query_params.get("limit")
    if raw is None:
        return default
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


def page_request(
    request: Request, *, owner: str, default_size: int = DEFAULT_PAGE_SIZE
) -> PageRequest:
    """The page the request's `limit` and `cursor` ask for (400 if either is invalid);
    `owner` is the id of whoever the list belongs to, as given to `next_page_link`."""
    after = _cursor(request, owner)  # checked first, as it always was
    return PageRequest(limit=page_size(request, default_size), after=after)


def next_page_link(
    request: Request,
    after: tuple[datetime, str] | None,
    filters: Mapping[str, str] | None = None,
    *,
    owner: str,
) -> dict[str, str]:
    """The `Link` header to the page that starts after `after` (none if None)."""
    url = next_page_url(request, after, filters, owner=owner)
    return {} if url is None else {"Link": f'<{url}>; rel="next"'}


def next_page_url(
    request: Request,
    after: tuple[datetime, str] | None,
    filters: Mapping[str, str] | None = None,
    *,
    owner: str,
    default_size: int = DEFAULT_PAGE_SIZE,
) -> str | None:
    """The path and query of the page that starts after `after` (None if None)."""
    if after is None:
        return None
    limit = page_size(request, default_size)
    created_at, last_id = after
    position = json.dumps([created_at.isoformat(), last_id]).encode()
    encoded = base64.urlsafe_b64encode(position).decode().rstrip("=")
    signature = _box(request).cursor_signature(_signed(request, owner, encoded))
    params = urlencode({**(filters or {}), "limit": limit, "cursor": f"{encoded}.{signature}"})
    return f"{request.url.path}?{params}"


def _box(request: Request) -> SecretBox:
    return cached_secret_box(services(request).settings.encryption_keys.get_secret_value())


def _signed(request: Request, owner: str, encoded: str) -> str:
    """What a cursor's signature covers: the list (its path), its owner, the position."""
    return "\n".join((request.url.path, owner, encoded))


def _cursor(request: Request, owner: str) -> tuple[datetime, str] | None:
    raw = request.query_params.get("cursor")
    if raw is None:
        return None
    try:
        if not raw.isascii() or len(raw) > _MAX_CURSOR_CHARS:
            raise ValueError("not a cursor")
        encoded, _, signature = raw.partition(".")
        if not _box(request).cursor_signature_matches(_signed(request, owner, encoded), signature):
            raise ValueError("not signed for this list")
        return _decoded_position(encoded)
    except (ApiError, ValueError, TypeError, OverflowError, binascii.Error):
        raise bad_request(
            "INVALID_CURSOR",
            "cursor is not one this list returned (use the Link header of the previous page)",
        ) from None


def _decoded_position(encoded: str) -> tuple[datetime, str]:
    """The position a signed cursor names; anything else raises. Only what a row can
    hold gets to the query (a crafted one used to be a 500)."""
    decoded = parse_json(base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4)))
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
