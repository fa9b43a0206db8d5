"""Routing's public endpoint (issue 26): `POST /v1/sandbox/providers/{providerId}/
behaviour`, a sandbox project making one of its mock providers misbehave. The use case
is ramp/routing/behaviour.py."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute

from api.auth import authenticate_project
from api.body import read_json
from api.operations import ApiRoute, Operation, path_parameter
from api.render import json_resource
from api.sandbox import _sandbox
from api.schemas import routing as routing_schemas
from api.schemas.routing import SandboxProviderBehaviourBody, SandboxProviderBehaviourResource
from ramp.routing import behaviour


async def set_provider_behaviour(request: Request) -> Response:
    app = _sandbox(request)
    project = await authenticate_project(request)
    body = await read_json(request, SandboxProviderBehaviourBody)
    async with app.db() as session:
        found = await behaviour.set_behaviour(
            session, project, str(request.path_params["providerId"]), body.mode, body.seconds
        )
    return json_resource(SandboxProviderBehaviourResource.model_validate(found.as_json()))


# Part of the one route table of api/routes.py.
ROUTING_ROUTES: list[BaseRoute] = [
    ApiRoute(
        "POST",
        "/sandbox/providers/{providerId}/behaviour",
        set_provider_behaviour,
        Operation(
            "setSandboxProviderBehaviour",
            "Sandbox only: make one of the project's mock providers misbehave (DOWN, SLOW, "
            "REFUSE_TRANSFERS) for a while or until set back UP, for this project only",
            auth="basic",
            status=200,
            request=routing_schemas.SandboxProviderBehaviourBody,
            response=routing_schemas.SandboxProviderBehaviourResource,
            parameters=(path_parameter("providerId", "Provider id (GET /v1/providers)"),),
            errors=(400, 401, 404),
        ),
    ),
]
