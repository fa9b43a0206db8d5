"""The hosted onboarding page behind `frontendUrl`: `GET /onboarding/{intentId}?token=...`.

The page is static HTML, CSS and JavaScript served from `api/static/onboarding/`; it
reads everything it shows from the JSON API (api/onboarding.py) with the token of its
own URL. This module only checks the token, so that an expired or foreign link gets a
clear error page at once, and sets the headers: a content security policy that loads
nothing from anyone else, runs no inline script, and lets only the project's
onboarding origins embed the page (`frame-ancestors`), once the token proved which
project that is.
"""

from __future__ import annotations

import functools
import html
import json
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, Response
from starlette.staticfiles import StaticFiles
from starlette.types import Message, Receive, Scope, Send

from api.errors import ApiError
from api.onboarding import check_onboarding_token
from api.services import services
from api.throttling import throttle_public
from ramp.onboarding.projects import page_embed_origins
from ramp.origins import SECURITY_HEADERS, content_security_policy
from ramp.security.tokens import InvalidToken

STATIC = Path(__file__).resolve().parent / "static" / "onboarding"


@functools.cache
def _page() -> str:
    return (STATIC / "index.html").read_text(encoding="utf-8")


@functools.cache
def _error_template() -> str:
    return (STATIC / "error.html").read_text(encoding="utf-8")


@functools.cache
def messages() -> dict[str, Any]:
    """The page's texts (English): the same file the page's script reads."""
    loaded: dict[str, Any] = json.loads((STATIC / "messages.en.json").read_text("utf-8"))
    return loaded


async def onboarding_page(request: Request) -> Response:
    # Unauthenticated (the token is checked here, not by a scheme): counted per address.
    await throttle_public(request, "onboarding-page")
    app = services(request)
    intent_id = request.path_params["intentId"]
    # Until a token we signed for this very intent is checked, the answer depends on the
    # request alone, never on the database: it tells no one whether the intent exists,
    # and names no project's origins (frame-ancestors 'none').
    anonymous = _headers([])
    if "token" not in request.query_params:
        # A reload: the page took the token out of the address bar and kept it for the
        # tab; its API calls carry it, and the page shows the error if it fails. A reload
        # of the frame alone is refused by the browser: the app frames frontendUrl again.
        return HTMLResponse(_page(), headers=anonymous)
    token = request.query_params["token"]
    expired = False
    try:
        customer_id = check_onboarding_token(app, token, intent_id)
    except ApiError as error:
        if error.code != "TOKEN_EXPIRED":
            return _error(404 if error.status == 404 else 401, "invalid", anonymous)
        try:
            claims = app.tokens.expired_onboarding_claims(token)
        except InvalidToken:
            return _error(401, "invalid", anonymous)
        if claims.intent_id != intent_id:
            return _error(404, "invalid", anonymous)
        # Our own link to this intent, expired: its page may say so inside the app's frame.
        customer_id, expired = claims.customer_id, True
    async with app.db() as session:
        origins = await page_embed_origins(session, intent_id, customer_id)
    if origins is None:
        return _error(404, "invalid", anonymous)
    # The error pages too may show inside the project's iframe: they reveal nothing.
    headers = _headers(origins)
    if expired:
        return _error(401, "expired", headers)
    return HTMLResponse(_page(), headers=headers)


def _headers(origins: list[str]) -> dict[str, str]:
    return {**SECURITY_HEADERS, "Content-Security-Policy": content_security_policy(origins)}


def _error(status: int, kind: str, headers: dict[str, str]) -> HTMLResponse:
    texts = messages()["errors"][kind]
    page = (
        _error_template()
        .replace("{{title}}", html.escape(texts["title"]))
        .replace("{{message}}", html.escape(texts["message"]))
        .replace("{{lang}}", html.escape(messages()["lang"]))
    )
    return HTMLResponse(page, status_code=status, headers=headers)


async def favicon(request: Request) -> Response:
    """The service's icon at `/favicon.ico`, where browsers look for it on any of our
    pages (the onboarding pages link the same file)."""
    return FileResponse(
        STATIC / "favicon.svg",
        media_type="image/svg+xml",
        headers={"Cache-Control": "public, max-age=86400", "X-Content-Type-Options": "nosniff"},
    )


class OnboardingAssets:
    """The page's static files, with `nosniff` and revalidation on every load."""

    methods = ("GET", "HEAD")  # what StaticFiles serves; a 405 names them in `Allow`

    def __init__(self) -> None:
        self._files = StaticFiles(directory=STATIC)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [
                    *message.get("headers", []),
                    (b"x-content-type-options", b"nosniff"),
                    (b"cache-control", b"no-cache"),
                ]
            await send(message)

        await self._files(scope, receive, with_headers)
