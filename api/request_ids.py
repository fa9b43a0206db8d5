"""Every request's id: the client's `X-Request-Id` when it is sane (printable, short),
else one of ours. It is answered in the same header (and in the error envelope's
`requestId`), set for the log lines written while serving (ramp/observability/logs.py)
and carried to the workflows and activities the request starts or updates
(ramp/observability/temporal.py)."""

from __future__ import annotations

from typing import Any

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ramp.observability import context
from ramp.observability.context import REQUEST_ID_HEADER

_HEADER = REQUEST_ID_HEADER.lower().encode()


def request_id_of(scope: Scope) -> str | None:
    state: dict[str, Any] = scope.get("state") or {}
    value = state.get("request_id")
    return value if isinstance(value, str) else None


class RequestIds:
    """Outermost of the app's middleware: everything inside sees the id."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        sent = next((value for name, value in scope["headers"] if name == _HEADER), None)
        given = context.sane_request_id(sent.decode("latin-1") if sent is not None else None)
        request_id = given or context.new_request_id()
        scope.setdefault("state", {})["request_id"] = request_id

        async def send_with_id(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                if REQUEST_ID_HEADER not in headers:
                    headers.append(REQUEST_ID_HEADER, request_id)
            await send(message)

        # The project and intent are this request's once known (api/auth.py), and no
        # one else's: a server that runs requests in one context sees them reset.
        tokens = (
            context.request_id.set(request_id),
            context.project_id.set(None),
            context.intent_id.set(None),
        )
        try:
            await self.app(scope, receive, send_with_id)
        finally:
            for token in reversed(tokens):
                token.var.reset(token)
