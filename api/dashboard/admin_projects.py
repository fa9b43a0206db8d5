"""The admin API's project endpoints: projects, client credentials, webhook endpoints
and deliveries, trusted issuers, onboarding origins, intents. Each handler parses, calls
ramp/organizations (the pages call the same functions), and renders."""

from __future__ import annotations

from datetime import timedelta

from starlette.requests import Request
from starlette.responses import Response

from api.body import read_json
from api.dashboard.principal import acting
from api.dashboard.resources import intent_summary, issuer_resource, project_resource
from api.dashboard.schemas import (
    CreateProject,
    NewProjectResource,
    PartnerFeeBody,
    PartnerFeeResource,
    RotateClientSecret,
    RotatedSecretResource,
    TrustIssuer,
)
from api.pagination import next_page_url, page_request
from api.render import json_list, json_resource
from api.schemas import (
    CreateWebhookEndpoint,
    OnboardingOrigins,
    OnboardingOriginsResource,
    UpdateWebhookEndpoint,
)
from api.services import services
from api.webhooks import _delivery, _endpoint
from ramp.organizations import intents_view, project_admin
from ramp.organizations.intents_view import filters_from
from ramp.security.encryption import SecretBox
from ramp.webhooks import delivery_log, endpoints
from ramp.webhooks.delivery_log import DeliveryFilters

# Deliveries per page of the admin API's delivery log (`limit` takes 1 to 100).
DELIVERY_PAGE_SIZE = 100


def _project_id(request: Request) -> str:
    return str(request.path_params["projectId"])


async def list_projects(request: Request) -> Response:
    who = await acting(request)
    async with services(request).db() as session:
        found = await project_admin.list_projects(session, who.principal)
    return json_list(project_resource(p) for p in found)


async def create_project(request: Request) -> Response:
    who = await acting(request)
    body = await read_json(request, CreateProject)
    app = services(request)
    async with app.db() as session:
        created = await project_admin.create_project(
            session,
            who.principal,
            name=body.name,
            environment=body.environment or app.settings.ramp_env,
            secret_box=SecretBox.from_settings(app.settings),
        )
    resource = NewProjectResource(
        organization_id=created.organizationId,
        project_id=created.projectId,
        client_id=created.clientId,
        client_secret=created.clientSecret,
    )
    return json_resource(resource, 201)


async def get_project(request: Request) -> Response:
    who = await acting(request)
    async with services(request).db() as session:
        found = await project_admin.project(session, who.principal, _project_id(request))
    return json_resource(project_resource(found))


async def rotate_secret(request: Request) -> Response:
    who = await acting(request)
    body = await read_json(request, RotateClientSecret)
    app = services(request)
    async with app.db() as session:
        rotated = await project_admin.rotate_client_secret(
            session,
            who.principal,
            _project_id(request),
            grace=timedelta(hours=body.grace_hours),
            secret_box=SecretBox.from_settings(app.settings),
            force=body.force,
        )
    return json_resource(
        RotatedSecretResource(
            project_id=rotated.projectId,
            client_id=rotated.clientId,
            client_secret=rotated.clientSecret,
            previous_secret_valid_until=rotated.previousSecretValidUntil,
        )
    )


async def revoke_previous_secret(request: Request) -> Response:
    who = await acting(request)
    async with services(request).db() as session:
        found = await project_admin.revoke_previous_secret(
            session, who.principal, _project_id(request)
        )
    return json_resource(project_resource(found))


async def list_endpoints(request: Request) -> Response:
    who = await acting(request)
    async with services(request).db() as session:
        found = await project_admin.project(session, who.principal, _project_id(request))
        listed = await endpoints.project_endpoints(session, found.id)
    return json_list(_endpoint(e) for e in listed)


async def create_endpoint(request: Request) -> Response:
    who = await acting(request)
    body = await read_json(request, CreateWebhookEndpoint)
    async with services(request).db() as session:
        endpoint = await project_admin.add_endpoint(
            session,
            who.principal,
            _project_id(request),
            url=body.url,
            event_types=list(body.event_types),
            description=body.description,
            enabled=body.enabled,
        )
    return json_resource(_endpoint(endpoint), 201)


async def update_endpoint(request: Request) -> Response:
    who = await acting(request)
    body = await read_json(request, UpdateWebhookEndpoint)
    async with services(request).db() as session:
        endpoint = await project_admin.change_endpoint(
            session,
            who.principal,
            _project_id(request),
            request.path_params["endpointId"],
            url=body.url,
            event_types=list(body.event_types) if body.event_types is not None else None,
            description=body.description,
            enabled=body.enabled,
        )
    return json_resource(_endpoint(endpoint))


async def delete_endpoint(request: Request) -> Response:
    who = await acting(request)
    async with services(request).db() as session:
        await project_admin.remove_endpoint(
            session, who.principal, _project_id(request), request.path_params["endpointId"]
        )
    return Response(status_code=204)


async def list_deliveries(request: Request) -> Response:
    who = await acting(request)
    app = services(request)
    async with app.db() as session:
        found = await project_admin.project(session, who.principal, _project_id(request))
    intent_id = request.query_params.get("intentId")
    # Paged as every list (it used to stop at the latest 100, with no way further back);
    # 100 a page by default, as before.
    page = await delivery_log.delivery_page(
        app.db,
        found.id,
        DeliveryFilters(intent_id=intent_id),
        page_request(request, owner=found.id, default_size=DELIVERY_PAGE_SIZE),
    )
    link = next_page_url(
        request,
        page.after,
        {"intentId": intent_id} if intent_id else None,
        owner=found.id,
        default_size=DELIVERY_PAGE_SIZE,
    )
    return json_list(
        (_delivery(logged.delivery, logged.attempts) for logged in page.items),
        headers={} if link is None else {"Link": f'<{link}>; rel="next"'},
    )


async def redeliver(request: Request) -> Response:
    who = await acting(request)
    app = services(request)

    async with app.db() as session:
        again = await project_admin.redeliver(
            session,
            who.principal,
            _project_id(request),
            request.path_params["deliveryId"],
        )
    return json_resource(_delivery(again, []), 202)


async def list_issuers(request: Request) -> Response:
    who = await acting(request)
    async with services(request).db() as session:
        found = await project_admin.issuers(session, who.principal, _project_id(request))
    return json_list(issuer_resource(i) for i in found)


async def trust_issuer(request: Request) -> Response:
    who = await acting(request)
    body = await read_json(request, TrustIssuer)
    async with services(request).db() as session:
        trusted = await project_admin.trust_issuer(
            session,
            who.principal,
            _project_id(request),
            issuer=body.issuer,
            audiences=list(body.audiences),
            jwks_url=body.jwks_url,
        )
    return json_resource(issuer_resource(trusted), 201)


async def remove_issuer(request: Request) -> Response:
    who = await acting(request)
    async with services(request).db() as session:
        await project_admin.remove_issuer(
            session, who.principal, _project_id(request), request.path_params["issuerId"]
        )
    return Response(status_code=204)


async def get_origins(request: Request) -> Response:
    who = await acting(request)
    async with services(request).db() as session:
        found = await project_admin.project(session, who.principal, _project_id(request))
    return json_resource(OnboardingOriginsResource(origins=list(found.onboarding_origins)))


async def put_origins(request: Request) -> Response:
    who = await acting(request)
    body = await read_json(request, OnboardingOrigins)
    async with services(request).db() as session:
        origins = await project_admin.set_origins(
            session, who.principal, _project_id(request), list(body.origins)
        )
    return json_resource(OnboardingOriginsResource(origins=origins))


async def list_intents(request: Request) -> Response:
    who = await acting(request)
    filters = filters_from(request.query_params)
    found = await intents_view.list_intents(
        services(request).db, who.principal, _project_id(request), filters
    )
    return json_list(intent_summary(i) for i in found)


async def list_unmatched_money(request: Request) -> Response:
    """The project's DEPOSIT_UNMATCHED events (with an intent or none), each as stored."""
    who = await acting(request)
    async with services(request).db() as session:
        found = await intents_view.unmatched_money(session, who.principal, _project_id(request))
    return Response("[" + ",".join(m.body for m in found) + "]", media_type="application/json")


async def get_partner_fee(request: Request) -> Response:
    who = await acting(request)
    async with services(request).db() as session:
        bps = await project_admin.partner_fee(session, who.principal, _project_id(request))
    return json_resource(PartnerFeeResource(bps=bps))


async def put_partner_fee(request: Request) -> Response:
    who = await acting(request)
    body = await read_json(request, PartnerFeeBody)
    async with services(request).db() as session:
        bps = await project_admin.set_partner_fee(
            session, who.principal, _project_id(request), body.bps
        )
    return json_resource(PartnerFeeResource(bps=bps))
