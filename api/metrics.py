"""The API's HTTP series: requests by route template, method and status, and their
latency (ramp/observability/metrics.py). Labelled by the route's template
(`/v1/intent/{id}`), never by the path a client sent: the series stay few.

Two middleware: `HttpMetrics`, outside the others, times and counts every answer
(refusals by the middleware included); `RouteTemplate`, innermost, notes the template
of the route the router chose. The note travels in the scope's `state` dict, which the
middleware between them share even where they pass the router a copy of the scope.
"""

from __future__ import annotations

import time
from typing import Any

from starlette.routing import BaseRoute, Mount, Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ramp.observability import metrics

UNMATCHED = "unmatched"
_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
_NOTE = "route_template"


def route_template(scope: Scope) -> str:
    """The template of the route the router chose, from the scope it left (a mounted
    route's path behind its mount's; a 405's route too), or `unmatched`."""
    route: BaseRoute | None = scope.get("route")
    prefix: str = scope.get("root_path", "")[len(scope.get("app_root_path", "")) :]
    if isinstance(route, Route):
        return prefix + route.path
    if isinstance(route, Mount):  # a mounted app without routes (static files)
        return prefix + "/{path}"
    return UNMATCHED


class RouteTemplate:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await self.app(scope, receive, send)
        finally:
            state: dict[str, Any] | None = scope.get("state")
            if scope["type"] == "http" and state is not None:
                state[_NOTE] = route_template(scope)


class HttpMetrics:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 500  # unless an answer starts
        state: dict[str, Any] = scope.setdefault("state", {})

        async def send_recording(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, send_recording)
        finally:
            route = state.get(_NOTE, UNMATCHED)
            method = scope["method"] if scope["method"] in _METHODS else "OTHER"
            metrics.HTTP_REQUESTS.labels(route, method, str(status)).inc()
            metrics.HTTP_REQUEST_DURATION.labels(route, method).observe(
                time.perf_counter() - started
            )
