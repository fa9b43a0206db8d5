"""A project's providers page, and the member's security page (second factor)."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from api.dashboard.credential_form import credentials_from, form_fields
from api.dashboard.principal import Acting
from api.dashboard.rendering import field, logged_in, page, posted, redirect, render
from api.services import services
from ramp.adapters.registry import Connectors
from ramp.config import Environment
from ramp.db.tables import Organization
from ramp.errors import Forbidden, InvalidInput, NotFound, RequestError, Unavailable
from ramp.organizations import (
    project_admin,
    provider_account_admin,
    provider_admin,
    second_factor,
)
from ramp.organizations.provider_account_admin import AccountEntry
from ramp.provider_accounts import service
from ramp.security.encryption import SecretBox


async def _providers(
    request: Request,
    who: Acting,
    organization: Organization,
    extra: dict[str, Any] | None = None,
    status: int = 200,
) -> Response:
    app = services(request)
    project_id = request.path_params["projectId"]
    async with app.db() as session:
        found = await project_admin.project(session, who.principal, project_id)
        entries = await provider_admin.project_providers(
            session, who.principal, project_id, app.settings.public_url
        )
        needs_code = await second_factor.totp_required(session, who.principal.organization_id)
        accounts: dict[str, list[AccountEntry]] = {}
        if found.environment == Environment.PRODUCTION:
            for entry in await provider_account_admin.provider_accounts(
                session, who.principal, project_id
            ):
                accounts.setdefault(entry.provider_code, []).append(entry)
    context = {
        # Each provider's accounts (a project may hold several), in routing order.
        "accounts": accounts,
        "project": found,
        "providers": entries,
        "fields": {e.code: form_fields(e.schema) for e in entries if e.schema is not None},
        "needs_code": needs_code,
        "routing": [e.code for e in entries if e.routing],
        "routes": provider_admin.route_availability(found.environment, entries),
        **(extra or {}),
    }
    return render(request, "providers.html", context, status, who, organization)


@page
async def providers_page(request: Request) -> Response:
    who, organization = await logged_in(request)
    return await _providers(request, who, organization)


@page
async def provider_action(request: Request) -> Response:
    """One form per provider: save (and check) credentials, test the connection, disable."""
    who, organization, form = await posted(request)
    app = services(request)
    project_id, code = request.path_params["projectId"], request.path_params["provider"]
    action = field(form, "action")
    box = SecretBox.from_settings(app.settings)
    try:
        async with app.db() as session:
            if action == "test":
                await provider_admin.test_connection(
                    session,
                    who.principal,
                    project_id,
                    provider_code=code,
                    secret_box=box,
                    public_url=app.settings.public_url,
                    connectors=Connectors.from_settings(app.settings),
                )
            elif action == "disable":
                await provider_admin.disable(
                    session,
                    who.principal,
                    project_id,
                    provider_code=code,
                    public_url=app.settings.public_url,
                )
            else:
                schema = service.credentials_schema(code)
                await provider_admin.connect(
                    session,
                    who.principal,
                    project_id,
                    provider_code=code,
                    credentials=credentials_from(form, schema),
                    secret_box=box,
                    public_url=app.settings.public_url,
                    totp_code=field(form, "totp") or None,
                    connectors=Connectors.from_settings(app.settings),
                    name=field(form, "account_name") or None,
                    priority=_priority(field(form, "account_priority")),
                )
    except Forbidden as refusal:
        if refusal.code == "FORBIDDEN":
            raise
        return await _providers(request, who, organization, {"error": refusal.message}, 403)
    except (InvalidInput, Unavailable, NotFound) as refusal:
        reasons = "; ".join(
            f"{f['pointer'].lstrip('/')} {f['reason']}" for f in refusal.details.get("fields", [])
        )
        message = f"{refusal.message} ({reasons})" if reasons else refusal.message
        return await _providers(request, who, organization, {"error": message}, 400)
    return redirect(f"/dashboard/projects/{project_id}/providers")


def _priority(raw: str) -> int | None:
    """The form's priority: empty for none; refused unless a whole number."""
    if not raw.strip():
        return None
    if not raw.strip().isdigit():
        raise InvalidInput(
            RequestError.VALIDATION_ERROR,
            "the priority is a whole number (lower routes first)",
            {"fields": [{"pointer": "/priority", "reason": "is not a whole number"}]},
        )
    return int(raw.strip())


@page
async def account_action(request: Request) -> Response:
    """One form per provider account: set its priority, or disable it (owners)."""
    who, organization, form = await posted(request)
    project_id = request.path_params["projectId"]
    account_id = request.path_params["providerAccountId"]
    try:
        async with services(request).db() as session:
            if field(form, "action") == "disable":
                await provider_account_admin.disable(session, who.principal, project_id, account_id)
            else:
                priority = _priority(field(form, "priority"))
                if priority is None:
                    raise InvalidInput(
                        RequestError.VALIDATION_ERROR,
                        "give the account's priority",
                        {"fields": [{"pointer": "/priority", "reason": "is required"}]},
                    )
                await provider_account_admin.set_priority(
                    session, who.principal, project_id, account_id, priority
                )
    except (InvalidInput, NotFound) as refusal:
        return await _providers(request, who, organization, {"error": refusal.message}, 400)
    return redirect(f"/dashboard/projects/{project_id}/providers")


async def _security(
    request: Request,
    who: Acting,
    organization: Organization,
    extra: dict[str, Any] | None = None,
    status: int = 200,
) -> Response:
    assert who.member is not None
    seed = second_factor.new_seed()
    async with services(request).db() as session:
        required = await second_factor.totp_required(session, who.principal.organization_id)
    context = {
        "enrolled": who.member.totp_secret_encrypted is not None,
        "seed": seed,
        "uri": second_factor.provisioning_uri(seed, who.member.email),
        "required": required,
        **(extra or {}),
    }
    return render(request, "security.html", context, status, who, organization)


@page
async def security_page(request: Request) -> Response:
    who, organization = await logged_in(request)
    return await _security(request, who, organization)


@page
async def security_action(request: Request) -> Response:
    who, organization, form = await posted(request)
    app = services(request)
    try:
        async with app.db() as session:
            if field(form, "action") == "enroll":
                await second_factor.enroll(
                    session,
                    who.principal,
                    seed=field(form, "seed"),
                    code=field(form, "code"),
                    secret_box=SecretBox.from_settings(app.settings),
                )
            else:
                await second_factor.set_totp_required(
                    session, who.principal, field(form, "required") == "on"
                )
    except InvalidInput as refusal:
        return await _security(request, who, organization, {"error": refusal.message}, 400)
    return redirect("/dashboard/security")
