"""Project-scoped catalog reads: routes, providers, account requirements."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from api.auth import authenticate_project, authenticate_routed_project
from api.errors import bad_request
from api.render import json_list, json_resource, provider_resource
from api.schemas import RequirementsResource, RouteResource
from api.services import services
from ramp.catalog import Provider, supported_routes
from ramp.external_accounts.service import requirements_for_route
from ramp.projects import NO_PROVIDER_ACCOUNT
from ramp.routing.health import provider_health

# An empty list keeps the specification's shape (an array); this header says why it is
# empty when the project routes through no provider (a production project before its
# first provider account).
HINT_HEADER = "Ramp-Hint"
NO_PROVIDER_HINT_HEADERS = (
    (
        HINT_HEADER,
        "Present when the list is empty because the project routes through no provider "
        "(no provider account connected, or none healthy): says so and how to connect one",
    ),
)


def _hinted(response: Response, providers: tuple[Provider, ...]) -> Response:
    if not providers:
        response.headers[HINT_HEADER] = NO_PROVIDER_ACCOUNT
    return response


async def authenticated_providers(request: Request) -> tuple[Provider, ...]:
    """The providers of the project whose credentials the request carries (one
    statement for both)."""
    _, providers = await authenticate_routed_project(request)
    return providers


async def list_supported_currencies(request: Request) -> Response:
    providers = await authenticated_providers(request)
    return _hinted(Response(_routes_json(providers), media_type="application/json"), providers)


# The routes of a set of providers are code (the catalog): their JSON is made once per
# set in a process, keyed by the providers' ids. Which providers a project routes
# through is still read on every request. A handful of sets at most: a few providers.
_ROUTES_JSON: dict[tuple[str, ...], bytes] = {}


def _routes_json(providers: tuple[Provider, ...]) -> bytes:
    key = tuple(provider.id for provider in providers)
    if key not in _ROUTES_JSON:
        _ROUTES_JSON[key] = bytes(
            json_list(
                RouteResource(from_code=r.from_code, to_code=r.to_code, provider_ids=r.provider_ids)
                for r in supported_routes(providers)
            ).body
        )
    return _ROUTES_JSON[key]


async def list_providers(request: Request) -> Response:
    async with services(request).db() as session:
        project = await authenticate_project(request, session)
        found = await provider_health(session, project.id)
    providers = tuple(provider for provider, _ in found)
    return _hinted(
        json_list(provider_resource(p, health.state.value) for p, health in found), providers
    )


async def get_requirements(request: Request) -> Response:
    providers = await authenticated_providers(request)
    src = request.query_params.get("src", "").strip()
    dest = request.query_params.get("dest", "").strip()
    missing = [name for name, value in (("src", src), ("dest", dest)) if not value]
    if missing:
        raise bad_request(
            "VALIDATION_ERROR",
            "query parameters src and dest are required",
            {"fields": [{"pointer": f"/{name}", "reason": "is required"} for name in missing]},
        )
    requirements = requirements_for_route(src, dest, providers)
    return json_resource(
        RequirementsResource(
            src=requirements.src,
            dest=requirements.dest,
            source=requirements.source,
            destination=requirements.destination,
        )
    )
