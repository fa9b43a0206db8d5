"""The home page (the organization's projects, the create form) and a project's page:
its client credentials, trusted OIDC issuers and allowed onboarding origins."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from api.dashboard.principal import Acting
from api.dashboard.rendering import field, logged_in, page, posted, redirect, render
from api.services import services
from ramp.config import Environment
from ramp.db.tables import Organization
from ramp.db.types import utcnow
from ramp.errors import InvalidInput
from ramp.organizations import project_admin, routing_admin
from ramp.projects import previous_secret_valid
from ramp.security.encryption import SecretBox


async def _home(
    request: Request,
    who: Acting,
    organization: Organization,
    extra: dict[str, Any] | None = None,
    status: int = 200,
) -> Response:
    async with services(request).db() as session:
        found = await project_admin.list_projects(session, who.principal)
    context = {"projects": found, **(extra or {})}
    return render(request, "home.html", context, status, who, organization)


@page
async def home(request: Request) -> Response:
    who, organization = await logged_in(request)
    return await _home(request, who, organization)


@page
async def create_project(request: Request) -> Response:
    who, organization, form = await posted(request)
    app = services(request)
    try:
        environment = Environment(field(form, "environment") or app.settings.ramp_env.value)
    except ValueError:
        return await _home(
            request, who, organization, {"error": "choose sandbox or production"}, 400
        )
    try:
        async with app.db() as session:
            created = await project_admin.create_project(
                session,
                who.principal,
                name=field(form, "name"),
                environment=environment,
                secret_box=SecretBox.from_settings(app.settings),
            )
    except InvalidInput as refusal:
        return await _home(request, who, organization, {"error": refusal.message}, 400)
    # The secret is in this answer only; a reload does not show it again (no-store).
    return await _home(request, who, organization, {"created": created}, 201)


async def _project(
    request: Request,
    who: Acting,
    organization: Organization,
    extra: dict[str, Any] | None = None,
    status: int = 200,
) -> Response:
    project_id = request.path_params["projectId"]
    async with services(request).db() as session:
        found = await project_admin.project(session, who.principal, project_id)
        issuers = await project_admin.issuers(session, who.principal, project_id)
        fee = await project_admin.partner_fee(session, who.principal, project_id)
        routing = await routing_admin.routing(session, who.principal, project_id)
    context = {
        "partner_fee": fee,
        "routing": routing,
        "project": found,
        "issuers": issuers,
        "previous_valid": previous_secret_valid(found, utcnow()),
        **(extra or {}),
    }
    return render(request, "project.html", context, status, who, organization)


@page
async def project_page(request: Request) -> Response:
    who, organization = await logged_in(request)
    return await _project(request, who, organization)


@page
async def rotate_secret(request: Request) -> Response:
    who, organization, form = await posted(request)
    app = services(request)
    try:
        grace = float(field(form, "grace_hours") or "24")
    except ValueError:
        grace = -1.0
    try:
        async with app.db() as session:
            rotated = await project_admin.rotate_client_secret(
                session,
                who.principal,
                request.path_params["projectId"],
                grace=timedelta(hours=grace),
                secret_box=SecretBox.from_settings(app.settings),
                force=field(form, "force") == "on",
            )
    except InvalidInput as refusal:
        return await _project(request, who, organization, {"error": refusal.message}, 400)
    return await _project(request, who, organization, {"rotated": rotated})


@page
async def revoke_previous(request: Request) -> Response:
    who, _, _ = await posted(request)
    project_id = request.path_params["projectId"]
    async with services(request).db() as session:
        await project_admin.revoke_previous_secret(session, who.principal, project_id)
    return redirect(f"/dashboard/projects/{project_id}")


@page
async def add_issuer(request: Request) -> Response:
    who, organization, form = await posted(request)
    project_id = request.path_params["projectId"]
    audiences = [a.strip() for a in field(form, "audiences").split(",") if a.strip()]
    try:
        async with services(request).db() as session:
            await project_admin.trust_issuer(
                session,
                who.principal,
                project_id,
                issuer=field(form, "issuer"),
                audiences=audiences,
                jwks_url=field(form, "jwks_url"),
            )
    except InvalidInput as refusal:
        return await _project(request, who, organization, {"error": refusal.message}, 400)
    return redirect(f"/dashboard/projects/{project_id}#issuers")


@page
async def remove_issuer(request: Request) -> Response:
    who, _, _ = await posted(request)
    project_id = request.path_params["projectId"]
    async with services(request).db() as session:
        await project_admin.remove_issuer(
            session, who.principal, project_id, request.path_params["issuerId"]
        )
    return redirect(f"/dashboard/projects/{project_id}#issuers")


@page
async def set_origins(request: Request) -> Response:
    who, organization, form = await posted(request)
    project_id = request.path_params["projectId"]
    origins = [o.strip() for o in field(form, "origins").splitlines() if o.strip()]
    try:
        async with services(request).db() as session:
            await project_admin.set_origins(session, who.principal, project_id, origins)
    except InvalidInput as refusal:
        reasons = "; ".join(f["reason"] for f in refusal.details.get("fields", []))
        message = f"{refusal.message}: {reasons}" if reasons else refusal.message
        return await _project(request, who, organization, {"error": message}, 400)
    return redirect(f"/dashboard/projects/{project_id}#origins")


@page
async def set_partner_fee(request: Request) -> Response:
    who, organization, form = await posted(request)
    project_id = request.path_params["projectId"]
    try:
        bps = int(field(form, "bps"))
    except ValueError:
        bps = -1
    try:
        async with services(request).db() as session:
            await project_admin.set_partner_fee(session, who.principal, project_id, bps)
    except InvalidInput as refusal:
        return await _project(request, who, organization, {"error": refusal.message}, 400)
    return redirect(f"/dashboard/projects/{project_id}#fee")


@page
async def set_routing(request: Request) -> Response:
    who, organization, form = await posted(request)
    project_id = request.path_params["projectId"]
    try:
        async with services(request).db() as session:
            await routing_admin.set_routing(
                session, who.principal, project_id, field(form, "strategy")
            )
    except InvalidInput as refusal:
        return await _project(request, who, organization, {"error": refusal.message}, 400)
    return redirect(f"/dashboard/projects/{project_id}#routing")
