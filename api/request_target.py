"""Refuses request targets (path and query) that hold control characters.

No id, filter or token of ours contains one, and PostgreSQL text cannot hold NUL: a
`%00` in a path id or a query filter used to reach a query and fail there with a 500.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qsl

from starlette.types import ASGIApp, Receive, Scope, Send

from api.errors import error_response

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


class RefuseControlCharacters:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and _has_control(scope):
            response = error_response(
                400, "INVALID_URL", "the URL must not contain control characters (%00-%1F, %7F)"
            )
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)


def _has_control(scope: Scope) -> bool:
    if _CONTROL.search(scope["path"]):
        return True
    query = scope.get("query_string", b"").decode("latin-1")
    return any(
        _CONTROL.search(part) for pair in parse_qsl(query, keep_blank_values=True) for part in pair
    )
