"""The API's HTTP series: requests by route template, method and status, and their
latency (ramp/observability/metrics.py). Labelled by the route's template
(`/v1/intents/{intentId}`), never by the path a client sent: the series stay few."""

from __future__ import annotations

import time

from starlette.routing import BaseRoute, Mount, Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ramp.observability import metrics

UNMATCHED = "unmatched"
_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})


def route_template(scope: Scope) -> str:
    """The template of the route that served the request, as the router left it in the
    scope (a mounted route's path behind its mount's)."""
    route: BaseRoute | None = scope.get("route")
    if route is None:
        return UNMATCHED
    prefix: str = scope.get("root_path", "")[len(scope.get("app_root_path", "")) :]
    if isinstance(route, Route):
        return prefix + route.path
    if isinstance(route, Mount):  # a mounted app without routes (static files)
        return route.path + "/{path}"
    return UNMATCHED


class HttpMetrics:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 500  # unless an answer starts

        async def send_recording(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, send_recording)
        finally:
            route = route_template(scope)
            method = scope["method"] if scope["method"] in _METHODS else "OTHER"
            metrics.HTTP_REQUESTS.labels(route, method, str(status)).inc()
            metrics.HTTP_REQUEST_DURATION.labels(route, method).observe(
                time.perf_counter() - started
            )
