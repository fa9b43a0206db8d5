"""The organization's pages: members and invites, API keys (owners only), audit log."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from api.dashboard.principal import Acting
from api.dashboard.rendering import field, logged_in, page, posted, redirect, render
from api.errors import ApiError
from api.pagination import next_page_url, page_request
from api.services import services
from ramp.db.tables import Organization
from ramp.errors import Conflict, InvalidInput
from ramp.organizations import api_keys, audit, members, project_admin
from ramp.organizations.access import Role

# Entries per page of the dashboard's audit log (`limit` in the URL takes 1 to 100).
AUDIT_PAGE_SIZE = 50


def _role(value: str) -> Role:
    try:
        return Role(value)
    except ValueError:
        raise InvalidInput("VALIDATION_ERROR", "choose owner, developer or viewer") from None


async def _members(
    request: Request,
    who: Acting,
    organization: Organization,
    extra: dict[str, Any] | None = None,
    status: int = 200,
) -> Response:
    async with services(request).db() as session:
        found = await members.members(session, who.principal)
        invites = await members.open_invites(session, who.principal)
    context = {"members": found, "invites": invites, **(extra or {})}
    return render(request, "members.html", context, status, who, organization)


@page
async def members_page(request: Request) -> Response:
    who, organization = await logged_in(request)
    return await _members(request, who, organization)


@page
async def invite(request: Request) -> Response:
    who, organization, form = await posted(request)
    app = services(request)
    try:
        async with app.db() as session:
            link = await members.invite_member(
                session, who.principal, email=field(form, "email"), role=_role(field(form, "role"))
            )
    except (InvalidInput, Conflict) as refusal:
        return await _members(request, who, organization, {"error": refusal.message}, 400)
    # The link is in this answer only.
    extra = {"invited": link, "invite_url": link.url(app.settings.public_url)}
    return await _members(request, who, organization, extra, 201)


@page
async def change_member(request: Request) -> Response:
    who, organization, form = await posted(request)
    member_id = request.path_params["memberId"]
    try:
        async with services(request).db() as session:
            if field(form, "action") == "remove":
                await members.remove_member(session, who.principal, member_id)
            else:
                await members.change_role(
                    session, who.principal, member_id, _role(field(form, "role"))
                )
    except (InvalidInput, Conflict) as refusal:
        return await _members(request, who, organization, {"error": refusal.message}, 400)
    return redirect("/dashboard/members")


@page
async def revoke_invite(request: Request) -> Response:
    who, _, _ = await posted(request)
    async with services(request).db() as session:
        await members.revoke_invite(session, who.principal, request.path_params["inviteId"])
    return redirect("/dashboard/members")


async def _keys(
    request: Request,
    who: Acting,
    organization: Organization,
    extra: dict[str, Any] | None = None,
    status: int = 200,
) -> Response:
    async with services(request).db() as session:
        found = await api_keys.list_keys(session, who.principal)
    return render(
        request, "api_keys.html", {"keys": found, **(extra or {})}, status, who, organization
    )


@page
async def keys_page(request: Request) -> Response:
    who, organization = await logged_in(request)
    return await _keys(request, who, organization)


@page
async def create_key(request: Request) -> Response:
    who, organization, form = await posted(request)
    try:
        async with services(request).db() as session:
            created = await api_keys.create_key(
                session, who.principal, name=field(form, "name"), role=_role(field(form, "role"))
            )
    except InvalidInput as refusal:
        return await _keys(request, who, organization, {"error": refusal.message}, 400)
    return await _keys(request, who, organization, {"created": created}, 201)


@page
async def revoke_key(request: Request) -> Response:
    who, _, _ = await posted(request)
    async with services(request).db() as session:
        await api_keys.revoke_key(session, who.principal, request.path_params["keyId"])
    return redirect("/dashboard/api-keys")


@page
async def audit_page(request: Request) -> Response:
    who, organization = await logged_in(request)
    organization_id = who.principal.organization_id
    try:
        wanted = page_request(request, owner=organization_id, default_size=AUDIT_PAGE_SIZE)
    except ApiError:
        # A page link edited or of another organization: a page, not the API's envelope.
        refusal = {
            "title": "No such page of the audit log",
            "message": "This link is not one the audit log gave: start from its newest page.",
        }
        return render(request, "error.html", refusal, 400, who, organization)
    found = await audit.page(services(request).db, organization_id, wanted)
    async with services(request).db() as session:
        projects = await project_admin.list_projects(session, who.principal)
    context = {
        "events": found.items,
        # Changes to a project (its webhooks, issuers, secret...) name it.
        "project_names": {project.id: project.name for project in projects},
        # The newest page has no cursor; any other links back to it.
        "paged": "cursor" in request.query_params,
        "retention_days": f"{services(request).settings.audit_retention_days:g}",
        "older": next_page_url(
            request, found.after, owner=organization_id, default_size=AUDIT_PAGE_SIZE
        ),
    }
    return render(request, "audit.html", context, 200, who, organization)
