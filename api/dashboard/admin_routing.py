"""The admin API's routing endpoints (issue 26): a project's strategy and its provider
accounts' health. The use cases are ramp/organizations/routing_admin.py."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from api.body import read_json
from api.dashboard.principal import acting
from api.render import json_resource
from api.schemas.routing import ProjectRoutingResource, RoutingBody
from api.services import services
from ramp.organizations import routing_admin


async def get_routing(request: Request) -> Response:
    who = await acting(request)
    async with services(request).db() as session:
        found = await routing_admin.routing(
            session, who.principal, str(request.path_params["projectId"])
        )
    return json_resource(ProjectRoutingResource.model_validate(found.as_json()))


async def put_routing(request: Request) -> Response:
    who = await acting(request)
    body = await read_json(request, RoutingBody)
    async with services(request).db() as session:
        found = await routing_admin.set_routing(
            session, who.principal, str(request.path_params["projectId"]), body.strategy
        )
    return json_resource(ProjectRoutingResource.model_validate(found.as_json()))
