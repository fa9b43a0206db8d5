"""ASGI middleware of the API."""

from __future__ import annotations

from collections.abc import Sequence

from starlette.routing import BaseRoute, Match, Mount
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api.errors import error_response
from api.operations import ApiRoute, body_limit


class BodySizeLimit:
    """Refuses bodies over the limit with 413, whether or not Content-Length is sent.

    The limit is `max_bytes` unless the route the request goes to allows more (its
    `Operation.max_body_bytes`: onboarding documents). Starlette's own `max_body_size`
    is not used: it answers in plain text, and only once the handler reads the body or
    answers, where we refuse before anything runs, in our error envelope.
    """

    def __init__(self, app: ASGIApp, max_bytes: int, routes: Sequence[BaseRoute]) -> None:
        self.app = app
        self.default_max_bytes = max_bytes
        self.routes = tuple(routes)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        route = _route_of(self.routes, scope)
        max_bytes = body_limit(route.operation if route else None, self.default_max_bytes)
        for name, value in scope["headers"]:
            if name == b"content-length" and value.isdigit() and int(value) > max_bytes:
                await self._too_large(scope, receive, send, max_bytes)
                return
        received = 0
        response_started = False

        async def limited_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > max_bytes:
                    raise _TooLarge
            return message

        async def tracking_send(message: Message) -> None:
            nonlocal response_started
            response_started = response_started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, limited_receive, tracking_send)
        except _TooLarge:
            if not response_started:
                await self._too_large(scope, receive, send, max_bytes)

    async def _too_large(self, scope: Scope, receive: Receive, send: Send, max_bytes: int) -> None:
        response = error_response(
            413, "PAYLOAD_TOO_LARGE", f"request body exceeds {max_bytes} bytes"
        )
        await response(scope, receive, send)


class _TooLarge(Exception):
    pass


def _route_of(routes: Sequence[BaseRoute], scope: Scope) -> ApiRoute | None:
    """The API route that serves this request (method and path), as the router finds it."""
    for route in routes:
        match, child_scope = route.matches(scope)
        if match != Match.FULL:
            continue
        if isinstance(route, Mount):
            return _route_of(route.routes, {**scope, **child_scope})
        return route if isinstance(route, ApiRoute) else None
    return None
