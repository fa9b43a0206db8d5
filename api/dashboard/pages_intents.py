"""A project's intents (filters: status, customer, provider, dates) and an intent's
page: plan steps, transaction, deposit instructions, provider events, its webhook
deliveries, a link to its workflow in the Temporal UI, and, on a sandbox project, the
sandbox tools (the next verification outcome, the next provider event); and the
project's unmatched money (DEPOSIT_UNMATCHED events, with or without an intent)."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import Response

from api.dashboard.principal import Acting
from api.dashboard.rendering import field, logged_in, page, posted, redirect, render
from api.services import services
from ramp.catalog import providers_for
from ramp.config import Environment
from ramp.db.tables import Organization
from ramp.errors import Conflict, InvalidInput, NotFound, Refused, Unavailable
from ramp.intents.lifecycle import workflow_id
from ramp.intents.sandbox import SandboxService
from ramp.intents.states import IntentStatus, ProviderEventType, StepOutcome
from ramp.intents.workflow_client import IntentWorkflowClient
from ramp.organizations import intents_view, project_admin
from ramp.organizations.access import Role
from ramp.organizations.intents_view import filters_from


@page
async def intents_page(request: Request) -> Response:
    who, organization = await logged_in(request)
    project_id = request.path_params["projectId"]
    error = None
    app = services(request)
    async with app.db() as session:
        found = await project_admin.project(session, who.principal, project_id)
    try:
        filters = filters_from(request.query_params)
    except InvalidInput as refusal:
        error, filters = refusal.message, filters_from({})
    listed = await intents_view.list_intents(app.db, who.principal, project_id, filters)
    async with app.db() as session:
        customers = await intents_view.customer_external_ids(
            session, found.id, (intent.customer_id for intent in listed)
        )
    context = {
        "project": found,
        "intents": listed,
        "customers": customers,
        "providers": [p.code for p in providers_for(found.environment)],
        "statuses": [s.value for s in IntentStatus],
        "query": request.query_params,
        "error": error,
    }
    return render(request, "intents.html", context, 400 if error else 200, who, organization)


@page
async def unmatched_page(request: Request) -> Response:
    """Money the project's providers received that no intent could take (with or without
    an intent): what an operator refunds or settles by hand."""
    who, organization = await logged_in(request)
    project_id = request.path_params["projectId"]
    async with services(request).db() as session:
        found = await project_admin.project(session, who.principal, project_id)
        listed = await intents_view.unmatched_money(session, who.principal, project_id)
        customers = await intents_view.customer_external_ids(
            session, found.id, (m.data["customerId"] for m in listed if m.data.get("customerId"))
        )
    context = {"project": found, "unmatched": listed, "customers": customers}
    return render(request, "unmatched.html", context, 200, who, organization)


def _sandbox_tools(request: Request, environment: str) -> bool:
    app = services(request)
    return environment == Environment.SANDBOX and app.settings.ramp_env is Environment.SANDBOX


async def _intent(
    request: Request,
    who: Acting,
    organization: Organization,
    extra: dict[str, Any] | None = None,
    status: int = 200,
) -> Response:
    app = services(request)
    project_id, intent_id = request.path_params["projectId"], request.path_params["intentId"]
    async with app.db() as session:
        found = await project_admin.project(session, who.principal, project_id)
        detail = await intents_view.intent_detail(session, who.principal, project_id, intent_id)
    ui = app.settings.temporal_ui_url.rstrip("/")
    temporal_link = (
        f"{ui}/namespaces/{quote(app.settings.temporal_namespace)}/workflows/"
        f"{quote(workflow_id(intent_id))}"
        if ui
        else None
    )
    context = {
        "project": found,
        "detail": detail,
        "temporal_link": temporal_link,
        "sandbox_tools": _sandbox_tools(request, found.environment)
        and who.principal.may(Role.DEVELOPER),
        "outcomes": [o.value for o in StepOutcome],
        "event_types": [e.value for e in ProviderEventType],
        **(extra or {}),
    }
    return render(request, "intent.html", context, status, who, organization)


@page
async def intent_page(request: Request) -> Response:
    who, organization = await logged_in(request)
    return await _intent(request, who, organization)


@page
async def sandbox_action(request: Request) -> Response:
    """Plays the next verification outcome or provider event, as the sandbox endpoints do."""
    who, organization, form = await posted(request)
    who.principal.require(Role.DEVELOPER)
    app = services(request)
    project_id, intent_id = request.path_params["projectId"], request.path_params["intentId"]
    async with app.db() as session:
        found = await project_admin.project(session, who.principal, project_id)
        detail = await intents_view.intent_detail(session, who.principal, project_id, intent_id)
    if not _sandbox_tools(request, found.environment):
        raise NotFound("sandbox tool")
    sandbox = SandboxService(app.db, IntentWorkflowClient(app.temporal, app.settings.task_queue))
    reason = field(form, "reason") or None
    try:
        if field(form, "tool") == "step":
            await sandbox.record_step_outcome(
                found.id,
                intent_id,
                field(form, "step_code"),
                StepOutcome(field(form, "outcome")),
                reason,
            )
        else:
            if detail.transaction is None:
                raise InvalidInput("VALIDATION_ERROR", "the intent has no transaction yet")
            await sandbox.report_transaction_event(
                found.id,
                detail.transaction.id,
                ProviderEventType(field(form, "event_type")),
                reason,
            )
    except ValueError:
        return await _intent(
            request, who, organization, {"error": "choose a value from the list"}, 400
        )
    except (Conflict, Refused, InvalidInput, Unavailable, NotFound) as refusal:
        return await _intent(request, who, organization, {"error": refusal.message}, 400)
    return redirect(f"/dashboard/projects/{project_id}/intents/{intent_id}?played=1")
