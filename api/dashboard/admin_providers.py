"""The admin API's provider endpoints (and the organization's TOTP requirement)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from api.body import read_json
from api.dashboard.principal import acting
from api.dashboard.schemas import (
    ConnectProvider,
    ProjectProviderAccountResource,
    ProjectProviderResource,
    RouteAvailabilityResource,
    SecuritySettings,
    SecuritySettingsResource,
    UpdateProviderAccount,
)
from api.render import json_list, json_resource
from api.services import services
from ramp.adapters.registry import Connectors
from ramp.errors import NotFound
from ramp.organizations import (
    project_admin,
    provider_account_admin,
    provider_admin,
    second_factor,
)
from ramp.organizations.provider_account_admin import AccountEntry
from ramp.organizations.provider_admin import ProviderEntry
from ramp.security.encryption import SecretBox


def _resource(entry: ProviderEntry) -> ProjectProviderResource:
    return ProjectProviderResource(
        provider=entry.code,
        name=entry.name,
        mock=entry.mock,
        status=entry.status,
        status_reason=entry.reason,
        credentials_hint=entry.hint,
        routing=entry.routing,
        credentials_schema=dict(entry.schema) if entry.schema is not None else None,
    )


async def _entry(request: Request, provider_code: str) -> ProviderEntry:
    who = await acting(request)
    app = services(request)
    async with app.db() as session:
        entries = await provider_admin.project_providers(
            session, who.principal, request.path_params["projectId"], app.settings.public_url
        )
    found = next((e for e in entries if e.code == provider_code.upper()), None)
    if found is None:
        raise NotFound("provider")
    return found


async def list_providers(request: Request) -> Response:
    who = await acting(request)
    app = services(request)
    async with app.db() as session:
        entries = await provider_admin.project_providers(
            session, who.principal, request.path_params["projectId"], app.settings.public_url
        )
    return json_list(_resource(e) for e in entries)


async def list_routes(request: Request) -> Response:
    who = await acting(request)
    app = services(request)
    project_id = request.path_params["projectId"]
    async with app.db() as session:
        entries = await provider_admin.project_providers(
            session, who.principal, project_id, app.settings.public_url
        )
        project = await project_admin.project(session, who.principal, project_id)
    return json_list(
        RouteAvailabilityResource(
            from_code=r.from_code,
            to_code=r.to_code,
            available=r.available,
            providers=list(r.providers),
            reason=r.reason,
        )
        for r in provider_admin.route_availability(project.environment, entries)
    )


async def connect_provider(request: Request) -> Response:
    who = await acting(request)
    body = await read_json(request, ConnectProvider)
    app = services(request)
    code = request.path_params["provider"]
    async with app.db() as session:
        await provider_admin.connect(
            session,
            who.principal,
            request.path_params["projectId"],
            provider_code=code,
            credentials=body.credentials,
            secret_box=SecretBox.from_settings(app.settings),
            public_url=app.settings.public_url,
            totp_code=body.totp_code,
            connectors=Connectors.from_settings(app.settings),
            name=body.name,
            priority=body.priority,
        )
    return json_resource(_resource(await _entry(request, code)))


async def test_provider(request: Request) -> Response:
    who = await acting(request)
    app = services(request)
    code = request.path_params["provider"]
    async with app.db() as session:
        await provider_admin.test_connection(
            session,
            who.principal,
            request.path_params["projectId"],
            provider_code=code,
            secret_box=SecretBox.from_settings(app.settings),
            public_url=app.settings.public_url,
            connectors=Connectors.from_settings(app.settings),
        )
    return json_resource(_resource(await _entry(request, code)))


async def disable_provider(request: Request) -> Response:
    who = await acting(request)
    app = services(request)
    code = request.path_params["provider"]
    async with app.db() as session:
        await provider_admin.disable(
            session,
            who.principal,
            request.path_params["projectId"],
            provider_code=code,
            public_url=app.settings.public_url,
        )
    return json_resource(_resource(await _entry(request, code)))


def _account(entry: AccountEntry) -> ProjectProviderAccountResource:
    return ProjectProviderAccountResource.model_validate(entry.as_json())


async def list_accounts(request: Request) -> Response:
    who = await acting(request)
    async with services(request).db() as session:
        entries = await provider_account_admin.provider_accounts(
            session, who.principal, request.path_params["projectId"]
        )
    return json_list(_account(e) for e in entries)


async def update_account(request: Request) -> Response:
    who = await acting(request)
    body = await read_json(request, UpdateProviderAccount)
    async with services(request).db() as session:
        entry = await provider_account_admin.set_priority(
            session,
            who.principal,
            request.path_params["projectId"],
            request.path_params["providerAccountId"],
            body.priority,
        )
    return json_resource(_account(entry))


async def disable_account(request: Request) -> Response:
    who = await acting(request)
    async with services(request).db() as session:
        entry = await provider_account_admin.disable(
            session,
            who.principal,
            request.path_params["projectId"],
            request.path_params["providerAccountId"],
        )
    return json_resource(_account(entry))


async def put_security(request: Request) -> Response:
    who = await acting(request)
    body = await read_json(request, SecuritySettings)
    async with services(request).db() as session:
        await second_factor.set_totp_required(session, who.principal, body.totp_required)
    return json_resource(SecuritySettingsResource(totp_required=body.totp_required))
