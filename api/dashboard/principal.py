"""Who a dashboard page or admin API call acts as: a logged-in member (session cookie,
plus the CSRF token on anything that changes state) or an organization API key.

The cookie is `__Host-ramp_session` (Secure, HttpOnly, SameSite=Lax, Path=/). A sandbox
served over plain http on a loopback address (`ramp dev`, the browser tests) cannot
keep a Secure cookie everywhere, so there, and only there, it is `ramp_session` without
Secure; a production service always sets the Secure `__Host-` cookie (TLS ends at its
proxy).
"""

from __future__ import annotations

import hmac
import ipaddress
from dataclasses import dataclass

from starlette.requests import Request
from starlette.responses import Response

from api.services import services
from api.throttling import source_address
from ramp.config import Environment
from ramp.db.tables import DashboardSession, OrgMember
from ramp.errors import DashboardError, Forbidden, NotAuthenticated
from ramp.organizations import sessions
from ramp.organizations.access import Principal
from ramp.organizations.api_keys import principal_of_key
from ramp.organizations.sessions import ABSOLUTE_TIMEOUT, SCHEME, principal_of

SECURE_COOKIE = "__Host-ramp_session"
LOOPBACK_COOKIE = "ramp_session"
CSRF_HEADER = "X-CSRF-Token"
CSRF_FIELD = "csrf_token"
_SAFE_METHODS = ("GET", "HEAD", "OPTIONS")


@dataclass(frozen=True)
class Acting:
    principal: Principal
    # The member's session (None for an API key): its CSRF token goes into forms.
    session: DashboardSession | None = None
    member: OrgMember | None = None

    @property
    def csrf_token(self) -> str:
        return self.session.csrf_token if self.session is not None else ""


def plain_http_allowed(request: Request) -> bool:
    """Plain http on loopback, in the sandbox: the only place the cookie is not Secure."""
    if services(request).settings.ramp_env is not Environment.SANDBOX:
        return False
    if request.url.scheme != "http":
        return False
    host = request.url.hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def cookie_name(request: Request) -> str:
    return LOOPBACK_COOKIE if plain_http_allowed(request) else SECURE_COOKIE


def session_token(request: Request) -> str | None:
    return request.cookies.get(cookie_name(request))


def set_session_cookie(request: Request, response: Response, token: str) -> None:
    response.set_cookie(
        cookie_name(request),
        token,
        max_age=int(ABSOLUTE_TIMEOUT.total_seconds()),
        path="/",
        secure=not plain_http_allowed(request),
        httponly=True,
        samesite="lax",
    )


def clear_session_cookie(request: Request, response: Response) -> None:
    response.delete_cookie(
        cookie_name(request),
        path="/",
        secure=not plain_http_allowed(request),
        httponly=True,
        samesite="lax",
    )


async def acting(request: Request, *, csrf_form_token: str | None = None) -> Acting:
    """The caller, or NotAuthenticated. A state-changing call with the cookie must carry
    its session's CSRF token (header, or `csrf_form_token` read from a form)."""
    app = services(request)
    ip = source_address(request)
    header = request.headers.get("authorization", "")
    scheme, _, value = header.partition(" ")
    if header and scheme.lower() == "bearer" and value.strip():
        async with app.db() as db:
            return Acting(await principal_of_key(db, value.strip(), ip))
    token = session_token(request)
    if token is None:
        raise NotAuthenticated(DashboardError.NOT_LOGGED_IN, "log in first", SCHEME)
    async with app.db() as db:
        found, member = await sessions.resume(db, token)
    if request.method not in _SAFE_METHODS:
        given = csrf_form_token if csrf_form_token is not None else request.headers.get(CSRF_HEADER)
        if not given or not hmac.compare_digest(given, found.csrf_token):
            raise Forbidden(
                DashboardError.CSRF_FAILED,
                f"the CSRF token is missing or wrong (send the {CSRF_HEADER} header)",
            )
    return Acting(principal_of(member, ip), found, member)
