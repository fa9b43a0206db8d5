"""Throttling at the API's edge (settings and defaults: docs/decisions.md, "Limits").

- Failed client-credential checks are counted per (client id, source address) and per
  source address; past either limit the attempts of that pair, or of that address, are
  refused with `429 AUTH_THROTTLED` until the window closes, a correct secret included
  (otherwise the throttle would still answer guesses). Never per client id alone: a
  client id is no secret (webhooks carry it), and a count of it from every address
  would let anyone lock its project out. A correct secret from an address that has not
  been failing is always checked.
- Authenticated requests are counted per project; each response carries `RateLimit-*`
  headers (IETF draft "RateLimit header fields for HTTP") and, over the limit, is
  `429 RATE_LIMITED`.
- Unauthenticated endpoints are counted per source address and endpoint.

The source address is the connection's peer; `X-Forwarded-For` is believed only from
the proxies of `RAMP_TRUSTED_PROXIES` (api/app.py puts uvicorn's proxy-headers
middleware in front for those, and `ramp api` turns uvicorn's own off).
"""

from __future__ import annotations

import ipaddress

from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api.errors import ApiError
from api.services import services
from ramp.errors import ThrottleError
from ramp.ratelimit import Decision, Rate

# The scope key of a request's own list where authentication leaves the project budget
# for the middleware to put on the response (not `state`: a server may share that dict).
_SCOPE_KEY = "ramp.rate_limit_headers"


def source_address(request: Request) -> str:
    """Whom per-address limits count: the IPv4 address, or the IPv6 /64 (one subscriber
    usually holds a whole /64, and would otherwise have 2^64 budgets)."""
    host = request.client.host if request.client else "unknown"
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is None:
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address.ipv4_mapped if isinstance(address, ipaddress.IPv6Address) else address)


def _too_many(code: str, message: str, decision: Decision) -> ApiError:
    retry_after = decision.reset_seconds
    return ApiError(
        429,
        code,
        f"{message}: retry in {retry_after} s",
        details={"retryAfterSeconds": retry_after},
        headers={"Retry-After": str(retry_after)},
    )


async def throttle_public(request: Request, endpoint: str) -> None:
    """Counts a request to the unauthenticated `endpoint` against its source address."""
    app = services(request)
    rate = app.settings.rate_limits.public
    if rate is None:
        return
    decision = await app.limiter.hit(f"public:{endpoint}:{source_address(request)}", rate)
    if not decision.allowed:
        raise _too_many(ThrottleError.RATE_LIMITED, "too many requests from this address", decision)


def _failure_keys(request: Request, client_id: str | None) -> list[tuple[Rate, str]]:
    limits = services(request).settings.rate_limits
    keys: list[tuple[Rate, str]] = []
    if limits.auth_failures_per_address is not None:
        keys.append((limits.auth_failures_per_address, f"auth:address:{source_address(request)}"))
    if client_id is not None and limits.auth_failures_per_client_address is not None:
        keys.append(
            (
                limits.auth_failures_per_client_address,
                f"auth:client-address:{client_id}:{source_address(request)}",
            )
        )
    return keys


async def refuse_while_throttled(request: Request, client_id: str | None) -> None:
    """429 while this address, or this client id from this address, has used up its
    failed attempts."""
    limiter = services(request).limiter
    for rate, key in _failure_keys(request, client_id):
        decision = await limiter.peek(key, rate)
        if decision.count >= rate.limit:
            raise _too_many(
                ThrottleError.AUTH_THROTTLED,
                "too many failed authentication attempts from this address",
                decision,
            )


async def record_auth_failure(request: Request, client_id: str | None) -> None:
    limiter = services(request).limiter
    for rate, key in _failure_keys(request, client_id):
        await limiter.hit(key, rate)


async def charge_project(request: Request, project_id: str) -> None:
    """Counts an authenticated request against its project's budget."""
    app = services(request)
    rate = app.settings.rate_limits.project
    if rate is None:
        return
    decision = await app.limiter.hit(f"project:{project_id}", rate)
    headers: list[tuple[bytes, bytes]] | None = request.scope.get(_SCOPE_KEY)
    if headers is not None:
        headers[:] = [
            (b"ratelimit-limit", str(rate.limit).encode()),
            (b"ratelimit-remaining", str(decision.remaining).encode()),
            (b"ratelimit-reset", str(decision.reset_seconds).encode()),
            (b"ratelimit-policy", f"{rate.limit};w={rate.window_seconds}".encode()),
        ]
    if not decision.allowed:
        raise _too_many(
            ThrottleError.RATE_LIMITED, "this project's request rate limit is reached", decision
        )


class RateLimitHeaders:
    """Puts the project budget that authentication counted on the response, errors too."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        budget: list[tuple[bytes, bytes]] = []

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start" and budget:
                message["headers"] = [*message.get("headers", []), *budget]
            await send(message)

        await self.app({**scope, _SCOPE_KEY: budget}, receive, with_headers)
