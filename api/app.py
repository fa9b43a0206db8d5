"""The Starlette application: `create_app()` is what uvicorn serves."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.routing import Mount
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

from api.errors import EXCEPTION_HANDLERS
from api.logs import redact_access_log
from api.metrics import HttpMetrics, RouteTemplate
from api.middleware import BodySizeLimit
from api.openapi import openapi_document
from api.request_ids import RequestIds
from api.request_target import RefuseControlCharacters
from api.routes import ROUTES
from api.services import Services
from api.throttling import RateLimitHeaders
from ramp import temporal
from ramp.config import Settings
from ramp.db.engine import create_engine, session_factory
from ramp.identity.oidc import OidcVerifier
from ramp.observability.tracing import tracing_on
from ramp.ratelimit import limiter_from_settings
from ramp.security.tokens import TokenService


def _tracing() -> list[Middleware]:
    """The request's server span, when tracing is on (ramp/observability/tracing.py)."""
    if not tracing_on():
        return []
    from opentelemetry.instrumentation.asgi import OpenTelemetryMiddleware

    return [Middleware(OpenTelemetryMiddleware, exclude_spans=["receive", "send"])]


def create_app(settings: Settings | None = None) -> Starlette:
    settings = settings or Settings()
    redact_access_log()
    # Built before serving so that a missing key fails the start, not the first request.
    tokens = TokenService.from_settings(settings)

    @asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[dict[str, Any]]:
        engine = create_engine(settings)
        # Lazy: the API starts (and /healthz reports) even while Temporal is down.
        client = await temporal.connect(settings, lazy=True)
        limiter = limiter_from_settings(settings)
        try:
            yield {
                "services": Services(
                    settings=settings,
                    engine=engine,
                    db=session_factory(engine),
                    temporal=client,
                    tokens=tokens,
                    oidc=OidcVerifier(),
                    limiter=limiter,
                )
            }
        finally:
            await limiter.close()
            await engine.dispose()

    # Who the client is: the connection's peer, or, from a proxy of RAMP_TRUSTED_PROXIES
    # only, the address it forwards (X-Forwarded-For, read from the right past trusted
    # hops) and the scheme (X-Forwarded-Proto). Here rather than in the server, so that it
    # holds however the app is served (`ramp api` turns uvicorn's own handling off).
    proxies = settings.trusted_proxy_networks
    client = [Middleware(ProxyHeadersMiddleware, trusted_hosts=proxies)] if proxies else []
    app = Starlette(
        routes=ROUTES,
        middleware=[
            # Outermost: every answer, and every log line written while serving, has the id.
            Middleware(RequestIds),
            *_tracing(),
            Middleware(HttpMetrics),
            *client,
            Middleware(RefuseControlCharacters),
            # The limit of each route is its own (a step of the hosted onboarding is larger).
            Middleware(BodySizeLimit, max_bytes=settings.max_body_bytes, routes=ROUTES),
            # RateLimit-* headers of the project budget counted by authentication.
            Middleware(RateLimitHeaders),
            # Innermost: the route the router chose, for HttpMetrics' labels.
            Middleware(RouteTemplate),
        ],
        exception_handlers=EXCEPTION_HANDLERS,
        lifespan=lifespan,
    )
    # A path we do not serve is a 404 envelope, not a redirect to a guess.
    app.router.redirect_slashes = False
    for route in ROUTES:
        if isinstance(route, Mount):
            route.app.redirect_slashes = False  # type: ignore[attr-defined]
    app.state.openapi = openapi_document(settings.max_body_bytes)
    return app
