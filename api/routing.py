"""Routing's public endpoint (issue 26): `POST /v1/sandbox/providers/{providerId}/
behaviour`, a sandbox project making one of its mock providers misbehave. The use case
is ramp/routing/behaviour.py."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from api.body import read_json
from api.render import json_resource
from api.sandbox import _project, _sandbox
from api.schemas.routing import SandboxProviderBehaviourBody, SandboxProviderBehaviourResource
from ramp.routing import behaviour


async def set_provider_behaviour(request: Request) -> Response:
    app = _sandbox(request)
    project = await _project(request, app)
    body = await read_json(request, SandboxProviderBehaviourBody)
    async with app.db() as session:
        found = await behaviour.set_behaviour(
            session, project, str(request.path_params["providerId"]), body.mode, body.seconds
        )
    return json_resource(SandboxProviderBehaviourResource.model_validate(found.as_json()))
