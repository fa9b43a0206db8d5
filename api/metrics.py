"""The API's HTTP series: requests by route template, method and status, and their
latency (ramp/observability/metrics.py). Labelled by the route's template
(`/v1/intents/{intentId}`), never by the path a client sent: the series stay few."""

from __future__ import annotations

import time
from collections.abc import Sequence

from starlette.routing import BaseRoute, Match, Mount, Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ramp.observability import metrics

UNMATCHED = "unmatched"
_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})


def route_template(routes: Sequence[BaseRoute], scope: Scope, prefix: str = "") -> str:
    """The template of the route the router sends the request to (a route of a mount
    behind the mount's path; a 405's route too), or `unmatched`. Matched here rather
    than read from the scope: middleware inside this one pass the router a copy."""
    partial: str | None = None
    for route in routes:
        match, child = route.matches(scope)
        if match is Match.NONE:
            continue
        if isinstance(route, Mount):
            if match is Match.FULL and route.routes:
                return route_template(route.routes, {**scope, **child}, prefix + route.path)
            template = prefix + route.path + "/{path}"  # a mounted app (static files)
        elif isinstance(route, Route):
            template = prefix + route.path
        else:
            template = UNMATCHED
        if match is Match.FULL:
            return template
        partial = partial or template
    return partial or UNMATCHED


class HttpMetrics:
    def __init__(self, app: ASGIApp, routes: Sequence[BaseRoute]) -> None:
        self.app = app
        self.routes = tuple(routes)

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
            route = route_template(self.routes, scope)
            method = scope["method"] if scope["method"] in _METHODS else "OTHER"
            metrics.HTTP_REQUESTS.labels(route, method, str(status)).inc()
            metrics.HTTP_REQUEST_DURATION.labels(route, method).observe(
                time.perf_counter() - started
            )
