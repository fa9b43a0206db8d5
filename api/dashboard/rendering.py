"""What every dashboard page shares: the templates, the security headers, who is
logged in (a page sends a logged-out visitor to the login page), the form's CSRF check,
and the pages for a refusal (403) or something not there (404)."""

from __future__ import annotations

import functools
import re
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.templating import Jinja2Templates

from api.dashboard.principal import CSRF_FIELD, Acting, acting
from api.services import services
from ramp.db.tables import Organization
from ramp.errors import Forbidden, NotAuthenticated, NotFound
from ramp.organizations import members
from ramp.organizations.access import Role

TEMPLATES = Jinja2Templates(directory=Path(__file__).resolve().parent / "templates")


def readable(value: Any) -> str:
    """A stored detail (JSON) as a person reads it: lists joined, yes/no, whole numbers
    without ".0", never a Python repr."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, list | tuple):
        return ", ".join(readable(item) for item in value) if value else "none"
    if isinstance(value, Mapping):
        return ", ".join(f"{humanize_key(k)} {readable(v)}" for k, v in value.items())
    return str(value)


def humanize_key(key: str) -> str:
    """`eventTypes` -> `event types`."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", key).replace("_", " ").lower()


def uri_parts(uri: str) -> list[str]:
    """A URI cut after its path and each query separator, where a narrow screen may wrap
    it (`<wbr>` between the parts) instead of anywhere mid-word."""
    return [part for part in re.split(r"(?<=[?&])|(?<=//)(?=[^/])|(?<=/)(?=[^/])", uri) if part]


TEMPLATES.env.filters["readable"] = readable
TEMPLATES.env.filters["uri_parts"] = uri_parts
TEMPLATES.env.filters["humanize_key"] = humanize_key
LOGIN = "/dashboard/login"
# Nothing from anyone else, no inline script or style, no framing; the join link's token
# never leaves for another site in a Referer (same-origin: with no-referrer, Chromium
# posts forms with `Origin: null`, which the login's origin check refuses).
HEADERS = {
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; "
    "img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; "
    "frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
    "X-Frame-Options": "DENY",
}

Page = Callable[[Request], Awaitable[Response]]


def render(
    request: Request,
    template: str,
    context: dict[str, Any] | None = None,
    status: int = 200,
    who: Acting | None = None,
    organization: Organization | None = None,
) -> Response:
    values: dict[str, Any] = {
        "who": who,
        "organization": organization,
        "csrf": who.csrf_token if who is not None else "",
        "Role": Role,
        "environment": services(request).settings.ramp_env.value,
        **(context or {}),
    }
    return TEMPLATES.TemplateResponse(
        request, template, values, status_code=status, headers=HEADERS
    )


def page(handler: Page) -> Page:
    """A page handler whose refusals become pages: logged out -> the login page,
    a role that may not -> 403, another organization's or no such thing -> 404."""

    @functools.wraps(handler)
    async def wrapped(request: Request) -> Response:
        try:
            return await handler(request)
        except NotAuthenticated:
            return RedirectResponse(LOGIN, status_code=303, headers=HEADERS)
        except Forbidden as refusal:
            return render(
                request, "error.html", {"title": "Not allowed", "message": refusal.message}, 403
            )
        except NotFound as missing:
            return render(
                request, "error.html", {"title": "Not found", "message": missing.message}, 404
            )

    return wrapped


async def logged_in(request: Request) -> tuple[Acting, Organization]:
    """The member of a GET page, and their organization."""
    who = await acting(request)
    return who, await organization_of(request, who)


async def posted(request: Request) -> tuple[Acting, Organization, FormData]:
    """The member of a form POST, its CSRF token checked, with the form."""
    form = await request.form()
    token = form.get(CSRF_FIELD)
    who = await acting(request, csrf_form_token=token if isinstance(token, str) else "")
    return who, await organization_of(request, who), form


async def organization_of(request: Request, who: Acting) -> Organization:
    async with services(request).db() as session:
        return await members.organization(session, who.principal)


def field(form: FormData, name: str) -> str:
    value = form.get(name)
    return value.strip() if isinstance(value, str) else ""


def redirect(url: str) -> Response:
    return RedirectResponse(url, status_code=303, headers=HEADERS)
