"""A project's webhook endpoints (add, edit events, enable/disable, remove) and their
delivery log with a redeliver button. Endpoints are signed with the project's client
secret: its rotation (the credentials section) is the signing secret's rotation."""

from __future__ import annotations

from typing import Any

from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import Response

from api.dashboard.principal import Acting
from api.dashboard.rendering import field, logged_in, page, posted, redirect, render
from api.services import services
from ramp.db.keyset import PageRequest
from ramp.db.tables import Organization
from ramp.errors import Conflict, InvalidInput, Unavailable
from ramp.intents.events import WebhookEventType
from ramp.organizations import project_admin
from ramp.webhooks import delivery_log, endpoints
from ramp.webhooks.delivery_log import DeliveryFilters
from ramp.webhooks.endpoints import EndpointRefused

EVENT_TYPES = [t.value for t in WebhookEventType]


def _url(request: Request) -> str:
    return f"/dashboard/projects/{request.path_params['projectId']}/webhooks"


async def _webhooks(
    request: Request,
    who: Acting,
    organization: Organization,
    extra: dict[str, Any] | None = None,
    status: int = 200,
) -> Response:
    app = services(request)
    async with app.db() as session:
        found = await project_admin.project(
            session, who.principal, request.path_params["projectId"]
        )
        listed = await endpoints.project_endpoints(session, found.id)
    deliveries = await delivery_log.delivery_page(
        app.db, found.id, DeliveryFilters(), PageRequest(limit=50, after=None)
    )
    context = {
        "project": found,
        "endpoints": listed,
        "deliveries": deliveries.items,
        "event_types": EVENT_TYPES,
        **(extra or {}),
    }
    return render(request, "webhooks.html", context, status, who, organization)


@page
async def webhooks_page(request: Request) -> Response:
    who, organization = await logged_in(request)
    return await _webhooks(request, who, organization)


def _chosen_events(form: FormData) -> list[WebhookEventType]:
    return [WebhookEventType(v) for v in form.getlist("event_types") if v in EVENT_TYPES]


@page
async def add_endpoint(request: Request) -> Response:
    who, organization, form = await posted(request)
    try:
        async with services(request).db() as session:
            await project_admin.add_endpoint(
                session,
                who.principal,
                request.path_params["projectId"],
                url=field(form, "url"),
                event_types=_chosen_events(form),
                description=field(form, "description") or None,
            )
    except (EndpointRefused, InvalidInput) as refusal:
        return await _webhooks(request, who, organization, {"error": str(refusal)}, 400)
    return redirect(_url(request))


@page
async def change_endpoint(request: Request) -> Response:
    """One form per endpoint: its events, and the enable/disable/remove buttons."""
    who, organization, form = await posted(request)
    project_id = request.path_params["projectId"]
    endpoint_id = request.path_params["endpointId"]
    action = field(form, "action")
    try:
        async with services(request).db() as session:
            if action == "remove":
                await project_admin.remove_endpoint(session, who.principal, project_id, endpoint_id)
            elif action in ("enable", "disable"):
                await project_admin.change_endpoint(
                    session, who.principal, project_id, endpoint_id, enabled=action == "enable"
                )
            else:
                await project_admin.change_endpoint(
                    session,
                    who.principal,
                    project_id,
                    endpoint_id,
                    event_types=_chosen_events(form),
                )
    except (EndpointRefused, InvalidInput) as refusal:
        return await _webhooks(request, who, organization, {"error": str(refusal)}, 400)
    return redirect(_url(request))


@page
async def redeliver(request: Request) -> Response:
    who, organization, _ = await posted(request)
    app = services(request)

    try:
        async with app.db() as session:
            await project_admin.redeliver(
                session,
                who.principal,
                request.path_params["projectId"],
                request.path_params["deliveryId"],
            )
    except (Conflict, Unavailable) as refusal:
        return await _webhooks(request, who, organization, {"error": refusal.message}, 409)
    return redirect(_url(request) + "#deliveries")
