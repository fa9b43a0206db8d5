"""Login, logout (here or everywhere), and the setup/invite link where a member sets
their password."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from api.dashboard.principal import clear_session_cookie, session_token, set_session_cookie
from api.dashboard.rendering import field, page, posted, redirect, render
from api.errors import ApiError
from api.services import services
from api.throttling import source_address, throttle_public
from ramp.errors import Conflict, DashboardError, InvalidInput, NotAuthenticated, Throttled
from ramp.observability import metrics
from ramp.organizations import members, sessions
from ramp.organizations.login_throttle import LoginAttempt
from ramp.security.encryption import SecretBox

HOME = "/dashboard"


async def _throttled(request: Request, endpoint: str) -> Response | None:
    """The page saying to wait, past the per-address limit (not a JSON envelope)."""
    try:
        await throttle_public(request, endpoint)
    except ApiError as refusal:
        context = {"title": "Too many attempts", "message": refusal.message}
        return render(request, "error.html", context, refusal.status)
    return None


def same_origin(request: Request) -> bool:
    """A form posted from one of our own pages (or by a client that sends no Origin)."""
    origin = request.headers.get("origin")
    if origin is None:
        return True
    own = f"{request.url.scheme}://{request.url.netloc}"
    return origin == own


async def login_page(request: Request) -> Response:
    return render(request, "login.html", {"email": "", "totp": False})


async def login(request: Request) -> Response:
    if (refused := await _throttled(request, "dashboard-login")) is not None:
        return refused
    form = await request.form()
    email, password = field(form, "email"), str(form.get("password") or "")
    if not same_origin(request):
        return render(request, "login.html", {"error": "refused: not our login form"}, 403)
    app = services(request)
    address = source_address(request)
    try:
        async with app.db() as session:
            logged_in = await sessions.login(
                session,
                email=email,
                password=password,
                ip=address,
                secret_box=SecretBox.from_settings(app.settings),
                totp_code=field(form, "totp") or None,
                attempt=LoginAttempt(app.limiter, email, address),
            )
    except Throttled as refusal:
        # The address waits (the account is never locked): the form again, with the wait.
        metrics.REFUSALS.labels(refusal.code).inc()  # as the API's 429s count
        context = {"error": refusal.message, "email": email, "totp": False}
        response = render(request, "login.html", context, 429)
        response.headers["Retry-After"] = str(refusal.retry_after_seconds)
        return response
    except NotAuthenticated as refusal:
        needs_code = refusal.code == DashboardError.INVALID_TOTP
        context = {"error": refusal.message, "email": email, "totp": needs_code}
        return render(request, "login.html", context, 401)
    response = redirect(HOME)
    set_session_cookie(request, response, logged_in.token)
    return response


@page
async def logout(request: Request) -> Response:
    await posted(request)  # the CSRF check: nobody logs a member out from elsewhere
    token = session_token(request)
    if token is not None:
        async with services(request).db() as session:
            await sessions.logout(session, token)
    response = redirect("/dashboard/login")
    clear_session_cookie(request, response)
    return response


@page
async def logout_everywhere(request: Request) -> Response:
    who, _, _ = await posted(request)
    assert who.member is not None
    async with services(request).db() as session:
        await sessions.logout_everywhere(session, who.member.id)
    response = redirect("/dashboard/login")
    clear_session_cookie(request, response)
    return response


async def join_page(request: Request) -> Response:
    if (refused := await _throttled(request, "dashboard-join")) is not None:
        return refused
    token = request.path_params["token"]
    async with services(request).db() as session:
        try:
            invite = await members.pending_invite(session, token)
        except InvalidInput as refusal:
            return render(
                request, "error.html", {"title": "Link not valid", "message": refusal.message}, 404
            )
    return render(request, "join.html", {"email": invite.email, "role": invite.role})


async def join(request: Request) -> Response:
    if (refused := await _throttled(request, "dashboard-join")) is not None:
        return refused
    token = request.path_params["token"]
    form = await request.form()
    password = str(form.get("password") or "")
    if not same_origin(request):
        return render(request, "error.html", {"title": "Refused", "message": "not our form"}, 403)
    app = services(request)
    async with app.db() as session:
        try:
            invite = await members.pending_invite(session, token)
            if password != str(form.get("confirm") or ""):
                raise InvalidInput(DashboardError.WEAK_PASSWORD, "the two passwords differ")
            member = await members.accept_invite(
                session, token=token, password=password, ip=source_address(request)
            )
        except Conflict as refusal:
            context = {"title": "Already a member", "message": refusal.message}
            return render(request, "error.html", context, 409)
        except InvalidInput as refusal:
            if refusal.code == DashboardError.INVALID_LINK:
                return render(
                    request,
                    "error.html",
                    {"title": "Link not valid", "message": refusal.message},
                    404,
                )
            context = {"email": invite.email, "role": invite.role, "error": refusal.message}
            return render(request, "join.html", context, 400)
        logged_in = await sessions.login(
            session,
            email=member.email,
            password=password,
            ip=source_address(request),
            secret_box=SecretBox.from_settings(app.settings),
        )
    response = redirect(HOME)
    set_session_cookie(request, response, logged_in.token)
    return response
