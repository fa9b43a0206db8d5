"""The admin API's organization endpoints: members, invites, API keys, the audit log."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from api.body import read_json
from api.dashboard.principal import acting
from api.dashboard.resources import api_key_resource, audit_resource, member_resource
from api.dashboard.schemas import (
    ChangeRole,
    CreateApiKey,
    CreateInvite,
    InviteResource,
    NewApiKeyResource,
    OpenInviteResource,
    SessionResource,
)
from api.errors import bad_request
from api.pagination import next_page_link, page_request
from api.render import json_list, json_resource
from api.services import services
from ramp.organizations import api_keys, audit, members
from ramp.organizations.access import Role


async def list_members(request: Request) -> Response:
    who = await acting(request)
    async with services(request).db() as session:
        found = await members.members(session, who.principal)
    return json_list(member_resource(m) for m in found)


async def invite_member(request: Request) -> Response:
    who = await acting(request)
    body = await read_json(request, CreateInvite)
    app = services(request)
    async with app.db() as session:
        link = await members.invite_member(session, who.principal, email=body.email, role=body.role)
    resource = InviteResource(
        id=link.invite_id, email=link.email, role=link.role, url=link.url(app.settings.public_url)
    )
    return json_resource(resource, 201)


async def list_invites(request: Request) -> Response:
    who = await acting(request)
    async with services(request).db() as session:
        found = await members.open_invites(session, who.principal)
    return json_list(
        OpenInviteResource(id=i.id, email=i.email, role=Role(i.role), expires_at=i.expires_at)
        for i in found
    )


async def revoke_invite(request: Request) -> Response:
    who = await acting(request)
    async with services(request).db() as session:
        await members.revoke_invite(session, who.principal, request.path_params["inviteId"])
    return Response(status_code=204)


async def change_member_role(request: Request) -> Response:
    who = await acting(request)
    body = await read_json(request, ChangeRole)
    async with services(request).db() as session:
        member = await members.change_role(
            session, who.principal, request.path_params["memberId"], body.role
        )
    return json_resource(member_resource(member))


async def remove_member(request: Request) -> Response:
    who = await acting(request)
    async with services(request).db() as session:
        await members.remove_member(session, who.principal, request.path_params["memberId"])
    return Response(status_code=204)


async def list_api_keys(request: Request) -> Response:
    who = await acting(request)
    async with services(request).db() as session:
        found = await api_keys.list_keys(session, who.principal)
    return json_list(api_key_resource(k) for k in found)


async def create_api_key(request: Request) -> Response:
    who = await acting(request)
    body = await read_json(request, CreateApiKey)
    async with services(request).db() as session:
        created = await api_keys.create_key(session, who.principal, name=body.name, role=body.role)
    listed = api_key_resource(created.key)
    return json_resource(NewApiKeyResource(**listed.model_dump(), key=created.secret), 201)


async def revoke_api_key(request: Request) -> Response:
    who = await acting(request)
    async with services(request).db() as session:
        key = await api_keys.revoke_key(session, who.principal, request.path_params["keyId"])
    return json_resource(api_key_resource(key))


async def list_audit_events(request: Request) -> Response:
    who = await acting(request)
    # Everyone in the organization may read it: it holds no secret.
    who.principal.require(Role.VIEWER)
    organization_id = who.principal.organization_id
    filters = audit_filters(request)
    page = await audit.page(
        services(request).db,
        organization_id,
        page_request(request, owner=organization_id),
        project_id=filters.get("projectId"),
    )
    return json_list(
        (audit_resource(e) for e in page.items),
        headers=next_page_link(request, page.after, filters, owner=organization_id),
    )


def audit_filters(request: Request) -> dict[str, str]:
    """The audit log's filter (`projectId`), carried into the next page's link."""
    project_id = request.query_params.get("projectId")
    if project_id is None:
        return {}
    if not 1 <= len(project_id) <= 200:
        raise bad_request(
            "VALIDATION_ERROR",
            "projectId must be 1 to 200 characters",
            {"fields": [{"pointer": "/projectId", "reason": "is not a valid value"}]},
        )
    return {"projectId": project_id}


async def get_session(request: Request) -> Response:
    who = await acting(request)
    resource = SessionResource(
        organization_id=who.principal.organization_id,
        actor=who.principal.actor,
        role=who.principal.role,
        csrf_token=who.csrf_token or None,
    )
    return json_resource(resource)
